"""The debug overlay: every visible layer's box and name, drawn above the design."""

from __future__ import annotations

from templatekit.layout.fonts import FontBook
from templatekit.layout.scene import Item, Rect
from templatekit.layout.typeset import TextStyle, place, typeset
from templatekit.model.template import Template
from templatekit.model.values import Color

_LINE = Color(236, 72, 153)
_LABEL_TEXT = Color(255, 255, 255)
_LABEL_SIZE = 12.0


def overlay(template: Template, fonts: FontBook, drawn: set[str] | None = None) -> list[Item]:
    """Boxes and names of the visible layers (of those named in ``drawn``, when given:
    the layers a page actually shows)."""
    items: list[Item] = []
    style = TextStyle(size=_LABEL_SIZE, weight=600, color=_LABEL_TEXT)
    for layer in template.layers:
        if not layer.visible or (drawn is not None and layer.name not in drawn):
            continue
        items.append(Rect(layer.x, layer.y, layer.width, layer.height, stroke=_LINE, stroke_width=1.5))
        label = f"{layer.name} ({layer.kind})"
        block = typeset(label, style, fonts, max(layer.width, 60), max_lines=1)
        width, height = block.width + 8, block.height + 2
        items.append(Rect(layer.x, layer.y, width, height, fill=_LINE))
        items.extend(place(block, layer.x + 4, layer.y + 1, width - 8, height - 2))
    return items
