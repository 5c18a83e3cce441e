"""Text layout shared by every layer kind that shows text.

``typeset`` turns a string and a style into lines of measured pieces:

1. itemise: each grapheme cluster goes to the first font that has it (the requested
   face, then the fallback chain; emoji sequences to the colour emoji font), and
   neutral characters (spaces, punctuation) stay in the font of the run around them;
2. break into words (spaces, and between CJK ideographs) and wrap greedily, breaking a
   word that is wider than the line by clusters;
3. cut to the line limit, ending the last kept line with an ellipsis.

``place`` turns lines into Scene items: pieces of one font and direction merge into
runs, runs are put in visual order (bidi levels, rule L2), and lines are aligned.
Shaping inside a run (Arabic joining, ligatures, kerning) is done by HarfBuzz through
Pillow's Raqm layout, both when measuring here and when painting.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from typing import Literal

import regex
from attrs import evolve, frozen
from PIL import Image as PILImage
from PIL import ImageDraw

from templatekit.layout.fonts import EMOJI_SIZE, Coverage, FontBook, coverage, pil_font
from templatekit.layout.scene import FontFile, Image, Item, TextRun
from templatekit.model.values import Color

ELLIPSIS = "\u2026"
_EPSILON = 0.01
_CLUSTER = regex.compile(r"\X")
_PIECE = regex.compile(r"\s+|[\p{Han}\p{Hiragana}\p{Katakana}]|[^\s\p{Han}\p{Hiragana}\p{Katakana}]+")
_EMOJI_JOINERS = ("\ufe0f", "\u200d", "\u20e3")

Align = Literal["left", "center", "right", "justify"]
VAlign = Literal["top", "middle", "bottom"]
Transform = Literal["none", "uppercase", "lowercase"]


@frozen
class TextStyle:
    family: str = "Inter"
    weight: int = 400
    italic: bool = False
    size: float = 16.0
    color: Color = Color(0, 0, 0)
    line_height: float = 1.2
    letter_spacing: float = 0.0
    transform: Transform = "none"


@frozen
class Piece:
    """A unit of text in one font, in logical order: a word part, a space, an emoji."""

    text: str
    file: FontFile
    width: float
    rtl: bool | None  # None: no strong direction (digits, punctuation, spaces)
    space: bool = False
    emoji: bool = False


@frozen
class LineBox:
    pieces: tuple[Piece, ...]
    rtl_paragraph: bool
    last_in_paragraph: bool

    @property
    def width(self) -> float:
        return sum(p.width for p in self.pieces)


@frozen
class TextBlock:
    lines: tuple[LineBox, ...]
    style: TextStyle
    ascent: float  # px above the baseline, of the primary face
    descent: float  # px below the baseline
    truncated: bool  # lines or characters were cut to fit
    broke_words: bool  # a word wider than the line was broken

    @property
    def line_height(self) -> float:
        return self.style.size * self.style.line_height

    @property
    def height(self) -> float:
        return len(self.lines) * self.line_height

    @property
    def first_baseline(self) -> float:
        """Distance from the top of the block to the baseline of its first line."""
        return (self.line_height - self.ascent - self.descent) / 2 + self.ascent

    @property
    def width(self) -> float:
        return max((line.width for line in self.lines), default=0.0)

    @property
    def text(self) -> list[str]:
        """The text of each line, in logical order (for tests and debugging)."""
        return ["".join(p.text for p in line.pieces) for line in self.lines]


# ------------------------------------------------------------------ measuring


@lru_cache(maxsize=65536)
def measure(text: str, file: FontFile, size: float, rtl: bool | None) -> float:
    """The advance width of ``text`` shaped in one font, in px."""
    if file.color_bitmap:
        return pil_font(file, EMOJI_SIZE).getlength(text) * size / EMOJI_SIZE
    direction = None if rtl is None else ("rtl" if rtl else "ltr")
    return pil_font(file, size).getlength(text, direction=direction)


@lru_cache(maxsize=64)
def vertical_metrics(file: FontFile) -> tuple[float, float]:
    """(ascender, descender) as fractions of the em, as FreeType reads them."""
    ascent, descent = pil_font(file, 1000).getmetrics()
    return ascent / 1000, descent / 1000


@lru_cache(maxsize=512)
def emoji_bitmap(file: FontFile, text: str) -> tuple[PILImage.Image, float, float]:
    """An emoji sequence drawn from the colour font at its native size, cropped;
    with the offset of its top-left corner from the pen position on the baseline."""
    font = pil_font(file, EMOJI_SIZE)
    left, top, right, bottom = font.getbbox(text, anchor="ls")
    image = PILImage.new("RGBA", (max(1, int(right - left)), max(1, int(bottom - top))))
    ImageDraw.Draw(image).text((-left, -top), text, font=font, anchor="ls", embedded_color=True)
    return image, left, top


# ------------------------------------------------------------------ itemising


def _direction(text: str) -> bool | None:
    for char in text:
        kind = unicodedata.bidirectional(char)
        if kind in ("R", "AL"):
            return True
        if kind == "L":
            return False
    return None


def _is_neutral(char: str) -> bool:
    return unicodedata.category(char)[0] in "ZPNSC" or unicodedata.category(char) == "Mn"


def _is_emoji(cluster: str, emoji: Coverage, primary: Coverage) -> bool:
    code = ord(cluster[0])
    if code not in emoji or "\ufe0e" in cluster:
        return False
    if len(cluster) > 1 and any(j in cluster for j in _EMOJI_JOINERS):
        return True
    if 0x1F1E6 <= code <= 0x1F1FF or 0x1F3FB <= code <= 0x1F3FF:
        return True
    return code > 0x7F and code not in primary


def itemize(
    paragraph: str, primary: FontFile, book: FontBook, weight: int, italic: bool
) -> list[tuple[str, FontFile, bool]]:
    """Split a paragraph into (text, font, is_emoji) segments by font coverage."""
    chain = (primary, *book.fallbacks(weight, italic))
    emoji_file = book.emoji
    emoji_cov, primary_cov = coverage(emoji_file), coverage(primary)
    segments: list[tuple[str, FontFile, bool]] = []
    for cluster in _CLUSTER.findall(paragraph):
        if _is_emoji(cluster, emoji_cov, primary_cov):
            segments.append((cluster, emoji_file, True))  # one segment per emoji
            continue
        code = ord(cluster[0])
        current = segments[-1][1] if segments and not segments[-1][2] else None
        if current is not None and _is_neutral(cluster[0]) and code in coverage(current):
            file = current
        else:
            file = next((f for f in chain if code in coverage(f)), primary)
        if segments and segments[-1][1] == file and not segments[-1][2]:
            segments[-1] = (segments[-1][0] + cluster, file, False)
        else:
            segments.append((cluster, file, False))
    return segments


def _pieces(paragraph: str, style: TextStyle, primary: FontFile, book: FontBook) -> list[Piece]:
    pieces: list[Piece] = []
    size, spacing = style.size, style.letter_spacing
    for text, file, is_emoji in itemize(paragraph, primary, book, style.weight, style.italic):
        if is_emoji:
            pieces.append(Piece(text, file, measure(text, file, size, None) + spacing, None, emoji=True))
            continue
        for part in _PIECE.findall(text):
            rtl = _direction(part)
            space = part.isspace()
            if spacing and not rtl and not space:
                for cluster in _CLUSTER.findall(part):
                    pieces.append(Piece(cluster, file, measure(cluster, file, size, rtl) + spacing, rtl))
            else:
                width = measure(part, file, size, rtl) + (spacing * len(part) if space else 0)
                pieces.append(Piece(part, file, width, rtl, space=space))
    return pieces


# ------------------------------------------------------------------ wrapping


def _words(pieces: list[Piece]) -> Iterator[list[Piece]]:
    """Groups that must stay on one line: a word with the spaces after it."""
    word: list[Piece] = []
    for piece in pieces:
        if word and not piece.space and (word[-1].space or _breakable(word[-1]) or _breakable(piece)):
            yield word
            word = []
        word.append(piece)
    if word:
        yield word


def _breakable(piece: Piece) -> bool:
    """CJK ideographs allow a break on either side."""
    return len(piece.text) == 1 and bool(regex.match(r"[\p{Han}\p{Hiragana}\p{Katakana}]", piece.text))


def _split_wide(word: list[Piece], max_width: float, size: float, spacing: float) -> list[list[Piece]]:
    """Break a word wider than the line at cluster boundaries."""
    lines: list[list[Piece]] = [[]]
    width = 0.0
    for piece in word:
        clusters = [piece.text] if piece.emoji else _CLUSTER.findall(piece.text)
        for cluster in clusters:
            extra = spacing if not piece.rtl else 0.0
            w = measure(cluster, piece.file, size, piece.rtl) + extra
            if lines[-1] and width + w > max_width + _EPSILON and not cluster.isspace():
                lines.append([])
                width = 0.0
            last = lines[-1][-1] if lines[-1] else None
            if last is not None and last.file == piece.file and not piece.emoji and last.rtl == piece.rtl:
                lines[-1][-1] = evolve(last, text=last.text + cluster, width=last.width + w)
            else:
                lines[-1].append(evolve(piece, text=cluster, width=w))
            width += w
    return lines


def _wrap(pieces: list[Piece], max_width: float, size: float, spacing: float) -> tuple[list[list[Piece]], bool]:
    lines: list[list[Piece]] = []
    current: list[Piece] = []
    width = 0.0
    broke = False
    for word in _words(pieces):
        ink = sum(p.width for p in word if not p.space)
        if current and width + ink > max_width + _EPSILON:
            lines.append(current)
            current, width = [], 0.0
        if not current and ink > max_width + _EPSILON:
            parts = _split_wide(word, max_width, size, spacing)
            broke = True
            lines.extend(parts[:-1])
            current = parts[-1]
            width = sum(p.width for p in current)
            continue
        current.extend(word)
        width += sum(p.width for p in word)
    lines.append(current)
    return lines, broke


def _trim(line: list[Piece]) -> tuple[Piece, ...]:
    end = len(line)
    while end and line[end - 1].space:
        end -= 1
    return tuple(line[:end])


# ------------------------------------------------------------------ typesetting


def apply_transform(text: str, transform: Transform) -> str:
    if transform == "uppercase":
        return text.upper()
    if transform == "lowercase":
        return text.lower()
    return text


def typeset(
    text: str,
    style: TextStyle,
    book: FontBook,
    max_width: float,
    *,
    max_lines: int | None = None,
    max_height: float | None = None,
    ellipsis: bool = True,
) -> TextBlock:
    """Lay out ``text`` in lines no wider than ``max_width``.

    Lines beyond ``max_lines``, or beyond what fits in ``max_height`` (at least one
    line is always kept), are cut; the last kept line then ends with an ellipsis.
    """
    primary = book.match(style.family, style.weight, style.italic).file
    lines: list[LineBox] = []
    broke = False
    for paragraph in apply_transform(text, style.transform).replace("\r\n", "\n").split("\n"):
        pieces = _pieces(paragraph, style, primary, book)
        wrapped, broke_here = _wrap(pieces, max_width, style.size, style.letter_spacing)
        broke |= broke_here
        rtl = bool(_direction(paragraph))
        for index, line in enumerate(wrapped):
            lines.append(LineBox(_trim(line), rtl, index == len(wrapped) - 1))
    limit = len(lines)
    if max_lines is not None:
        limit = min(limit, max_lines)
    if max_height is not None:
        limit = min(limit, max(1, math.floor(max_height / (style.size * style.line_height) + _EPSILON)))
    truncated = limit < len(lines)
    if truncated:
        lines = lines[:limit]
        if ellipsis:
            lines[-1] = _with_ellipsis(lines[-1], max_width, style, primary)
    ascent, descent = vertical_metrics(primary)
    return TextBlock(tuple(lines), style, ascent * style.size, descent * style.size, truncated, broke)


def _with_ellipsis(line: LineBox, max_width: float, style: TextStyle, primary: FontFile) -> LineBox:
    pieces = list(line.pieces)
    tail_file = next((p.file for p in reversed(pieces) if not p.emoji), primary)
    if ord(ELLIPSIS) not in coverage(tail_file):
        tail_file = primary
    mark = Piece(ELLIPSIS, tail_file, measure(ELLIPSIS, tail_file, style.size, None), None)
    while pieces and sum(p.width for p in pieces) + mark.width > max_width + _EPSILON:
        last = pieces.pop()
        clusters = _CLUSTER.findall(last.text)
        if len(clusters) > 1 and not last.emoji:
            shorter = "".join(clusters[:-1])
            pieces.append(evolve(last, text=shorter, width=measure(shorter, last.file, style.size, last.rtl)))
    while pieces and pieces[-1].space:
        pieces.pop()
    return evolve(line, pieces=(*pieces, mark), last_in_paragraph=True)


def fit(
    text: str,
    style: TextStyle,
    book: FontBook,
    width: float,
    height: float,
    *,
    min_size: float,
    max_lines: int | None = None,
    ellipsis: bool = True,
) -> TextBlock:
    """The largest size in [min_size, style.size] at which the text fits the box
    without cutting or breaking words (searched to a quarter pixel)."""

    def attempt(size: float) -> TextBlock:
        return typeset(
            text, evolve(style, size=size), book, width, max_lines=max_lines, max_height=height, ellipsis=ellipsis
        )

    def fits(block: TextBlock) -> bool:
        return not block.truncated and not block.broke_words and block.height <= height + _EPSILON

    best = attempt(style.size)
    if fits(best):
        return best
    low, high = min_size, style.size
    best = attempt(low)
    if not fits(best):
        return best
    while high - low > 0.25:
        middle = (low + high) / 2
        block = attempt(middle)
        if fits(block):
            low, best = middle, block
        else:
            high = middle
    return best


# ------------------------------------------------------------------ placing


def _kind(piece: Piece) -> str:
    """'R', 'L', 'EN' (a number) or 'N' (neutral), by the first strong character."""
    for char in piece.text:
        kind = unicodedata.bidirectional(char)
        if kind in ("R", "AL"):
            return "R"
        if kind == "L":
            return "L"
        if kind in ("EN", "AN"):
            return "EN"
    return "N"


def _levels(pieces: tuple[Piece, ...], base_rtl: bool) -> list[tuple[bool, int]]:
    """(draw right-to-left, bidi level) for each piece; a simplified UAX #9 that works
    on whole pieces: numbers after Latin are Latin (W7), numbers after RTL text keep
    left-to-right order inside it, and neutrals take the direction of their
    neighbours when both agree, else the paragraph's (N1, N2)."""
    ltr_level = 2 if base_rtl else 0
    kinds: list[str] = []
    previous = "R" if base_rtl else "L"
    for piece in pieces:
        kind = _kind(piece)
        if kind == "EN" and previous == "L":
            kind = "L"
        if kind in ("R", "L"):
            previous = kind
        kinds.append(kind)
    strong = ["R" if k == "EN" else k for k in kinds]  # numbers act as R for neutrals
    result = []
    for index, kind in enumerate(kinds):
        if kind == "R":
            result.append((True, 1))
        elif kind == "L":
            result.append((False, ltr_level))
        elif kind == "EN":
            result.append((False, 2))
        else:
            base = "R" if base_rtl else "L"
            before = next((k for k in reversed(strong[:index]) if k != "N"), base)
            after = next((k for k in strong[index + 1 :] if k != "N"), base)
            rtl = (before if before == after else base) == "R"
            result.append((rtl, 1 if rtl else ltr_level))
    return result


def _runs(line: LineBox, style: TextStyle, split_spaces: bool) -> list[tuple[Piece, int]]:
    """Merge pieces into runs (logical order) and give each its bidi level."""
    runs: list[tuple[Piece, int]] = []
    for piece, (rtl, level) in zip(line.pieces, _levels(line.pieces, line.rtl_paragraph), strict=True):
        piece = evolve(piece, rtl=rtl)
        if runs and _mergeable(runs[-1][0], piece, style, split_spaces) and runs[-1][1] == level:
            previous = runs[-1][0]
            text = previous.text + piece.text
            width = measure(text, piece.file, style.size, rtl)
            runs[-1] = (evolve(previous, text=text, width=width, space=previous.space and piece.space), level)
        else:
            runs.append((piece, level))
    return runs


def _mergeable(a: Piece, b: Piece, style: TextStyle, split_spaces: bool) -> bool:
    if a.emoji or b.emoji or a.file != b.file or a.rtl != b.rtl:
        return False
    if split_spaces and (a.space or b.space):
        return False
    return not style.letter_spacing or bool(a.rtl)


def _visual_order(runs: list[tuple[Piece, int]]) -> list[Piece]:
    """Unicode bidi rule L2: reverse runs at each level from the highest down to 1."""
    order = list(runs)
    top = max((level for _, level in order), default=0)
    for level in range(top, 0, -1):
        index = 0
        while index < len(order):
            if order[index][1] >= level:
                end = index
                while end < len(order) and order[end][1] >= level:
                    end += 1
                order[index:end] = reversed(order[index:end])
                index = end
            else:
                index += 1
    return [piece for piece, _ in order]


def place(
    block: TextBlock,
    x: float,
    y: float,
    width: float,
    height: float,
    align: Align = "left",
    vertical_align: VAlign = "top",
) -> list[Item]:
    """Scene items for a text block aligned in a box."""
    style = block.style
    line_height = block.line_height
    top = y + {"top": 0.0, "middle": (height - block.height) / 2, "bottom": height - block.height}[vertical_align]
    items: list[Item] = []
    for number, line in enumerate(block.lines):
        justify = align == "justify" and not line.last_in_paragraph
        pieces = _visual_order(_runs(line, style, split_spaces=justify))
        line_width = sum(p.width for p in pieces)
        gaps = sum(1 for p in pieces if p.space)
        extra = (width - line_width) / gaps if justify and gaps else 0.0
        if align in ("left", "justify"):
            pen = x
        else:
            pen = x + (width - line_width) / (2 if align == "center" else 1)
        baseline = top + number * line_height + block.first_baseline
        for piece in pieces:
            if piece.emoji:
                items.append(_emoji_item(piece, pen, baseline, style.size))
            elif not piece.space:
                items.append(
                    TextRun(
                        pen, baseline, piece.text, piece.file, style.size, style.color, piece.width, bool(piece.rtl)
                    )
                )
            pen += piece.width + (extra if piece.space else 0.0)
    return items


def _emoji_item(piece: Piece, pen: float, baseline: float, size: float) -> Image:
    bitmap, left, top = emoji_bitmap(piece.file, piece.text)
    scale = size / EMOJI_SIZE
    return Image(
        pen + left * scale,
        baseline + top * scale,
        bitmap.width * scale,
        bitmap.height * scale,
        bitmap,
        key=f"emoji:{piece.text}",
    )
