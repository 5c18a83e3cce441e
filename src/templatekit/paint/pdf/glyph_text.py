"""What text each glyph of a run stands for, and which glyphs need an ActualText.

A PDF gives text back through two means: the font's ToUnicode map (one text per glyph,
for the whole document) and marked content with an ActualText (the text of a span of
glyphs, read by poppler, MuPDF, PDFium, pdf.js and Acrobat; ignored by pdfminer.six
and pypdf). Most runs draw one glyph per character in order and need only the map.

Shaping may split a character into several glyphs (Tamil's ொ is drawn as ெ before its
consonant and ா after it), draw several characters with one glyph, or move a glyph
before the characters it follows (Indic vowel signs, Khmer's coeng forms). HarfBuzz's
clusters are too fine for those: the left half of ொ is given the consonant's cluster.
So glyphs are also grouped into *units*: clusters joined while the next starts with a
mark or joiner, or the previous ends with a virama, which is a syllable in the Brahmic
scripts and a grapheme elsewhere. Within a cluster each glyph stands for the character
the font maps to it (or a part of a character's canonical decomposition) and what is
left goes to a glyph that has none; a glyph still without text borrows its character
from another cluster of its unit. A unit whose glyphs do not read back as its text, has
a glyph that stands for nothing, or draws a glyph back before the one it follows, is
marked with its ActualText (as Chromium marks its clusters).
"""

from __future__ import annotations

import itertools
import unicodedata
from functools import lru_cache

from templatekit.font_file import hb_font
from templatekit.scene import GlyphRun

_VIRAMA = 9  # the canonical combining class of viramas, Khmer's coeng and Myanmar's asat-virama
_JOINERS = "\u200d\u034f"  # not the ZWNJ: it parts the letters it stands between


#: Format controls a reader does not want back from a PDF's text, and which draw nothing:
#: bidi marks, embeddings and isolates, the zero-width space, the word joiner and the
#: invisible operators, the byte order mark. (Joiners stay: they belong to the words they
#: join, a Persian ZWNJ to its word; so does a soft hyphen, a word's place to break.)
_UNSPOKEN = frozenset(
    "\u061c\u200b\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"
)


def any_unspoken(text: str) -> bool:
    """Whether ``text`` holds any such control (one set operation for a whole run)."""
    return not _UNSPOKEN.isdisjoint(text)


def unspoken(text: str) -> bool:
    """Whether ``text`` (a glyph's) is only such controls: its glyph is left out of the PDF."""
    return bool(text) and all(char in _UNSPOKEN for char in text)


def glyph_texts(run: GlyphRun) -> list[str]:
    """For each glyph, the text the ToUnicode map should give for it: within each of
    HarfBuzz's clusters, the character the font maps to the glyph, and what is left of
    the cluster for its first glyph in reading order that has none (else its first); a
    glyph left with nothing takes its character from another cluster of its unit (the
    left half of ொ its ெ)."""
    if one_glyph_per_character(run):
        return list(reversed(run.text) if run.rtl else run.text)
    characters = hb_font(run.font).characters
    texts = [""] * len(run.glyphs)
    clusters = _groups(run, {start: start for start in run.clusters})
    for (start, stop), indices in clusters.items():
        text = run.text[start:stop]
        if len(indices) == 1:
            # Extractors put right-to-left glyphs back in reading order character by
            # character: a ligature's characters (lam-alef) are given reversed for that.
            texts[indices[0]] = text[::-1] if run.rtl else text
            continue
        rest = list(text)
        for index in indices:
            own = characters.get(run.glyphs[index])
            if own is not None and _take(rest, own):
                texts[index] = own
        holder = next((index for index in indices if not texts[index]), indices[0])
        texts[holder] = "".join(rest) + texts[holder]
    for indices in _units(run).values():
        for index in indices:
            own = characters.get(run.glyphs[index])
            if not texts[index] and own is not None:
                _borrow(texts, indices, index, own)
    return texts


def _borrow(texts: list[str], indices: list[int], index: int, char: str) -> None:
    """Give glyph ``index`` the ``char`` that another glyph of its unit holds as part of
    its text or of a character's canonical decomposition, if that glyph keeps some text."""
    for other in indices:
        rest = list(texts[other])
        if other != index and _take(rest, char) and rest:
            texts[other], texts[index] = "".join(rest), char
            return


def actual_texts(run: GlyphRun, texts: list[str], mapped: list[bool]) -> list[str | None]:
    """For each glyph, the ActualText of its unit when the unit needs one. ``mapped[i]``
    tells whether the document's map gives glyph i the text ``texts[i]`` (not when the
    glyph stands for other text elsewhere in the document)."""
    if all(mapped) and one_glyph_per_character(run) and not run.rtl:
        return [None] * len(run.glyphs)
    actual: list[str | None] = [None] * len(run.glyphs)
    for (start, stop), indices in _units(run).items():
        text = run.text[start:stop]
        read = "".join(texts[i][::-1] if run.rtl else texts[i] for i in indices)
        if (
            _raised(run, indices)
            or read != text
            or not all(texts[i] and mapped[i] for i in indices)
            or _drawn_back(run, indices)
        ):
            for index in indices:
                actual[index] = text
    return actual


def _raised(run: GlyphRun, indices: list[int]) -> bool:
    """A unit with a mark set off the baseline (a Thai tone mark over a vowel sign,
    Thaana's vowel signs): poppler reads the mark, raised with text rise, after the next
    letter, and PDFium as a line of its own."""
    return len(indices) > 1 and any(abs(run.positions[index][1]) > 1e-3 for index in indices)


def _drawn_back(run: GlyphRun, indices: list[int]) -> bool:
    """Whether a glyph of a left-to-right unit stands before the glyph it follows in
    reading order (Khmer's vowel after a subscript consonant): extractors that order
    glyphs by their place on the line would read them swapped. (Right to left, a mark
    stands to the right of its base's start as a matter of course.)"""
    places = [run.positions[index][0] for index in indices]
    return not run.rtl and any(later < earlier - 0.01 for earlier, later in itertools.pairwise(places))


def one_glyph_per_character(run: GlyphRun) -> bool:
    """Each glyph draws one character, in order (most runs of most scripts)."""
    count = len(run.text)
    if len(run.glyphs) != count:
        return False
    expected = range(count - 1, -1, -1) if run.rtl else range(count)
    return run.clusters == tuple(expected)  # compared in C: the test runs for every run of a PDF


def _units(run: GlyphRun) -> dict[tuple[int, int], list[int]]:
    """The run's units, (start, stop) in its text, each with its glyphs in reading order."""
    starts = sorted(set(run.clusters))
    unit_of: dict[int, int] = {}  # cluster start -> its unit's start
    unit: int | None = None
    for start, stop in zip(starts, starts[1:] + [len(run.text)], strict=True):
        if unit is None or not _joins(run.text[unit:start], run.text[start:stop]):
            unit = start
        unit_of[start] = unit
    return _groups(run, unit_of)


def _groups(run: GlyphRun, group_of: dict[int, int]) -> dict[tuple[int, int], list[int]]:
    """Glyphs grouped by ``group_of`` their cluster (a cluster start -> the start of
    its group), keyed by the group's (start, stop), each in reading order."""
    stops: dict[int, int] = {}
    starts = sorted(group_of)
    for start, stop in zip(starts, starts[1:] + [len(run.text)], strict=True):
        stops[group_of[start]] = stop
    order = range(len(run.glyphs) - 1, -1, -1) if run.rtl else range(len(run.glyphs))
    groups: dict[tuple[int, int], list[int]] = {}
    for index in order:
        first = group_of[run.clusters[index]]
        groups.setdefault((first, stops[first]), []).append(index)
    return groups


def _joins(before: str, cluster: str) -> bool:
    """Whether ``cluster`` belongs to the unit that ``before`` is so far."""
    if not before or not cluster:
        return False
    return _combines(cluster[0]) or before[-1] in _JOINERS or unicodedata.combining(before[-1]) == _VIRAMA


@lru_cache(maxsize=4096)
def _combines(char: str) -> bool:
    """A mark or a joiner: it belongs to the character before it."""
    return char in _JOINERS or unicodedata.category(char).startswith("M")


def _take(rest: list[str], char: str) -> bool:
    """Take ``char`` out of ``rest``, splitting a character of ``rest`` into its
    canonical decomposition when ``char`` is part of it, else its compatibility one
    (Thai's ำ is drawn as its nikhahit and its sara aa); whether it was there."""
    if char in rest:
        rest.remove(char)
        return True
    for form in ("NFD", "NFKD"):
        for position, other in enumerate(rest):
            parts = unicodedata.normalize(form, other)
            if len(parts) > 1 and char in parts:
                rest[position : position + 1] = list(parts.replace(char, "", 1))
                return True
    return False
