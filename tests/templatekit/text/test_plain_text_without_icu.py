"""Text is broken and given bidi levels without asking ICU where the answer is plain (and
a render of plain ASCII text does not import it, as test_start_up_imports checks): the
answers must be those ICU gives (for line breaks, corrected by the browsers' ASCII table)."""

from __future__ import annotations

import icu
import pytest

pytest.importorskip("hypothesis")

from hypothesis import given, settings
from hypothesis import strategies as st

from templatekit.text.unicode import bidi_levels, line_breaks

SPACED_ASCII = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=40)


@given(SPACED_ASCII, st.sampled_from(["", "en", "fi", "ja", "zh"]))
def test_places_are_those_found_with_icu(text: str, language: str) -> None:
    # "é" makes the text ICU's to break; the places before it do not depend on it (those
    # before a space are UAX #14's, the others the ASCII table's)
    with_icu = [place for place in line_breaks(text + "é", language) if place < len(text)]
    assert line_breaks(text, language) == [*with_icu, len(text)]


#: Letters, digits, punctuation and marks of left-to-right scripts, with a few Hebrew and
#: Arabic letters, Arabic digits and bidi controls among them.
MIXED = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0x20, max_codepoint=0x2FF),
        st.characters(min_codepoint=0x300, max_codepoint=0x36F),
        st.characters(min_codepoint=0x2000, max_codepoint=0x206F),
        st.characters(min_codepoint=0x4E00, max_codepoint=0x4E20),
        st.sampled_from("\u05d0\u05d1\u0627\u0644\u0661\u0662\u202a\u202b\u202e\u2066\u2067"),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=500)
@given(MIXED, st.sampled_from([None, False]))
def test_levels_of_left_to_right_text_are_icus(text: str, rtl: bool | None) -> None:
    bidi = icu.Bidi()
    bidi.setPara(icu.UnicodeString(text), icu.Bidi.DEFAULT_LTR if rtl is None else 0)
    assert bidi_levels(text, rtl) == (bidi.getParaLevel(), list(bidi.getLevels()))
