"""Signature layers: the signer's name in a script face above a line, and the job title
and date in small, muted type under the line.

The name is shrunk until it fits the space above the line on one line. It sits low,
so that its descenders cross the line a little, as a pen signature does. Under the
line the title goes on the left and the date on the right; when they do not fit side
by side they stack. An empty title or date takes no space, and without either the
line moves down to the bottom of the box.
"""

from __future__ import annotations

import math

from templatekit.font_file import hb_font
from templatekit.layout.context import LayoutContext
from templatekit.model.layers import SignatureLayer
from templatekit.model.values import Color
from templatekit.scene import Item, Line
from templatekit.text.typeset import Align, TextBlock, TextStyle, fit, place, typeset

META_FONT = "Inter"
META_SHARE = 0.1  # size of the title and date, as a share of the box height…
META_MIN, META_MAX = 10.0, 14.0  # …within these sizes, px
META_LINE_HEIGHT = 1.35
META_GAP = 0.6  # between the line and the title, in multiples of the title's size
META_SPACING = 1.5  # between a title and a date side by side, in multiples of their size
TITLE_COLOR = Color(71, 85, 105)  # slate-600
TITLE_WEIGHT = 500
DATE_COLOR = Color(100, 116, 139)  # slate-500
LINE_WIDTH = 1.0
SINK = 0.2  # how far above the line the name's baseline sits, in multiples of its size
MIN_NAME_SIZE = 8.0
NAME_INSET = 0.04  # space left and right of the name, as a share of the width, as with a pen


def layout(layer: SignatureLayer, ctx: LayoutContext) -> list[Item]:
    ctx.face_warning(layer.name, layer.font)
    meta_size = min(META_MAX, max(META_MIN, layer.height * META_SHARE))
    rows = _meta_rows(layer, ctx, meta_size)
    below = sum(_height(row) for row in rows)
    gap = meta_size * META_GAP if rows else 0.0
    face = hb_font(ctx.fonts.match(layer.font).file)
    ascent, descent = face.ascender, face.descender
    crossing = max(0.0, descent - SINK) / (ascent + SINK)  # descender below the line, per px of name room
    room = max(1.0, min(layer.height - below - gap, (layer.height - below) / (1 + crossing)))
    line_y = math.floor(layer.y + room - LINE_WIDTH) + LINE_WIDTH / 2
    items = _name(layer, ctx, line_y, ascent)
    items.append(Line((layer.x, line_y), (layer.x + layer.width, line_y), layer.line_color, LINE_WIDTH))
    top = line_y + LINE_WIDTH / 2 + max(gap, crossing * room)
    for row in rows:
        for block, align in row:
            items.extend(place(block, layer.x, top, layer.width, block.height, align))
        top += _height(row)
    return items


def _name(layer: SignatureLayer, ctx: LayoutContext, line_y: float, ascent: float) -> list[Item]:
    """The name as large as fits above the line on one line, its baseline ``SINK``
    above the line."""
    if not layer.text:
        return []
    room = line_y - layer.y
    inset = layer.width * NAME_INSET
    width = layer.width - 2 * inset
    style = TextStyle(family=layer.font, size=room / (ascent + SINK), color=layer.color, line_height=ascent + SINK)
    block = fit(layer.text, style, ctx.fonts, width, room, min_size=MIN_NAME_SIZE, max_lines=1)
    if block.truncated:
        ctx.warn_hidden(layer.name, "name cut to fit the box", block.hidden)
    ctx.report_glyphs(layer.name, [block], "name")
    baseline = line_y - block.style.size * SINK
    return place(block, layer.x + inset, baseline - block.first_baseline, width, block.height)


def _meta_rows(layer: SignatureLayer, ctx: LayoutContext, size: float) -> list[list[tuple[TextBlock, Align]]]:
    """The title and the date under the line: on one row, the title left and the date
    right, when both are given and fit side by side; else each on its own row."""
    title = TextStyle(family=META_FONT, weight=TITLE_WEIGHT, size=size, color=TITLE_COLOR, line_height=META_LINE_HEIGHT)
    date = TextStyle(family=META_FONT, size=size, color=DATE_COLOR, line_height=META_LINE_HEIGHT)
    blocks = [
        typeset(text, style, ctx.fonts, layer.width, max_lines=1)
        for text, style in ((layer.title, title), (layer.date, date))
        if text
    ]
    for block in blocks:
        if block.truncated:
            ctx.warn_hidden(layer.name, "title or date cut to fit the width", block.hidden)
    ctx.report_glyphs(layer.name, blocks, "title or date")
    if len(blocks) == 2 and blocks[0].width + blocks[1].width + size * META_SPACING <= layer.width:
        return [[(blocks[0], "left"), (blocks[1], "right")]]
    return [[(block, "left")] for block in blocks]


def _height(row: list[tuple[TextBlock, Align]]) -> float:
    return max(block.height for block, _ in row)
