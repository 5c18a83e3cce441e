"""The debug overlay: every visible layer's box and name (layers in frames too), drawn
above the design."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from templatekit.model.layers import FrameLayer, Layer
from templatekit.model.template import Template
from templatekit.model.values import Color
from templatekit.scene import Item, Rect
from templatekit.text.fonts import FontBook
from templatekit.text.typeset import TextStyle, place, typeset

_LINE = Color(236, 72, 153)
_LABEL_TEXT = Color(255, 255, 255)
_LABEL_SIZE = 12.0


Box = tuple[float, float, float, float]  # x, y, width, height


def overlay(template: Template, fonts: FontBook, drawn: set[str] | None = None) -> list[Item]:
    """Boxes and names of the visible layers (of those named in ``drawn``, when given:
    the layers a page actually shows). No label covers another: layers that share a
    corner get their labels at another corner, or stacked."""
    items: list[Item] = []
    labels: list[Box] = []
    style = TextStyle(size=_LABEL_SIZE, weight=600, color=_LABEL_TEXT)
    shown = [layer for layer in template.layers if layer.visible and (drawn is None or layer.name in drawn)]
    for layer in _with_frames_layers(shown):
        items.append(Rect(layer.x, layer.y, layer.width, layer.height, stroke=_LINE, stroke_width=1.5))
        label = f"{layer.name} ({layer.kind})"
        block = typeset(label, style, fonts, max(layer.width, 60), max_lines=1)
        width, height = block.width + 8, block.height + 2
        x, y = label_place((layer.x, layer.y, layer.width, layer.height), width, height, labels, template.height)
        labels.append((x, y, width, height))
        items.append(Rect(x, y, width, height, fill=_LINE))
        items.extend(place(block, x + 4, y + 1, width - 8, height - 2))
    return items


def _with_frames_layers(layers: Sequence[Layer]) -> Iterator[Layer]:
    """The layers, each frame followed by the visible layers it holds, at any depth."""
    for layer in layers:
        yield layer
        if isinstance(layer, FrameLayer):
            yield from _with_frames_layers([child for child in layer.layers if child.visible])


def label_place(box: Box, width: float, height: float, taken: list[Box], canvas_height: float) -> tuple[float, float]:
    """Where a label of this size goes: the box's top-left corner, else its bottom-left,
    just above it, just below it, whichever first covers no earlier label; else
    stacked under the labels in the way."""
    x, y, _, box_height = box
    spots = (y, y + box_height - height, y - height, y + box_height)
    for top in spots:
        if 0 <= top <= canvas_height - height and not _hits((x, top, width, height), taken):
            return x, top
    top = y
    while _hits((x, top, width, height), taken):
        top = max(other[1] + other[3] for other in taken if _overlap((x, top, width, height), other))
    return x, top


def _hits(box: Box, taken: list[Box]) -> bool:
    return any(_overlap(box, other) for other in taken)


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]
