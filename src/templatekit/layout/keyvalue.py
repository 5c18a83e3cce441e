"""Key-value layers: keys in a left column and values in a right one, row by row, like
the summary under an invoice ("Subtotal ........ $120.00").

The key column is as wide as the widest key, up to ``KEY_SHARE`` of the layer (keys
wrap beyond it); values take the rest after a gap and are right-aligned to the layer's
right edge, so that amounts line up. A key and its value share the baseline of their
first lines even when their sizes differ. Rows are stacked from the top with the same
space around every divider; rows that do not fit the box are left out, with a warning.
"""

from __future__ import annotations

import math

from attrs import frozen

from templatekit.layout.context import LayoutContext
from templatekit.model.layers import KeyValueLayer, KeyValueRow, StyleOverride
from templatekit.model.values import Color
from templatekit.scene import Item, Line
from templatekit.text.fonts import FontBook
from templatekit.text.typeset import TextBlock, TextStyle, place, typeset

KEY_SHARE = 0.45  # widest the key column gets, as a share of the layer width
GAP = 1.5  # between the key and value columns, in multiples of the layer's size
PADDING = 0.6  # above and below each divider, in multiples of the layer's size
ROW_GAP = 0.6  # between rows when there are no dividers, in multiples of the layer's size
LINE_HEIGHT = 1.35
KEY_WEIGHT = 400
VALUE_WEIGHT = 500  # a touch heavier than the keys: the values are what is read
DIVIDER_WIDTH = 1.0
_EPSILON = 0.01


@frozen
class Columns:
    """Where the key and value columns are, in canvas px."""

    key_x: float
    key_width: float
    value_x: float
    value_width: float


@frozen
class PlacedRow:
    items: tuple[Item, ...]
    height: float
    blocks: tuple[TextBlock, TextBlock]  # the key's and the value's

    @property
    def cut(self) -> bool:
        """Lines of the key or value were left out."""
        return any(block.truncated for block in self.blocks)


def layout(layer: KeyValueLayer, ctx: LayoutContext) -> list[Item]:
    ctx.face_warning(layer.name, layer.font)
    styles = [(_key_style(layer, row), _value_style(layer, row)) for row in layer.rows]
    columns = _columns(layer, [(row.key, key) for row, (key, _) in zip(layer.rows, styles, strict=True)], ctx.fonts)
    top = layer.y
    items: list[Item] = []
    blocks: list[TextBlock] = []
    for index, (row, (key, value)) in enumerate(zip(layer.rows, styles, strict=True)):
        divider, row_top = _after(layer, top) if index else (None, top)
        placed = _row(row, key, value, columns, row_top, layer.y + layer.height - row_top, ctx.fonts)
        if placed is None:
            _warn_hidden(layer, ctx, shown=index)
            break
        if divider is not None:
            items.append(divider)
        items.extend(placed.items)
        blocks.extend(placed.blocks)
        if placed.cut:
            ctx.warn(layer.name, f"row {index + 1} cut to fit the box")
            _warn_hidden(layer, ctx, shown=index + 1)
            break
        top = row_top + placed.height
    ctx.report_glyphs(layer.name, blocks)
    return items


def _after(layer: KeyValueLayer, bottom: float) -> tuple[Line | None, float]:
    """The divider under a row that ends at ``bottom``, and where the next row starts:
    rows without dividers sit closer, as the space no longer frames a line."""
    if layer.divider is None:
        return None, bottom + layer.size * ROW_GAP
    pad = layer.size * PADDING
    y = _snap(bottom + pad)
    return Line((layer.x, y), (layer.x + layer.width, y), layer.divider, DIVIDER_WIDTH), y + DIVIDER_WIDTH / 2 + pad


def _row(
    row: KeyValueRow, key: TextStyle, value: TextStyle, columns: Columns, top: float, room: float, book: FontBook
) -> PlacedRow | None:
    """A row's key and value with their first baselines level; ``None`` when not even
    their first lines fit in ``room``."""
    key_block = typeset(row.key, key, book, columns.key_width, max_height=room)
    value_block = typeset(row.value, value, book, columns.value_width, max_height=room)
    baseline = max(key_block.first_baseline, value_block.first_baseline)
    key_top = top + baseline - key_block.first_baseline
    value_top = top + baseline - value_block.first_baseline
    height = max(key_top + key_block.height, value_top + value_block.height) - top
    if height > room + _EPSILON:
        return None
    items = [
        *place(key_block, columns.key_x, key_top, columns.key_width, key_block.height),
        *place(value_block, columns.value_x, value_top, columns.value_width, value_block.height, "right"),
    ]
    return PlacedRow(tuple(items), height, (key_block, value_block))


def _key_style(layer: KeyValueLayer, row: KeyValueRow) -> TextStyle:
    override = row.key_style or StyleOverride()
    return _style(layer, override, override.color or layer.key_color, KEY_WEIGHT)


def _value_style(layer: KeyValueLayer, row: KeyValueRow) -> TextStyle:
    """The row's ``valueColor`` wins over its ``valueStyle.color``: it is the field
    that exists only to colour the value (a total in green, an overdue date in red)."""
    override = row.value_style or StyleOverride()
    return _style(layer, override, row.value_color or override.color or layer.value_color, VALUE_WEIGHT)


def _style(layer: KeyValueLayer, override: StyleOverride, color: Color, weight: int) -> TextStyle:
    """The layer's font and size with a row's overrides of weight, italic and size."""
    return TextStyle(
        family=layer.font,
        weight=override.weight if override.weight is not None else weight,
        italic=bool(override.italic),
        size=override.size if override.size is not None else layer.size,
        color=color,
        line_height=LINE_HEIGHT,
    )


def _columns(layer: KeyValueLayer, keys: list[tuple[str, TextStyle]], book: FontBook) -> Columns:
    widest = max((typeset(text, style, book, math.inf).width for text, style in keys), default=0.0)
    key_width = min(widest, layer.width * KEY_SHARE)
    gap = layer.size * GAP if key_width > 0 else 0.0
    value_x = layer.x + key_width + gap
    return Columns(layer.x, max(1.0, key_width), value_x, max(1.0, layer.x + layer.width - value_x))


def _snap(y: float) -> float:
    """The centre of the pixel row at ``y``: a 1 px line there covers one row exactly."""
    return math.floor(y) + 0.5


def _warn_hidden(layer: KeyValueLayer, ctx: LayoutContext, shown: int) -> None:
    if shown < len(layer.rows):
        ctx.warn(layer.name, f"showing {shown} of {len(layer.rows)} rows; the rest do not fit the box")
