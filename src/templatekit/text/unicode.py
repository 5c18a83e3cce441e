"""The Unicode algorithms text layout needs, by ICU: bidi levels (UAX #9), line break
opportunities (UAX #14, with dictionaries for Thai, Lao, Khmer and Myanmar and the CJK
rules of line starts and ends), scripts (UAX #24) and emoji properties (UTS #51).

ICU counts in UTF-16 code units; everything here answers in Python string indices
(code points). Break iterators are not thread-safe: each thread keeps its own.
"""

from __future__ import annotations

import re
import string
import threading
import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING

from templatekit.lazy_module import LazyModule

if TYPE_CHECKING:
    import icu
else:  # imported on first use: text in ASCII alone never needs it
    icu = LazyModule("icu", globals())


_local = threading.local()

COMMON = "Zyyy"  # spaces, punctuation, digits: take the script of their neighbours
INHERITED = "Zinh"  # combining marks: the script of their base
CURSIVE = frozenset({"Arab", "Syrc", "Mong", "Nkoo", "Phag", "Mand", "Adlm", "Rohg"})  # no letter spacing


def _utf16_index(text: str) -> list[int] | None:
    """Code point index of each UTF-16 unit, or None when the two count alike."""
    if text.isascii() or max(text) < "\U00010000":
        return None
    index = []
    for position, char in enumerate(text):
        index.append(position)
        if ord(char) > 0xFFFF:
            index.append(position)
    index.append(len(text))
    return index


#: Bidi classes that set a level above 0 in a left-to-right paragraph: right-to-left
#: letters, Arabic digits, and the explicit embeddings, overrides and isolates.
_RAISING = frozenset({"R", "AL", "AN", "LRE", "LRO", "RLE", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})


def _left_to_right_only(text: str) -> bool:
    """Whether every character of ``text`` is at level 0 in a left-to-right paragraph;
    a character Python's Unicode tables do not know (newer than them) is ICU's to judge."""
    classes = {unicodedata.bidirectional(char) for char in set(text)}
    return not classes & _RAISING and "" not in classes


def bidi_levels(text: str, rtl: bool | None = None) -> tuple[int, list[int]]:
    """The paragraph's level (0 left-to-right, 1 right-to-left: ``rtl``, or the first
    strong character's direction when None) and the embedding level of each character."""
    if not rtl and (text.isascii() or _left_to_right_only(text)):
        return 0, [0] * len(text)
    bidi = icu.Bidi()
    units = icu.UnicodeString(text)
    bidi.setPara(units, icu.Bidi.DEFAULT_LTR if rtl is None else int(rtl))
    levels = bidi.getLevels()
    if max(text) > "\uffff":  # one level per code point, not per UTF-16 unit
        starts, unit = [], 0
        for char in text:
            starts.append(unit)
            unit += 2 if char > "\uffff" else 1
        levels = tuple(levels[unit] for unit in starts)
    return bidi.getParaLevel(), list(levels)


def _line_iterator(language: str) -> icu.BreakIterator:
    iterators = getattr(_local, "line", None)
    if iterators is None:
        iterators = _local.line = {}
    iterator = iterators.get(language)
    if iterator is None:
        iterator = iterators[language] = icu.BreakIterator.createLineInstance(icu.Locale(language))
    return iterator


#: Printable ASCII characters after which browsers let a line break before an opening
#: bracket (Chromium's ``kAsciiLineBreakTable``, kept from Firefox 3.6 and IE).
_BEFORE_BRACKET_AFTER = frozenset('!"#%&)*+,.:;=>\\]|}~')
#: What may start a line after "-" (digits: see ``_ascii_break``) and after "?".
_AFTER_HYPHEN = frozenset("\"#%&'(*+-<=>@[\\^_`{|~" + string.ascii_letters)
_AFTER_QUESTION = frozenset("#$%&(*+-<=>@[\\^_`{|~" + string.digits + string.ascii_letters)


#: Printable ASCII characters and spaces, and nothing else.
_SPACED_PRINTABLE_ASCII = re.compile("[ -~]+")


def _printable_ascii(char: str) -> bool:
    return "!" <= char <= "~"


def _ascii_break(before: str, last: str, char: str) -> bool:
    """Whether a line may break between two printable ASCII characters, as browsers
    decide it by their own table rather than UAX #14: never after "/", "!", "|" or "}"
    before a letter ("A/B", URLs stay whole), before "(", "[", "{" and "<" after most
    punctuation, and after "-" (before a digit only in "ABCD-1234", not in "-5") and "?"."""
    if last == "-" and char.isdigit():
        return before.isascii() and before.isalnum()
    if last == "-":
        return char in _AFTER_HYPHEN
    if last == "?":
        return char in _AFTER_QUESTION
    return char in "(<[{" and last in _BEFORE_BRACKET_AFTER


def line_breaks(text: str, language: str = "") -> list[int]:
    """Positions where a line may end (after the character before it), in order; the
    text's length is the last. Between two printable ASCII characters browsers do not
    ask UAX #14 but a table of their own (``_ascii_break``), and so do we: text breaks
    where Chromium breaks it."""
    if _SPACED_PRINTABLE_ASCII.fullmatch(text):
        # the loop below decides every place but those before a space, where UAX #14
        # never breaks: ICU has nothing to add (and is not loaded for such text)
        found = {len(text)}
    else:
        iterator = _line_iterator(language)
        iterator.setText(text)
        stops = list(iterator)
        mapping = _utf16_index(text)
        if mapping is not None:
            stops = [mapping[stop] for stop in stops]
        found = set(stops)
    for index in range(1, len(text)):
        last, char = text[index - 1], text[index]
        if last == " " and _printable_ascii(char):  # browsers break at any space: "or /usr", "a (b"
            found.add(index)
        elif _printable_ascii(last) and _printable_ascii(char):
            allowed = _ascii_break(text[index - 2] if index > 1 else "", last, char)
            if allowed:
                found.add(index)
            else:
                found.discard(index)
    return sorted(found)


def graphemes(text: str) -> list[str]:
    """The grapheme clusters of ``text`` (what a reader takes as one character, UAX #29)."""
    if len(text) == 1 or text.isascii() and "\r\n" not in text:
        return list(text)  # in ASCII only CR LF is a cluster of two
    iterator = getattr(_local, "characters", None)
    if iterator is None:
        iterator = _local.characters = icu.BreakIterator.createCharacterInstance(icu.Locale.getRoot())
    iterator.setText(text)
    stops = list(iterator)
    mapping = _utf16_index(text)
    if mapping is not None:
        stops = [mapping[stop] for stop in stops]
    clusters, start = [], 0
    for stop in stops:
        clusters.append(text[start:stop])
        start = stop
    return clusters


@lru_cache(maxsize=256)
def _script_tag(code: int) -> str:
    return str(icu.Script(code).getShortName())


def script_of(char: str) -> str:
    """The ISO 15924 tag of a character's script (``Latn``, ``Arab``, ``Zyyy`` …)."""
    if char < "\x80":
        return "Latn" if char.isalpha() else COMMON
    return _script_tag(icu.Char.getIntPropertyValue(char, icu.UProperty.SCRIPT))


def scripts(text: str) -> list[str]:
    """The script of each character, common and inherited characters resolved to the
    script around them (the one before, else the one after), as HarfBuzz wants runs."""
    found = [script_of(char) for char in text]
    current = next((tag for tag in found if tag not in (COMMON, INHERITED)), "Latn")
    for index, tag in enumerate(found):
        if tag in (COMMON, INHERITED):
            found[index] = current
        else:
            current = tag
    return found


def _has(char: str, prop: int) -> bool:
    return bool(icu.Char.hasBinaryProperty(char, prop))


def is_emoji(cluster: str) -> bool:
    """Whether a grapheme cluster is shown as a colour emoji (UTS #51): a character of
    emoji presentation not followed by VS15, or a text-default one followed by VS16, or
    an emoji sequence (keycaps, flags, modifiers, ZWJ sequences)."""
    first = cluster[0]
    if first < "\u00a9":
        return "\u20e3" in cluster and "\ufe0e" not in cluster  # keycaps: 1️⃣ #️⃣
    if "\ufe0e" in cluster:
        return False
    if "\ufe0f" in cluster or "\u200d" in cluster and _has(first, icu.UProperty.EXTENDED_PICTOGRAPHIC):
        return _has(first, icu.UProperty.EMOJI) or "\u200d" in cluster
    if _has(first, icu.UProperty.REGIONAL_INDICATOR):
        return True
    if len(cluster) > 1 and _has(cluster[1], icu.UProperty.EMOJI_MODIFIER):
        return True
    return _has(first, icu.UProperty.EMOJI_PRESENTATION)
