"""Frame layers: the frame's own box (fill, stroke, radius), then the layers it holds,
each laid out as a layer of its kind and grouped as a layer is, masked by a layer beside
it as top-level layers are, cut at the frame's box when it clips. The boxes are the
arranged ones (``templatekit.layout.arrange``)."""

from __future__ import annotations

from attrs import evolve

from templatekit.layout.compose import laid_out_layers, masked_layers
from templatekit.layout.context import LayoutContext
from templatekit.model.layers import FrameLayer
from templatekit.scene import Clip, Group, Item, Rect


def layout(layer: FrameLayer, ctx: LayoutContext) -> list[Item]:
    items: list[Item] = []
    stroke = layer.stroke if layer.stroke_width > 0 else None
    if layer.fill is not None or stroke is not None:
        box = (layer.x, layer.y, layer.width, layer.height)
        items.append(Rect(*box, layer.fill, stroke, layer.stroke_width, layer.radius))
    # only top-level tables continue on further pages: a frame's are cut, with a warning
    inner = evolve(ctx, paginate=False) if ctx.paginate else ctx
    children = [group for _, group in masked_layers(layer.layers, laid_out_layers(layer.layers, inner))]
    if layer.clip and children:
        clip = Clip(layer.x, layer.y, layer.width, layer.height, radius=layer.radius)
        items.append(Group(tuple(children), clip=clip))
    else:
        items.extend(children)
    return items
