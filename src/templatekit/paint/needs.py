"""What the raster painter will make to paint a Scene: its buffers, in the order it makes
them, worked out from the same geometry it paints by (``raster``), without painting.

Only the buffers that grow with what is drawn are described, each by the largest one a
primitive makes at a time (the smaller ones that follow it fit where it did). They are
asked of the render's budget before painting starts (``templatekit.budget.ask``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from templatekit.cache import BoundedCache
from templatekit.model.values import Color
from templatekit.paint.canvas import canvas_size
from templatekit.paint.effects import EFFECT_IMAGES
from templatekit.paint.raster import (
    SUPERSAMPLE,
    Area,
    box_pixels,
    effects_area,
    is_plain_box,
    is_plain_group,
    is_snapped,
    layer_area,
    line_polygon,
    path_pixels,
    placed_pixels,
    polygon_pixels,
    run_extent,
    sprite_area,
)
from templatekit.scene import Bars, Ellipse, GlyphRun, Group, Image, Item, Line, Path, Polygon, Rect, Scene
from templatekit.scene.memory import ForLayer, Need, held, image

Needs = Iterator[Need]


def canvas_needs(scene: Scene, scale: float) -> Needs:
    """What ``canvas.paint`` makes to paint ``scene`` at ``scale``: the canvas, held."""
    size = canvas_size(scene, scale)
    inner = (image("the canvas", "RGBA", size), *items_needs(Area(0, 0, scale, size), scene.items))
    yield held("the canvas", size, inner)


def sprite_needs(items: Sequence[Item], scale: float) -> Needs:
    """What ``raster.paint_sprite`` makes to paint ``items``."""
    area = sprite_area(items, scale)
    if area is not None:
        yield image("a moving piece", "RGBA", area.size)
        yield from items_needs(area, items)


def effects_needs(group: Group, scale: float) -> Needs:
    """What ``raster.effects_alone`` makes to paint the effects of ``group``."""
    area = effects_area(group, scale)
    if area is None:
        return
    assert group.effects is not None
    inner = (
        image("a layer surface", "RGBA", area.size),
        *_cut_needs(area, group),
        *_effect_needs(area, group, whole=bool(group.effects.blur)),
    )
    yield held("the layer drawn for its effects", area.size, inner)


def items_needs(area: Area, items: Sequence[Item]) -> Needs:
    for item in items:
        yield from NEEDS[type(item)](area, item)


def _mask(size: tuple[int, int]) -> Need:
    return image("an anti-aliased mask", "L", (size[0] * SUPERSAMPLE, size[1] * SUPERSAMPLE))


def _box_needs(area: Area, item: Rect | Ellipse, radius: float, ellipse: bool) -> Needs:
    placed = box_pixels(area, item, radius)
    if placed is None:
        return
    _, _, width, height, box, r = placed
    fill = item.fill
    if fill is not None and not is_plain_box(box, r, ellipse):
        yield _mask((width, height))
    elif fill is not None and not (isinstance(fill, Color) and fill.a == 255):
        yield image("a fill" if isinstance(fill, Color) else "a gradient", "RGBA", (width, height))
    if item.stroke is not None and item.stroke_width > 0:
        yield _mask((width, height))


def _rect_needs(area: Area, item: Rect) -> Needs:
    return _box_needs(area, item, item.radius, ellipse=False)


def _ellipse_needs(area: Area, item: Ellipse) -> Needs:
    return _box_needs(area, item, 0.0, ellipse=True)


def _polygon_needs(area: Area, item: Polygon) -> Needs:
    placed = polygon_pixels(area, item)
    if placed is not None:
        yield _mask(placed[2:4])


def _line_needs(area: Area, item: Line) -> Needs:
    if not is_snapped(item):
        yield from _polygon_needs(area, line_polygon(item))


def _path_needs(area: Area, item: Path) -> Needs:
    visible = path_pixels(area, item)
    if visible is None:
        return
    big = (visible[2] * SUPERSAMPLE, visible[3] * SUPERSAMPLE)
    mask = image("an anti-aliased mask", "L", big, count=2)  # the winding count and a contour
    if item.fill is not None:
        yield mask
    if item.stroke is not None and item.stroke_width > 0:
        yield mask


def _bars_needs(area: Area, item: Bars) -> Needs:
    if item.color.a < 255:
        yield image("a mask of bars", "L", area.size)
        yield image("a fill", "RGBA", area.size)


def _glyph_run_needs(area: Area, item: GlyphRun) -> Needs:
    extent = run_extent(area, item)
    if extent is not None:
        yield image("the text's glyphs", "RGBA", extent)


def _image_needs(area: Area, item: Image) -> Needs:
    return iter(())


def _group_needs(area: Area, group: Group) -> Needs:
    """A group's needs, in its layer's name; a layer's are kept, as a render that changes
    one layer repeats the others' (it compares them by value, as the canvas does)."""
    key = (group, area.left, area.top, area.scale, area.size)
    found = _KEPT.get(key)
    if found is None:
        inner = tuple(_group_own_needs(area, group))
        found = inner if group.label is None or not inner else (ForLayer(group.label, inner),)
        _KEPT.put(key, found, 200 + 100 * len(inner))
    return iter(found)


_KEPT: BoundedCache[tuple[Any, ...], tuple[Need, ...]] = BoundedCache(512, name="paint.needs", second_use=True)


def _group_own_needs(area: Area, group: Group) -> Needs:
    if is_plain_group(group):
        yield from items_needs(area, group.items)
        return
    layer = layer_area(area, group) if group.opacity > 0 and group.items else None
    if layer is None:
        return
    inner = [image("a layer surface", "RGBA", layer.size), *_cut_needs(layer, group)]
    if group.effects is not None:
        inner.extend(_effect_needs(layer, group, whole=True))
    placed = None if group.transform.is_identity else placed_pixels(area, layer, group)
    if placed is not None:
        inner.append(image("the rotated layer", "RGBA", placed[2]))
    yield held("a surface for the layer's opacity, rotation or clip", layer.size, tuple(inner))


def _cut_needs(layer: Area, group: Group) -> Needs:
    """The group's items on its own surface, clipped and masked."""
    yield from items_needs(layer, group.items)
    if group.clip is not None:
        yield _mask(layer.size)
    if group.mask is not None:
        drawn = (image("a mask", "RGBA", layer.size), *items_needs(layer, group.mask.items))
        yield held("the layer's mask", layer.size, drawn)


def _effect_needs(layer: Area, group: Group, whole: bool) -> Needs:
    """The blur and shadows (``whole``), or the shadows alone, of a group on ``layer``:
    each shadow spread from the group's grown shape paints that shape."""
    assert group.effects is not None
    if whole:
        yield image("the blur and shadows of the layer", "RGBA", layer.size, EFFECT_IMAGES, each=True)
    for shadow in reversed(group.effects.shadows):
        grown = group.spread(shadow.spread) if shadow.spread else None
        if grown is not None:
            yield image("the layer's shape grown", "RGBA", layer.size)
            yield from _cut_needs(layer, grown)


NEEDS: dict[type, Callable[[Area, Any], Needs]] = {
    Rect: _rect_needs,
    Ellipse: _ellipse_needs,
    Polygon: _polygon_needs,
    Path: _path_needs,
    Line: _line_needs,
    Bars: _bars_needs,
    GlyphRun: _glyph_run_needs,
    Image: _image_needs,
    Group: _group_needs,
}
