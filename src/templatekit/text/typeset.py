"""Text layout shared by every layer kind that shows text: text and a style in, lines of
shaped glyphs out, then placed in a box as Scene glyph runs.

``typeset`` works paragraph by paragraph:

1. itemise: each grapheme cluster goes to the first font that has it (the requested
   face, the fallback chain, the system's fonts; colour emoji to the emoji font), and
   characters are grouped into runs of one font, script and bidi level (UAX #9);
2. shape each run with HarfBuzz, in the context of its paragraph;
3. break into lines at the opportunities of UAX #14 (ICU: dictionaries for Thai, Lao,
   Khmer and Myanmar, the CJK rules for what may start or end a line), filling each
   line greedily; a word or number wider than the line is broken between grapheme
   clusters only when nothing else fits, and said so in ``broke_words``;
4. cut to the line limit, ending the last kept line with an ellipsis.

``place`` orders each line's runs visually (rule L2), aligns and justifies the line,
and gives each run as a ``GlyphRun``: the glyphs, their positions and the text they
draw. Painters draw those glyphs and never shape. A run carries its own style, so a
paragraph may mix styles (its lines are measured with its first style's metrics).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cached_property
from itertools import accumulate
from typing import Literal

from attrs import evolve, frozen

from templatekit.cache import BoundedCache
from templatekit.font_file import hb_font
from templatekit.model.values import Color
from templatekit.scene import FontFile, GlyphRun, Item, Outline, Rect
from templatekit.text import unicode
from templatekit.text.fonts import FontBook, system_font_for
from templatekit.text.shaping import NO_LIGATURES, shape

ELLIPSIS = "\u2026"
SOFT_HYPHEN = "\u00ad"
#: How much wider than its room a line may be and still fit: browsers measure in 1/64 px
#: and cut a width's remainder ("lo" at 24 px, 20.011 px, fits a 20 px box in Chromium).
_EPSILON = 1 / 64
#: Laid-out texts, by font book, text and options; kept from their second use.
_LAYOUTS: BoundedCache[tuple[object, ...], TextBlock] = BoundedCache(4096, name="text.layouts", second_use=True)

Align = Literal["left", "center", "right", "justify"]
VAlign = Literal["top", "middle", "bottom"]
Transform = Literal["none", "uppercase", "lowercase"]
JUSTIFIABLE = frozenset(" \u00a0\u1361\u3000")  # word separators that justification widens


@frozen(cache_hash=True)  # a key of the typesetting caches, hashed at every lookup
class TextStyle:
    family: str = "Inter"
    weight: int = 400
    italic: bool = False
    size: float = 16.0
    color: Color = Color(0, 0, 0)
    line_height: float = 1.2
    letter_spacing: float = 0.0
    transform: Transform = "none"
    underline: bool = False
    strike: bool = False
    highlight: Color | None = None  # a background behind the text
    outline: Outline | None = None


#: Text in styles of its own, in order (rich text); a plain text is one such span.
StyledText = tuple[tuple[str, TextStyle], ...]


@frozen
class LineRun:
    """Glyphs of one font, style and direction on a line, in visual order, with the
    characters they draw (``clusters`` index into ``text``). Lengths in px."""

    text: str
    style: TextStyle
    file: FontFile
    level: int
    glyphs: tuple[int, ...]
    clusters: tuple[int, ...]
    advances: tuple[float, ...]
    x_offsets: tuple[float, ...]
    y_offsets: tuple[float, ...]  # down is positive
    script: str = ""
    offset: int = 0  # where ``text`` starts in the whole text typeset

    @property
    def rtl(self) -> bool:
        return self.level % 2 == 1

    @property
    def width(self) -> float:
        return sum(self.advances)


@frozen
class LineBox:
    runs: tuple[LineRun, ...]  # in logical order
    rtl_paragraph: bool
    last_in_paragraph: bool

    @property
    def width(self) -> float:
        return sum(run.width for run in self.runs)

    @property
    def text(self) -> str:
        return "".join(run.text for run in self.runs)


@frozen
class LineMetrics:
    """A line's box: from its top to its baseline, and from its baseline to its bottom.
    Each style on the line gets its line height, split around its font's ascent and
    descent with equal leading above and below (CSS's inline boxes); the line is as
    tall as all of them need."""

    above: float
    below: float

    @property
    def height(self) -> float:
        return self.above + self.below


@frozen
class TextBlock:
    lines: tuple[LineBox, ...]
    style: TextStyle
    ascent: float  # px above the baseline, of the primary face
    descent: float  # px below the baseline
    truncated: bool  # lines or characters were cut to fit
    broke_words: bool  # a word or number wider than the line shows broken across lines
    missing: tuple[str, ...] = ()  # characters no font has (drawn as boxes)
    hidden: str = ""  # the text that was cut, for the warning that says so
    metrics: tuple[LineMetrics, ...] = ()  # one per line
    #: the widest piece between two line-break opportunities: the narrowest the text
    #: is set in without breaking a word (CSS min-content)
    widest_word: float = 0.0

    @property
    def line_height(self) -> float:
        """The height of a line in the block's own style."""
        return self.style.size * self.style.line_height

    def approx_bytes(self) -> int:
        """Roughly what the block holds in memory: a laid-out character weighs about 200."""
        return 256 + 200 * sum(len(line.text) for line in self.lines)

    @property
    def height(self) -> float:
        return sum(line.height for line in self.metrics)

    @property
    def first_baseline(self) -> float:
        """Distance from the top of the block to the baseline of its first line."""
        if self.metrics:
            return self.metrics[0].above
        return (self.line_height - self.ascent - self.descent) / 2 + self.ascent

    @property
    def width(self) -> float:
        return max((line.width for line in self.lines), default=0.0)

    @property
    def text(self) -> list[str]:
        """The text of each line, in logical order (for tests and debugging)."""
        return [line.text for line in self.lines]


# ------------------------------------------------------------------ itemising


@frozen
class _Run:
    start: int
    end: int
    file: FontFile
    level: int
    script: str
    style: TextStyle


Span = tuple[str, TextStyle]  # text in one style


class _Paragraph:
    """One paragraph itemised and shaped: its runs, and the advance each character
    adds to a line (a cluster's glyphs count at its first character). A paragraph is
    spans of text, each in its own style; runs never cross from one span to another,
    but shaping sees the whole paragraph (Arabic joins across a change of colour)."""

    def __init__(
        self,
        spans: Sequence[Span],
        book: FontBook,
        rtl: bool | None,
        language: str,
        missing: list[str],
        offset: int = 0,
    ) -> None:
        text = "".join(part for part, _ in spans)
        self.text = text
        self.book = book
        self.offset = offset
        self.style = spans[0][1]  # the paragraph's own: its ellipsis, its direction's default
        self.language = language
        base, levels = unicode.bidi_levels(text, rtl)
        self.rtl = base == 1
        self.levels = levels
        styles = [style for part, style in spans for _ in part]
        self.styles = styles
        fonts, self.cluster_ends = _fonts(text, styles, book, missing)
        self.runs = _runs(text, fonts, levels, unicode.scripts(text), styles)
        self.whole = {run: self.shaped(run, run.start, run.end) for run in self.runs}
        advance = [0.0] * len(text)
        for run, line_run in self.whole.items():
            for cluster, width in zip(line_run.clusters, line_run.advances, strict=True):
                advance[run.start + cluster] += width
        self.prefix = [0.0, *accumulate(advance)]

    def shaped(self, run: _Run, start: int, end: int, hyphen: bool = False) -> LineRun:
        """The run's characters ``start:end`` shaped, in px at its style's size, with
        letter spacing after each grapheme cluster (none in cursive scripts, and no
        optional ligatures when spaced); ``hyphen``: the soft hyphen that ends them drawn
        as a hyphen, since the line breaks there."""
        spacing = run.style.letter_spacing if run.script not in unicode.CURSIVE else 0.0
        features = NO_LIGATURES if spacing else ()
        text = self.text[: end - 1] + _hyphen(run.file) + self.text[end:] if hyphen else self.text
        shaped = shape(text, start, end, run.file, run.level % 2 == 1, run.script, self.language, features)
        scale = run.style.size / shaped.upem
        advances = [advance * scale for advance in shaped.advances]
        if spacing:
            spaced = set()
            for index, cluster in enumerate(shaped.clusters):
                end_of_grapheme = self.cluster_ends.get(cluster)
                if end_of_grapheme is not None and end_of_grapheme not in spaced:
                    spaced.add(end_of_grapheme)
                    advances[index] += spacing
        space = _layer_space(run.file, run.style, self.book)
        if space is not None:
            for index, cluster in enumerate(shaped.clusters):
                if text[cluster] == " ":
                    advances[index] = space + run.style.letter_spacing
        return LineRun(
            text=text[start:end],
            style=run.style,
            file=run.file,
            level=run.level,
            glyphs=shaped.glyphs,
            clusters=tuple(cluster - start for cluster in shaped.clusters),
            advances=tuple(advances),
            x_offsets=tuple(offset * scale for offset in shaped.x_offsets),
            y_offsets=tuple(-offset * scale for offset in shaped.y_offsets),
            script=run.script,
            offset=self.offset + start,
        )

    @cached_property
    def breaks(self) -> list[int]:
        """Where a line may end, in order (the text's length last; none when empty)."""
        return unicode.line_breaks(self.text, self.language) if self.text else []

    def width(self, start: int, end: int) -> float:
        """Advance of ``start:end`` as the end of a line: trailing spaces hang, and a
        soft hyphen there shows as a hyphen."""
        while end > start and self.text[end - 1].isspace():
            end -= 1
        width = self.prefix[end] - self.prefix[start]
        if self._hyphenated(start, end):
            run = next(run for run in self.runs if run.start < end <= run.end)
            width += self.shaped(run, end - 1, end, hyphen=True).width
        return width

    def line(self, start: int, end: int, last: bool) -> LineBox:
        """The runs of ``start:end`` (trailing spaces left out), cut where the line ends,
        with a hyphen where it ends at a soft hyphen."""
        while end > start and self.text[end - 1].isspace():
            end -= 1
        hyphenated = self._hyphenated(start, end)
        runs = tuple(
            self.whole[run]
            if start <= run.start and run.end <= end and not (hyphenated and run.end == end)
            else self.shaped(run, max(run.start, start), min(run.end, end), hyphenated and run.end >= end)
            for run in self.runs
            if run.start < end and run.end > start
        )
        return LineBox(runs, self.rtl, last)

    def _hyphenated(self, start: int, end: int) -> bool:
        """Whether a line ``start:end`` ends at a soft hyphen, inside the paragraph."""
        return start < end < len(self.text) and self.text[end - 1] == SOFT_HYPHEN


def _fonts(
    text: str, styles: list[TextStyle], book: FontBook, missing: list[str]
) -> tuple[list[FontFile], dict[int, int]]:
    """The font of each character, chosen per grapheme cluster in the style of its
    first character, and for the first character of each cluster the index of its
    cluster's last character. Spaces and punctuation stay in the font of the text
    before them (a comma in Chinese text is the CJK font's), in their own style: after
    a bold word, the comma outside it is in the regular face."""
    emoji = book.emoji
    fonts: list[FontFile] = []
    ends: dict[int, int] = {}
    chosen: dict[tuple[str, TextStyle], FontFile] = {}

    def font_for(cluster: str, style: TextStyle) -> FontFile:
        found = chosen.get((cluster, style))
        if found is None:
            found = chosen[(cluster, style)] = _font(cluster, style, book, missing)
        return found

    def kept(cluster: str, style: TextStyle) -> FontFile | None:
        """The font of the text before a space or punctuation, if it has the character."""
        if before is None or _emoji(cluster, emoji):
            return None
        font = font_for(before, style)
        return font if font != emoji and hb_font(font).covers(cluster) else None

    before: str | None = None  # the last cluster that is not a space or punctuation
    position = 0
    for cluster in unicode.graphemes(text):
        style = styles[position]
        ends[position] = position + len(cluster) - 1
        position += len(cluster)
        if _neutral(cluster):
            font = kept(cluster, style) or font_for(cluster, style)
        else:
            font, before = font_for(cluster, style), cluster
        fonts.extend([font] * len(cluster))
    return fonts, ends


def _layer_space(file: FontFile, style: TextStyle, book: FontBook) -> float | None:
    """The advance of a space (with the letter spacing) in a run of another font than the
    layer's, when the layer's font has a space: CSS takes the space from the first font
    of the list that has it, so that a space between Arabic words is Inter's, and its
    width decides where lines break; None in a run of the layer's own font. (The space
    stays in the run's font, whose run it does not split: it draws nothing.)"""
    own = _primary(style, book)
    primary = hb_font(own)
    if file == own or not primary.covers(" "):
        return None
    glyph = primary.font.get_nominal_glyph(ord(" "))
    return primary.font.get_glyph_h_advance(glyph) * style.size / primary.upem


def _hyphen(file: FontFile) -> str:
    """The hyphen a soft hyphen shows as at the end of a line: U+2010 if the font has
    it, as browsers draw it, else the hyphen-minus."""
    return "\u2010" if hb_font(file).covers("\u2010") else "-"


def _font(cluster: str, style: TextStyle, book: FontBook, missing: list[str]) -> FontFile:
    """The face of ``style`` for the cluster, or the first fallback that has it."""
    if _emoji(cluster, book.emoji):
        return book.emoji
    primary = _primary(style, book)
    if hb_font(primary).covers(cluster):
        return primary
    chain = book.fallbacks(style.weight, style.italic)
    own = book.for_script(unicode.script_of(cluster[0]), style.weight, style.italic)
    candidates = chain if own is None else (own, *chain)
    return next((f for f in candidates if hb_font(f).covers(cluster)), None) or _last_resort(cluster, primary, missing)


def _primary(style: TextStyle, book: FontBook) -> FontFile:
    """The layer's own font: its family's face nearest its weight and style."""
    return book.match(style.family, style.weight, style.italic).file


def _emoji(cluster: str, emoji: FontFile) -> bool:
    return unicode.is_emoji(cluster) and hb_font(emoji).covers(cluster[0])


def _neutral(cluster: str) -> bool:
    return unicode.script_of(cluster[0]) == unicode.COMMON and not cluster[0].isdigit()


def _last_resort(cluster: str, primary: FontFile, missing: list[str]) -> FontFile:
    """A system font with the cluster's character, else the primary face (its box)."""
    found = system_font_for(cluster[0])
    if found is not None:
        return found
    if cluster not in missing:
        missing.append(cluster)
    return primary


def _runs(
    text: str, fonts: list[FontFile], levels: list[int], scripts: list[str], styles: list[TextStyle]
) -> list[_Run]:
    runs: list[_Run] = []
    start = 0
    for index in range(1, len(text) + 1):
        if index == len(text) or (fonts[index], levels[index], scripts[index], styles[index]) != (
            fonts[start],
            levels[start],
            scripts[start],
            styles[start],
        ):
            runs.append(_Run(start, index, fonts[start], levels[start], scripts[start], styles[start]))
            start = index
    return runs


# ------------------------------------------------------------------ breaking into lines


def _break(paragraph: _Paragraph, max_width: float) -> tuple[list[tuple[int, int]], set[int]]:
    """Line ranges of the paragraph, filled greedily, and the lines that end inside a
    word (one too wide for a line of its own)."""
    text = paragraph.text
    if not text:
        return [(0, 0)], set()
    opportunities = paragraph.breaks
    lines: list[tuple[int, int]] = []
    inside: set[int] = set()
    start, fitting = 0, None
    index = 0
    while index < len(opportunities):
        stop = opportunities[index]
        if paragraph.width(start, stop) <= max_width + _EPSILON:
            fitting = stop
            index += 1
            continue
        if fitting is not None:
            lines.append((start, fitting))
            start, fitting = fitting, None
            continue
        # Nothing fits: the word is broken between clusters, and its last piece (one
        # cluster at least) begins the next line.
        before = len(lines)
        start = _split_wide(paragraph, start, stop, max_width, lines)
        inside.update(range(before, len(lines)))
        fitting = stop
        index += 1
    lines.append((start, len(text)))
    return lines, inside


def _widest_word(paragraph: _Paragraph) -> float:
    """The widest piece of the paragraph between two line-break opportunities."""
    widest, start = 0.0, 0
    for stop in paragraph.breaks:
        widest = max(widest, paragraph.width(start, stop))
        start = stop
    return widest


def _split_wide(paragraph: _Paragraph, start: int, stop: int, max_width: float, lines: list[tuple[int, int]]) -> int:
    """Lines of whole grapheme clusters of ``start:stop``, at least one cluster each;
    where the rest begins."""
    position, line_start = start, start
    for cluster in unicode.graphemes(paragraph.text[start:stop]):
        end = position + len(cluster)
        wider = paragraph.width(line_start, end) > max_width + _EPSILON
        if position > line_start and wider and not cluster.isspace():  # a space hangs: it ends a line
            lines.append((line_start, position))
            line_start = position
        position = end
    return line_start


# ------------------------------------------------------------------ typesetting


def apply_transform(text: str, transform: Transform) -> str:
    if transform == "uppercase":
        return text.upper()
    if transform == "lowercase":
        return text.lower()
    return text


def typeset(
    text: str | StyledText,
    style: TextStyle,
    book: FontBook,
    max_width: float,
    *,
    max_lines: int | None = None,
    max_height: float | None = None,
    ellipsis: bool = True,
    language: str = "",
) -> TextBlock:
    """Lay out ``text`` in lines no wider than ``max_width``: a plain text in ``style``,
    or rich text, spans each in a style of its own (``style`` is then the block's: its
    ellipsis, and the height of an empty line).

    Lines beyond ``max_lines``, or beyond what fits in ``max_height`` (at least one
    line is always kept), are cut; the last kept line then ends with an ellipsis.
    Layouts are kept by font book, as they depend on nothing else: charts and tables set
    the same short labels on every render.
    """
    key = (book.key, text, style, max_width, max_lines, max_height, ellipsis, language)
    block: TextBlock | None = _LAYOUTS.get(key)
    if block is None and max_height is not None:  # a block that fits its height is the same without the limit
        unlimited: TextBlock | None = _LAYOUTS.get((*key[:5], None, *key[6:]))
        if unlimited is not None and not unlimited.truncated and unlimited.height <= max_height + _EPSILON:
            return unlimited
    if block is None:
        block = _typeset(text, style, book, max_width, max_lines, max_height, ellipsis, language)
        _LAYOUTS.put(key, block, block.approx_bytes())
    return block


def _typeset(
    text: str | StyledText,
    style: TextStyle,
    book: FontBook,
    max_width: float,
    max_lines: int | None,
    max_height: float | None,
    ellipsis: bool,
    language: str,
) -> TextBlock:
    missing: list[str] = []
    paragraphs = []
    offset = 0
    for spans in _paragraph_spans(((text, style),) if isinstance(text, str) else text, style):
        paragraphs.append(_Paragraph(spans, book, None, language, missing, offset))
        offset += len(paragraphs[-1].text) + 1
    lines: list[LineBox] = []
    ranges_shown: list[tuple[int, int, int]] = []  # paragraph, start and end of each line
    inside: set[int] = set()  # lines that end inside a word
    for number, paragraph in enumerate(paragraphs):
        ranges, split = _break(paragraph, max_width)
        inside.update(len(lines) + index for index in split)
        for index, (start, end) in enumerate(ranges):
            lines.append(paragraph.line(start, end, index == len(ranges) - 1))
            ranges_shown.append((number, start, end))
    styles = [paragraphs[number].style for number, _, _ in ranges_shown]
    metrics = [_metrics(line, style, book) for line, style in zip(lines, styles, strict=True)]
    limit = len(lines)
    if max_lines is not None:
        limit = min(limit, max(1, max_lines))
    if max_height is not None:
        fitting, total = 0, 0.0
        for line in metrics:
            total += line.height
            if total > max_height + _EPSILON:
                break
            fitting += 1
        limit = min(limit, max(1, fitting))
    hidden = ""
    if limit < len(lines):
        number, start, end = ranges_shown[limit - 1]
        paragraph = paragraphs[number]
        after = [p.text for p in paragraphs[number + 1 :]]
        hidden = "\n".join([paragraph.text[end:], *after]).strip()
        lines, metrics = lines[:limit], metrics[:limit]
        if ellipsis and hidden:  # blank lines past the box hide nothing: no ellipsis for them
            lines[-1], cut = _with_ellipsis(paragraph, start, end, max_width, book)
            metrics[-1] = _metrics(lines[-1], paragraph.style, book)
            hidden = "\n".join([paragraph.text[cut:], *after]).strip()  # with what "…" took the place of
    primary = hb_font(book.match(style.family, style.weight, style.italic).file)
    return TextBlock(
        tuple(lines),
        style,
        primary.ascender * style.size,
        primary.descender * style.size,
        truncated=bool(hidden),
        broke_words=any(index + 1 < limit for index in inside),  # a break between two lines shown
        missing=tuple(missing),
        hidden=hidden,
        metrics=tuple(metrics),
        widest_word=max(_widest_word(paragraph) for paragraph in paragraphs),
    )


def _paragraph_spans(spans: StyledText, style: TextStyle) -> list[list[Span]]:
    """The spans of each paragraph (split at line feeds), transformed as their style
    says; an empty paragraph is one empty span in the style where it stands. A line
    feed that ends the text (``\n``, ``<br>``) ends its last line and starts none, as in
    CSS: text from a form or a CSV cell that ends with one sits where it would without."""
    paragraphs: list[list[Span]] = [[]]
    last = style
    for part, part_style in spans:
        text = apply_transform(part, part_style.transform).replace("\r\n", "\n").replace("\t", " ")
        for index, piece in enumerate(text.split("\n")):
            if index:
                paragraphs.append([])
            if piece:
                paragraphs[-1].append((piece, part_style))
        last = part_style
    if len(paragraphs) > 1 and not paragraphs[-1]:
        paragraphs.pop()
    return [spans or [("", last if number else style)] for number, spans in enumerate(paragraphs)]


def _metrics(line: LineBox, fallback: TextStyle, book: FontBook) -> LineMetrics:
    """The line's box, from the styles of its runs (an empty line: ``fallback``'s). A
    line height below the font's ascent less its descent puts the line's bottom above
    the baseline (``below`` negative), as CSS's line box does: lines stay ``lineHeight``
    apart however tight."""
    styles = {run.style for run in line.runs} or {fallback}
    above = below = -math.inf
    for style in styles:
        face = hb_font(book.match(style.family, style.weight, style.italic).file)
        ascent, descent = face.ascender * style.size, face.descender * style.size
        leading = (style.size * style.line_height - ascent - descent) / 2
        above, below = max(above, leading + ascent), max(below, leading + descent)
    return LineMetrics(above, below)


def _with_ellipsis(
    paragraph: _Paragraph, start: int, end: int, max_width: float, book: FontBook
) -> tuple[LineBox, int]:
    """The line ``start:end`` cut after its last grapheme cluster that leaves room for
    "…", and laid out again as its own paragraph in the same direction; and where in the
    paragraph's text the cut is. The "…" takes the style of the last character kept, and
    is measured in it: after a larger span it is larger, and must still fit the line."""
    marks: dict[TextStyle, float] = {}

    def mark_width(style: TextStyle) -> float:
        if style not in marks:
            mark = _Paragraph([(ELLIPSIS, style)], book, paragraph.rtl, paragraph.language, [])
            marks[style] = mark.width(0, 1)
        return marks[style]

    def last_style(position: int) -> TextStyle:
        kept = paragraph.text[start:position].rstrip()
        return paragraph.styles[start + len(kept) - 1] if kept else paragraph.style

    cuts = [start]
    position = start
    for cluster in unicode.graphemes(paragraph.text[start:end]):
        position += len(cluster)
        width = paragraph.width(start, position)
        if width > max_width + _EPSILON:
            break
        if width + mark_width(last_style(position)) <= max_width + _EPSILON:
            cuts.append(position)

    def shortened_at(cut: int) -> LineBox:
        kept = paragraph.text[start:cut].rstrip()
        spans: list[Span] = []
        for index, char in enumerate(kept, start):
            char_style = paragraph.styles[index]
            if spans and spans[-1][1] == char_style:
                spans[-1] = (spans[-1][0] + char, char_style)
            else:
                spans.append((char, char_style))
        mark_style = spans[-1][1] if spans else paragraph.style
        spans.append((ELLIPSIS, mark_style))
        shortened = _Paragraph(spans, book, paragraph.rtl, paragraph.language, [], paragraph.offset + start)
        return shortened.line(0, len(shortened.text), True)

    # shaped again, the letters before the cut may take other forms (Arabic's final
    # forms are wider than its medial ones): step back until the line still fits
    for cut in reversed(cuts):  # ends at ``start``: the "…" alone, whether it fits or not
        line = shortened_at(cut)
        if line.width <= max_width + _EPSILON:
            break
    return line, cut


def fit(
    text: str | StyledText,
    style: TextStyle,
    book: FontBook,
    width: float,
    height: float | None,
    *,
    min_size: float,
    max_lines: int | None = None,
    ellipsis: bool = True,
) -> TextBlock:
    """The largest size in [min_size, style.size] at which the text fits the box
    without cutting or breaking words (searched to a quarter pixel); the spans of rich
    text shrink in proportion. A ``height`` of None is any: the text is measured (and its
    blocks kept, which a box of a height that holds them then takes again)."""

    def attempt(size: float) -> TextBlock:
        factor = size / style.size
        scaled = text if isinstance(text, str) else tuple((part, evolve(s, size=s.size * factor)) for part, s in text)
        return typeset(
            scaled, evolve(style, size=size), book, width, max_lines=max_lines, max_height=height, ellipsis=ellipsis
        )

    def fits(block: TextBlock) -> bool:
        return not block.truncated and not block.broke_words and (height is None or block.height <= height + _EPSILON)

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


def visual_order(runs: Sequence[LineRun]) -> list[LineRun]:
    """Unicode bidi rule L2: reverse runs at each level from the highest down to 1."""
    order = list(runs)
    top = max((run.level for run in order), default=0)
    for level in range(top, 0, -1):
        index = 0
        while index < len(order):
            if order[index].level >= level:
                end = index
                while end < len(order) and order[end].level >= level:
                    end += 1
                order[index:end] = reversed(order[index:end])
                index = end
            else:
                index += 1
    return order


def _ideographic(char: str) -> bool:
    """Han, kana, Bopomofo and CJK punctuation: text of the block scripts, which CSS
    justifies between any two characters (CSS Text 3, section 7.3), having no spaces."""
    return (
        "\u2e80" <= char <= "\u9fff"
        or "\uf900" <= char <= "\ufaff"
        or "\uff00" <= char <= "\uffef"
        or "\U00020000" <= char <= "\U0003ffff"
    )


def _gaps(run: LineRun, after: str | None) -> list[int]:
    """Glyphs of the run that justification may widen: word separators, and the gap
    after a character of a block script, or before one (``after``: the first character
    of the next run on the line, None at its end), as browsers justify Chinese and
    Japanese."""
    gaps = []
    for index, cluster in enumerate(run.clusters):
        char = run.text[cluster]
        if char in JUSTIFIABLE:
            gaps.append(index)
            continue
        following = run.clusters[index + 1] if index + 1 < len(run.clusters) else None
        if following == cluster:
            continue  # a glyph of the same cluster follows: no gap inside it
        next_char = run.text[following] if following is not None else after
        if next_char is not None and (_ideographic(char) or _ideographic(next_char)):
            gaps.append(index)
    return gaps


def _line_gaps(runs: list[LineRun]) -> list[list[int]]:
    """The glyphs of each run of a line (in visual order) that justification widens."""
    firsts = [run.text[run.clusters[0]] if run.clusters else None for run in runs]
    return [_gaps(run, next((c for c in firsts[i + 1 :] if c is not None), None)) for i, run in enumerate(runs)]


def place(
    block: TextBlock,
    x: float,
    y: float,
    width: float,
    height: float,
    align: Align = "left",
    vertical_align: VAlign = "top",
) -> list[Item]:
    """Glyph runs of a text block aligned in a box. Justified lines fill the width at
    their word separators; the last line of a paragraph sits at its start (the right
    edge for right-to-left paragraphs)."""
    top = y + {"top": 0.0, "middle": (height - block.height) / 2, "bottom": height - block.height}[vertical_align]
    items: list[Item] = []
    under: list[Item] = []  # highlights and underlines, drawn before the glyphs
    over: list[Item] = []  # strike-through lines, drawn after them
    for line, metrics in zip(block.lines, block.metrics, strict=True):
        runs = visual_order(line.runs)
        line_width = sum(run.width for run in runs)
        gaps = _line_gaps(runs) if align == "justify" and not line.last_in_paragraph else [[] for _ in runs]
        count = sum(len(g) for g in gaps)
        justify = count > 0
        extra = (width - line_width) / count if justify else 0.0
        side = align
        if align == "justify" and not justify:
            side = "right" if line.rtl_paragraph else "left"
        if side in ("left", "justify"):
            pen = x
        else:
            pen = x + (width - line_width) / (2 if side == "center" else 1)
        baseline = top + metrics.above
        for run, widened in zip(runs, gaps, strict=True):
            run_item = _glyph_run(run, pen, baseline, set(widened) if extra else set(), extra)
            if run_item.glyphs:
                items.append(run_item)
                _decorations(run, run_item, under, over)
            pen += run_item.width
        top += metrics.height
    return [*under, *items, *over]


def _decorations(run: LineRun, item: GlyphRun, under: list[Item], over: list[Item]) -> None:
    """A run's highlight, underline and strike-through, at its font's own positions and
    thickness (OpenType ``post`` and ``OS/2``), in the text's colour."""
    style = run.style
    if not (style.highlight or style.underline or style.strike):
        return
    font = hb_font(run.file)
    scale = style.size / font.upem
    if style.highlight is not None:
        top = item.y - font.ascender * style.size
        under.append(Rect(item.x, top, item.width, (font.ascender + font.descender) * style.size, fill=style.highlight))
    for wanted, (offset, size), into in (
        (style.underline, font.underline, under),
        (style.strike, font.strikeout, over),
    ):
        if wanted:
            thickness = max(size * scale, 1.0)
            into.append(Rect(item.x, item.y - offset * scale - thickness / 2, item.width, thickness, fill=style.color))


def _glyph_run(run: LineRun, x: float, baseline: float, widened: set[int], extra: float) -> GlyphRun:
    positions = []
    pen = 0.0
    for index, (advance, dx, dy) in enumerate(zip(run.advances, run.x_offsets, run.y_offsets, strict=True)):
        positions.append((pen + dx, dy))
        pen += advance + (extra if index in widened else 0.0)
    return GlyphRun(
        x=x,
        y=baseline,
        font=run.file,
        size=run.style.size,
        color=run.style.color,
        glyphs=run.glyphs,
        positions=tuple(positions),
        width=pen,
        text=run.text,
        clusters=run.clusters,
        rtl=run.rtl,
        letter_spacing=run.style.letter_spacing if run.script not in unicode.CURSIVE else 0.0,
        offset=run.offset,
        outline=run.style.outline,
    )
