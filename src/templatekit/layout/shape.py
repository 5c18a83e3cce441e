"""Shape layers: rectangle, ellipse or line, filling the layer box."""

from __future__ import annotations

from templatekit.layout.context import LayoutContext
from templatekit.model.layers import ShapeLayer
from templatekit.model.values import Color, Gradient
from templatekit.scene import Ellipse, Item, Line, Rect


def layout(layer: ShapeLayer, ctx: LayoutContext) -> list[Item]:
    stroke = layer.stroke if layer.stroke_width > 0 else None
    if layer.shape == "line":
        color = layer.stroke or _solid(layer.fill) or Color(0, 0, 0)
        middle = layer.y + layer.height / 2
        return [Line((layer.x, middle), (layer.x + layer.width, middle), color, max(layer.stroke_width, 1.0))]
    if layer.shape == "ellipse":
        return [Ellipse(layer.x, layer.y, layer.width, layer.height, layer.fill, stroke, layer.stroke_width)]
    return [Rect(layer.x, layer.y, layer.width, layer.height, layer.fill, stroke, layer.stroke_width, layer.radius)]


def _solid(fill: Color | Gradient | None) -> Color | None:
    return fill if isinstance(fill, Color) else fill.from_ if fill is not None else None
