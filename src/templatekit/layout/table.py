"""Table layers: a header row and body rows of text cells, with theme fills and rules.

Layout is two steps, so that the PDF writer can continue a table on new pages:
``table_rows_layout`` measures everything (column widths, every row's height and the
text of every cell) once, and ``table_items`` turns the header and any slice of the
body rows into Scene items at a given position. A cell's text is a pure function of
(text, style, width), cached, because the same values repeat across rows and renders.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import accumulate
from typing import Literal

from attrs import evolve, frozen

from templatekit.cache import memoized
from templatekit.layout.context import LayoutContext
from templatekit.model.layers import CellValue, Column, TableLayer
from templatekit.model.values import Color, cell_text
from templatekit.scene import Clip, Group, Item, Rect
from templatekit.text.fonts import FontBook
from templatekit.text.typeset import TextBlock, TextStyle, place, typeset

CellAlign = Literal["left", "center", "right"]

LINE_HEIGHT = 1.4
PAD_Y = 0.5  # em above and below the text of a cell
PAD_X = 0.75  # em left and right of it
ADAPTIVE_MAX_LINES = 3
_EPSILON = 0.01


@frozen
class Palette:
    """How a theme draws a table. ``row_rule`` goes under every body row; a table with
    a ``frame`` also gets vertical rules between columns and a ``radius``."""

    text: Color
    header_text: Color
    header_fill: Color | None = None
    header_rule: Color | None = None
    header_rule_width: float = 1.0
    row_rule: Color | None = None
    stripe: Color | None = None
    frame: Color | None = None
    radius: float = 0.0
    header_weight: int = 600


_SLATE_900, _SLATE_700 = Color.parse("#0f172a"), Color.parse("#334155")
_SLATE_200 = Color.parse("#e2e8f0")

THEMES: dict[str, Palette] = {
    "none": Palette(text=_SLATE_700, header_text=_SLATE_900, header_rule=Color.parse("#cbd5e1")),
    "default": Palette(
        text=_SLATE_700,
        header_text=_SLATE_900,
        header_fill=Color.parse("#f1f5f9"),
        header_rule=_SLATE_200,
        row_rule=_SLATE_200,
    ),
    "bright": Palette(
        text=Color.parse("#1e293b"),
        header_text=Color.parse("#ffffff"),
        header_fill=Color.parse("#4f46e5"),
        row_rule=Color.parse("#e0e7ff"),
        stripe=Color.parse("#eef2ff"),
        header_weight=700,
    ),
    "simplify": Palette(
        text=_SLATE_700,
        header_text=_SLATE_900,
        header_rule=_SLATE_900,
        header_rule_width=2.0,
        row_rule=_SLATE_200,
        header_weight=700,
    ),
    "arco": Palette(
        text=Color.parse("#1d2129"),
        header_text=Color.parse("#1d2129"),
        header_fill=Color.parse("#f2f3f5"),
        header_rule=Color.parse("#e5e6eb"),
        row_rule=Color.parse("#e5e6eb"),
        frame=Color.parse("#e5e6eb"),
        radius=4.0,
    ),
}


def palette(layer: TableLayer) -> Palette:
    """The layer's theme with its colour overrides; ``border`` recolours every rule."""
    theme = THEMES[layer.theme]
    border = layer.border
    return evolve(
        theme,
        header_fill=layer.header_background or theme.header_fill,
        header_text=layer.header_color or theme.header_text,
        stripe=layer.stripe or theme.stripe,
        header_rule=border if border and theme.header_rule else theme.header_rule,
        row_rule=border if border and theme.row_rule else theme.row_rule,
        frame=border if border and theme.frame else theme.frame,
    )


# ------------------------------------------------------------------ cells


def _is_number(value: CellValue) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@memoized("table.cells", 8192, TextBlock.approx_bytes, second_use=True)
def cell_block(text: str, style: TextStyle, width: float, max_lines: int | None, book: FontBook) -> TextBlock:
    """The text of one cell wrapped to ``width``; ``math.inf`` measures it unwrapped."""
    return typeset(text, style, book, width, max_lines=max_lines)


def table_columns(layer: TableLayer) -> tuple[tuple[Column, ...], list[str]]:
    """The columns to draw, and the row keys that no column shows (first seen first)."""
    seen = list(dict.fromkeys(key for row in layer.rows for key in row))
    if not layer.columns:
        return tuple(Column(key=key, header=key) for key in seen), []
    keys = {column.key for column in layer.columns}
    return layer.columns, [key for key in seen if key not in keys]


# ------------------------------------------------------------------ widths


def column_widths(fixed: Sequence[float | None], natural: Sequence[float], width: float, adaptive: bool) -> list[int]:
    """Whole-pixel column widths.

    Columns with a set width keep it, scaled down only when it would leave an auto
    column less than min(natural, half an equal share). Auto columns share what
    remains in proportion to their natural width, each getting at least
    min(natural, remaining / auto columns), so that one long column cannot squeeze
    the short ones. An adaptive table is only as wide as its content; a standard one
    fills ``width`` unless every column has a set width.
    """
    auto = [i for i, f in enumerate(fixed) if f is None]
    fixed_total = sum(f for f in fixed if f is not None)
    if adaptive or not auto:
        width = min(width, fixed_total + sum(natural[i] for i in auto))
    reserve = sum(min(natural[i], width / len(fixed) / 2) for i in auto)
    scale = min(1.0, (width - reserve) / fixed_total) if fixed_total else 1.0
    widths = [None if f is None else f * scale for f in fixed]
    remaining = width - fixed_total * scale
    floors = {i: min(natural[i], remaining / len(auto)) for i in auto}
    for index, share in _share(remaining, {i: natural[i] for i in auto}, floors).items():
        widths[index] = share
    edges = [0, *(math.floor(sum(w or 0.0 for w in widths[: k + 1]) + 0.5) for k in range(len(widths)))]
    return [right - left for left, right in zip(edges, edges[1:], strict=False)]


def _share(total: float, weights: dict[int, float], floors: dict[int, float]) -> dict[int, float]:
    """``total`` split in proportion to ``weights``, raising shares below their floor
    to it and splitting the rest among the others again."""
    shares: dict[int, float] = {}
    free = dict(weights)
    while free:
        room = total - sum(shares.values())
        weight = sum(free.values())
        proposal = {i: room * w / weight for i, w in free.items()}
        low = [i for i, share in proposal.items() if share < floors[i] - _EPSILON]
        if not low:
            shares.update(proposal)
            break
        for i in low:
            shares[i] = floors[i]
            del free[i]
    return shares


# ------------------------------------------------------------------ geometry


@frozen
class Cell:
    block: TextBlock
    align: CellAlign


@frozen
class Row:
    height: int
    cells: tuple[Cell, ...]


@frozen
class TableGeometry:
    """A measured table, positions relative to its top-left corner."""

    widths: tuple[int, ...]
    header: Row
    rows: tuple[Row, ...]
    palette: Palette
    pad_x: int  # whole pixels, so that left-aligned text starts on one
    pad_y: int

    @property
    def width(self) -> int:
        return sum(self.widths)

    @property
    def height(self) -> int:
        """The natural height of the whole table, all body rows included."""
        return self.header.height + sum(row.height for row in self.rows)

    def rows_fitting(self, height: float, start: int = 0) -> int:
        """How many body rows from ``start`` fit under the header in ``height``."""
        used = self.header.height
        count = 0
        for row in self.rows[start:]:
            used += row.height
            if used > height + _EPSILON:
                break
            count += 1
        return count


def table_rows_layout(layer: TableLayer, book: FontBook) -> TableGeometry:
    """Measure the table: column widths, and every row's cells and height."""
    columns, _ = table_columns(layer)
    colours = palette(layer)
    body = TextStyle(family=layer.font, size=layer.size, color=colours.text, line_height=LINE_HEIGHT)
    head = evolve(body, weight=colours.header_weight, color=colours.header_text)
    pad_x, pad_y = round(layer.size * PAD_X), round(layer.size * PAD_Y)
    values = [[row.get(column.key) for column in columns] for row in layer.rows]
    texts = [[cell_text(value) for value in row] for row in values]
    headers = [column.header if column.header is not None else column.key for column in columns]
    natural = [_natural_width(cells, pad_x, book) for cells in _column_texts(headers, texts, head, body)]
    fixed = [None if column.width is None else column.width.resolve(layer.width) for column in columns]
    widths = column_widths(fixed, natural, layer.width, layer.width_mode == "adaptive")
    rows = _RowSetter(
        inner=tuple(max(1.0, width - 2 * pad_x) for width in widths),
        max_lines=ADAPTIVE_MAX_LINES if layer.height_mode == "adaptive" else 1,
        pad_y=pad_y,
        book=book,
    )
    header_aligns = [_header_align(column, [row[j] for row in values]) for j, column in enumerate(columns)]
    return TableGeometry(
        widths=tuple(widths),
        header=rows.row(headers, head, header_aligns),
        rows=tuple(
            rows.row(cells, body, [_cell_align(column, value) for column, value in zip(columns, raw, strict=True)])
            for cells, raw in zip(texts, values, strict=True)
        ),
        palette=colours,
        pad_x=pad_x,
        pad_y=pad_y,
    )


@frozen
class _RowSetter:
    """Sets rows once the column widths are known; ``inner`` is each column's width
    inside its padding."""

    inner: tuple[float, ...]
    max_lines: int
    pad_y: int
    book: FontBook

    def row(self, texts: list[str], style: TextStyle, aligns: list[CellAlign]) -> Row:
        """A row as tall as its tallest cell; one line tall when cells are cut to one line."""
        cells = tuple(
            Cell(cell_block(text, style, width, self.max_lines, self.book), align)
            for text, width, align in zip(texts, self.inner, aligns, strict=True)
        )
        lines = max((len(cell.block.lines) for cell in cells), default=1) if self.max_lines > 1 else 1
        return Row(math.ceil(max(1, lines) * style.size * style.line_height + 2 * self.pad_y - _EPSILON), cells)


def _column_texts(
    headers: list[str], texts: list[list[str]], head: TextStyle, body: TextStyle
) -> list[list[tuple[str, TextStyle]]]:
    """Per column, its header and cell texts with the style each is drawn in."""
    return [[(header, head), *((row[j], body) for row in texts)] for j, header in enumerate(headers)]


def _natural_width(cells: list[tuple[str, TextStyle]], pad_x: int, book: FontBook) -> int:
    """The width a column needs to show each of its texts on one line."""
    widest = max(cell_block(text, style, math.inf, None, book).width for text, style in cells)
    return max(1, math.ceil(widest + 2 * pad_x))


def _cell_align(column: Column, value: CellValue) -> CellAlign:
    return column.align or ("right" if _is_number(value) else "left")


def _header_align(column: Column, values: list[CellValue]) -> CellAlign:
    """A header sits over its values: right when the column holds only numbers."""
    filled = [value for value in values if value is not None]
    return column.align or ("right" if filled and all(map(_is_number, filled)) else "left")


# ------------------------------------------------------------------ drawing


def page_ranges(geometry: TableGeometry, height: float) -> list[range]:
    """The body rows of each page when the rows that do not fit continue on the next:
    as many whole rows as fit the box, at least one a page so that every row is shown."""
    ranges = []
    start = 0
    while start < len(geometry.rows):
        count = max(1, geometry.rows_fitting(height, start))
        ranges.append(range(start, start + count))
        start += count
    return ranges or [range(0)]


def table_items(geometry: TableGeometry, x: float, y: float, rows: range) -> list[Item]:
    """Scene items for the header and the body rows ``rows``, top-left at (x, y).
    Stripes follow the row's index in the whole table, so that they continue
    across pages."""
    shown = [(geometry.header, None), *((geometry.rows[i], i) for i in rows)]
    tops = list(accumulate((row.height for row, _ in shown), initial=y))
    lefts = list(accumulate(geometry.widths, initial=x))
    colours = geometry.palette
    width, height = geometry.width, tops[-1] - y
    decor = [*_fills(colours, shown, tops, x, width), *_rules(colours, len(shown), tops, lefts, x, width)]
    items: list[Item] = []
    if colours.radius:
        items.append(Group(tuple(decor), clip=Clip(x, y, width, height, colours.radius)))
    else:
        items.extend(decor)
    if colours.frame is not None:
        items.append(Rect(x, y, width, height, stroke=colours.frame, stroke_width=1.0, radius=colours.radius))
    pad_x, pad_y = geometry.pad_x, geometry.pad_y
    for (row, _), top in zip(shown, tops, strict=False):
        for cell, left, column_width in zip(row.cells, lefts, geometry.widths, strict=False):
            box = (left + pad_x, top + pad_y, max(1.0, column_width - 2 * pad_x), row.height - 2 * pad_y)
            items.extend(place(cell.block, *box, cell.align, "middle"))
    return items


def _fills(
    colours: Palette, shown: list[tuple[Row, int | None]], tops: list[float], x: float, width: float
) -> list[Item]:
    items: list[Item] = []
    if colours.header_fill is not None:
        items.append(Rect(x, tops[0], width, tops[1] - tops[0], fill=colours.header_fill))
    if colours.stripe is not None:
        for (row, index), top in zip(shown, tops, strict=False):
            if index is not None and index % 2 == 1:
                items.append(Rect(x, top, width, row.height, fill=colours.stripe))
    return items


def _rules(colours: Palette, count: int, tops: list[float], lefts: list[float], x: float, width: float) -> list[Item]:
    """Rules as thin rectangles on whole pixels, each just above the edge it marks
    (a 2 px rule straddles it), so that they stay crisp and inside the table."""
    items: list[Item] = []
    if colours.header_rule is not None:
        items.append(_across(x, tops[1], width, colours.header_rule_width, colours.header_rule))
    if colours.row_rule is not None:
        last = count if colours.frame is None else count - 1  # the frame draws the bottom edge
        items.extend(_across(x, tops[i], width, 1.0, colours.row_rule) for i in range(2, last + 1))
    if colours.frame is not None:
        items.extend(Rect(left - 1.0, tops[0], 1.0, tops[-1] - tops[0], fill=colours.frame) for left in lefts[1:-1])
    return items


def _across(x: float, edge: float, width: float, thickness: float, color: Color) -> Rect:
    return Rect(x, edge - math.ceil(thickness / 2), width, thickness, fill=color)


# ------------------------------------------------------------------ the layer


def layout(layer: TableLayer, ctx: LayoutContext) -> list[Item]:
    ctx.face_warning(layer.name, layer.font)
    columns, ignored = table_columns(layer)
    if ignored:
        names = ", ".join(repr(key) for key in ignored)
        ctx.warn(layer.name, f"row keys not among the columns are ignored: {names}")
    if not columns:
        return []
    geometry = table_rows_layout(layer, ctx.fonts)
    count = geometry.rows_fitting(layer.height)
    if count < len(geometry.rows) and not ctx.paginate:
        ctx.warn(layer.name, f"showing {count} of {len(geometry.rows)} rows; the rest do not fit the box")
    shown = geometry.rows if ctx.paginate else geometry.rows[:count]  # paginated: every row is shown
    cut = sum(cell.block.truncated for row in (geometry.header, *shown) for cell in row.cells)
    if cut and layer.height_mode == "adaptive":
        ctx.warn(layer.name, f"{cut} cell(s) cut after {ADAPTIVE_MAX_LINES} lines to fit their column")
    elif cut:
        ctx.warn(layer.name, f"{cut} cell(s) cut to one line to fit their column; heightMode adaptive wraps them")
    ctx.report_glyphs(layer.name, [cell.block for row in (geometry.header, *shown) for cell in row.cells], "a cell")
    return table_items(geometry, layer.x, layer.y, range(count))
