"""A space between words of a script the layer's font lacks (Arabic, Hebrew, Devanagari
in Inter) is the layer's font's own space in CSS: a browser takes each character from the
first family of the font list that has it, and Inter has the space. Its width decides
where lines break, so the same Arabic paragraph wraps where Chromium wraps it."""

from __future__ import annotations

import pytest

from templatekit.text.fonts import FontBook
from templatekit.text.typeset import TextStyle, typeset

ARABIC = "مرحبا بالعالم، هذا نص عربي طويل بما يكفي لكي ينكسر على عدة أسطر في الصندوق"


def test_arabic_wraps_with_the_primary_fonts_spaces_as_in_chromium() -> None:
    """Chromium (Inter, then Noto Sans Arabic, 30 px, 400 px wide) breaks before "طويل"
    and before "عدة"; measured before a fix: after them, the spaces being Noto Sans
    Arabic's (7.8 px) instead of Inter's (8.44 px)."""
    lines = typeset(ARABIC, TextStyle(size=30), FontBook.bundled(), 400).text
    assert lines == ["مرحبا بالعالم، هذا نص عربي", "طويل بما يكفي لكي ينكسر على", "عدة أسطر في الصندوق"]


def test_letter_spacing_widens_the_spaces_between_arabic_words() -> None:
    """Arabic letters are not spaced apart (they join), but CSS's letter-spacing still
    follows each space: three spaces at 3 px make the line 9 px wider (it was as wide)."""
    text = "مرحبا بالعالم هذا نص"
    plain = typeset(text, TextStyle(size=30), FontBook.bundled(), 2000).lines[0].width
    spaced = typeset(text, TextStyle(size=30, letter_spacing=3), FontBook.bundled(), 2000).lines[0].width
    assert spaced - plain == pytest.approx(9, abs=0.01)
