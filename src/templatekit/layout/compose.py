"""Layout: a resolved template becomes a Scene.

Each built-in layer kind has one module named after its type, with a
``layout(layer, ctx) -> list[Item]`` function, imported the first time a layer of its
kind is laid out (a template without barcodes never loads the barcode library); kinds
added by an application bring their layout function (``templatekit.kinds``). This module wraps each
layer's items in a group that carries the layer's rotation and opacity, and paints
the template background.
"""

from __future__ import annotations

import importlib
import weakref
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any, TypeVar

import attrs
from attrs import evolve

from templatekit import budget
from templatekit.cache import BoundedCache
from templatekit.layout import image
from templatekit.layout.context import LayoutContext
from templatekit.model.layers import BUILT_IN_KINDS, ImageLayer, Layer, ShapeGeometry, ShapeLayer
from templatekit.model.layers import Mask as LayerMask
from templatekit.model.template import MAX_MASK_DEPTH, BackgroundImage, Template
from templatekit.model.values import Color, Gradient
from templatekit.scene import DropShadow, Effects, Group, Item, Mask, Rect, Scene
from templatekit.scene.geometry import Transform

LayoutFn = Callable[[Any, LayoutContext], list[Item]]
T = TypeVar("T")

#: layer type -> its layout, for kinds added with ``templatekit.kinds.add_layer_kind``
ADDED_LAYOUTS: dict[str, LayoutFn] = {}


def layout_function(kind: str) -> LayoutFn | None:
    return ADDED_LAYOUTS.get(kind) or _built_in_layout(kind)


@cache
def _built_in_layout(kind: str) -> LayoutFn | None:
    return importlib.import_module(f"templatekit.layout.{kind}").layout if kind in BUILT_IN_KINDS else None


def layout_template(template: Template, ctx: LayoutContext) -> Scene:
    """The Scene of a resolved template: every visible layer, bottom first."""
    groups = [group for _, group in layout_layers(template, ctx)]
    return Scene(
        template.width, template.height, background_color(template), (*background_items(template, ctx), *groups)
    )


def layout_layers(template: Template, ctx: LayoutContext) -> list[tuple[int, Group]]:
    """(index in the template, group) of every visible layer that is drawn, masked as
    its mask says (a layer that masks another is drawn only as that mask)."""
    check_images_fit(template, ctx)
    return masked_layers(template.layers, laid_out_layers(template.layers, ctx))


def masked_layers(layers: Sequence[Layer], groups: list[tuple[int, Group]]) -> list[tuple[int, Group]]:
    """The ``groups`` of one list of layers (the template's, or a frame's), each masked
    as its mask says, less those drawn only as masks: a mask names a layer beside it."""
    if not any(layer.mask is not None for layer in layers):
        return groups
    drawn = {layers[index].name: group for index, group in groups}
    by_name = {layer.name: layer for layer in layers}
    masks = mask_layer_names(layers)
    return [
        (index, masked(layers[index], group, drawn, by_name))
        for index, group in groups
        if layers[index].name not in masks
    ]


def mask_layer_names(layers: Sequence[Layer]) -> frozenset[str]:
    """The layers that are drawn only as other layers' masks."""
    return frozenset(layer.mask.layer for layer in layers if layer.mask is not None and layer.mask.layer)


def masked(layer: Layer, group: Group, drawn: Mapping[str, Group], layers: Mapping[str, Layer]) -> Group:
    """The layer's group with its mask: a shape in its own box, or the drawing of the
    layer it names (itself masked, if it has a mask), turned back into the layer's frame
    so that it stays where it is on the canvas. A hidden mask layer masks nothing.

    The chain of masks is followed in a loop, at most ``MAX_MASK_DEPTH`` layers (as deep
    as validation lets them nest), then wrapped from its end back to the layer."""
    chain = [(layer, group)]
    while len(chain) <= MAX_MASK_DEPTH:
        mask = chain[-1][0].mask
        name = mask.layer if mask is not None else None
        by = drawn.get(name) if name else None
        if name is None or by is None:
            break
        chain.append((layers[name], by))
    last, result = chain.pop()
    if last.mask is not None and last.mask.shape is not None:
        result = _with_mask(result, last.mask, tuple(_mask_shape(last, last.mask)))
    for masked_layer, masked_group in reversed(chain):
        turned = Group((result,), transform=Transform.turn(-masked_layer.rotation, _centre(masked_layer)))
        assert masked_layer.mask is not None
        result = _with_mask(masked_group, masked_layer.mask, (turned,) if masked_layer.rotation else (result,))
    return result


def _with_mask(group: Group, mask: LayerMask, items: tuple[Item, ...]) -> Group:
    return evolve(group, mask=Mask(items, luminance=mask.mode == "luminance", invert=mask.invert))


def _mask_shape(layer: Layer, mask: LayerMask) -> list[Item]:
    """A mask's shape in the layer's box, drawn white, by the shape layer's own layout."""
    from templatekit.layout.shape import shape_items

    geometry = {a.name: getattr(mask, a.name) for a in attrs.fields(ShapeGeometry)}
    outline = ShapeLayer(
        name=layer.name, x=layer.x, y=layer.y, width=layer.width, height=layer.height,
        shape=mask.shape or "rect", fill=Color(255, 255, 255), stroke=None, **geometry,
    )  # fmt: skip
    return shape_items(outline)


def laid_out_layers(layers: Sequence[Layer], ctx: LayoutContext) -> list[tuple[int, Group]]:
    """(index, group) of each of ``layers`` that is drawn, unmasked."""
    return [(index, group) for index, layer in enumerate(layers) if (group := laid_out_layer(layer, ctx)) is not None]


def laid_out_layer(layer: Layer, ctx: LayoutContext) -> Group | None:
    """A visible layer's group; None for a hidden one, or one of a kind not drawn."""
    if not layer.visible:
        return None
    layout_fn = layout_function(layer.TYPE)
    if layout_fn is None:
        ctx.warn(layer.name, f"{layer.kind} layers are not drawn by this renderer yet")
        return None
    with budget.layer(layer.name):
        return _laid_out(layer, layout_fn, ctx)


def check_images_fit(template: Template, ctx: LayoutContext) -> None:
    """Refuse a template whose images would not fit the memory budget decoded, from
    their headers, before any is decoded: a template of thirty large photos is refused
    at once instead of after decoding the first few."""
    needed = 0
    for layer in template.layers:
        if not (layer.visible and isinstance(layer, ImageLayer)):
            continue
        size = image.pixel_size(layer, ctx)
        if size is not None:
            needed += budget.image_bytes("RGBA", size)
            what = f"decoding the images up to this layer (this one {budget.pixels(size)})"
            with budget.layer(layer.name):
                budget.current().check(needed, what)


# Kinds whose layout depends on nothing but the layer and the context (an image, a
# video or a captions layer also depends on the file or URL it names, which may change
# between renders; captions on the moment too). (A frame's layers are reused each by its kind.)
REUSABLE = BUILT_IN_KINDS - {"image", "video", "captions", "frame"}

_DONE: BoundedCache[tuple[Any, ...], tuple[weakref.ref[Layer], weakref.ref[Any], Any, tuple[str, ...]]]
_DONE = BoundedCache(4096, name="layout.groups", second_use=True)


def _laid_out(layer: Layer, layout_fn: LayoutFn, ctx: LayoutContext) -> Group:
    if layer.TYPE not in REUSABLE:
        return layer_group(layer, layout_fn(layer, ctx))
    return reused(layer, ctx, "group", lambda: layer_group(layer, layout_fn(layer, ctx)), Group.weight)


def reused(layer: Layer, ctx: LayoutContext, what: str, compute: Callable[[], T], weigh: Callable[[T], int]) -> T:
    """``compute()`` for a layer, reused when this very layer object was laid out before
    with the same fonts and settings (modifications replace only the layers they
    change, so a render that changes one layer lays out only that one); the warnings
    it gave are given again. ``weigh``: roughly the bytes a result holds."""
    key = (what, id(layer), id(ctx.fonts), ctx.time, ctx.paginate, ctx.density, ctx.vector, ctx.locale)
    done = _DONE.get(key)
    if done is not None and done[0]() is layer and done[1]() is ctx.fonts:
        ctx.warnings.extend(done[3])
        return done[2]
    before = len(ctx.warnings)
    result = compute()
    _DONE.put(key, (weakref.ref(layer), weakref.ref(ctx.fonts), result, tuple(ctx.warnings[before:])), weigh(result))
    return result


def background_color(template: Template) -> Color | None:
    return template.background if isinstance(template.background, Color) else None


def background_items(template: Template, ctx: LayoutContext) -> list[Item]:
    """The template's background gradient or image, if it has one, filling the canvas."""
    if isinstance(template.background, Gradient):
        return [Rect(0, 0, template.width, template.height, fill=template.background)]
    if not isinstance(template.background, BackgroundImage):
        return []
    background = template.background
    with budget.layer("background"):
        item = image.fitted_image(
            background.src, background.fit, 0, 0, template.width, template.height, ctx, owner="background"
        )
    return [item]


def layer_group(layer: Layer, items: list[Item]) -> Group:
    return Group(
        tuple(items),
        opacity=layer.opacity,
        transform=Transform.turn(layer.rotation, _centre(layer)),
        label=layer.name,
        effects=layer_effects(layer),
    )


def _centre(layer: Layer) -> tuple[float, float]:
    """Where a layer turns about."""
    return (layer.x + layer.width / 2, layer.y + layer.height / 2)


def layer_effects(layer: Layer) -> Effects | None:
    if not (layer.shadows or layer.blur or layer.blend != "normal"):
        return None
    shadows = tuple(DropShadow(s.x, s.y, s.blur, s.spread, s.color) for s in layer.shadows)
    return Effects(shadows, layer.blur, layer.blend)
