"""Painting a whole Scene, reusing what the last renders of the same canvas painted.

Renders of one template usually differ in a few layers only. Two reuses, both giving
the same pixels as painting everything (Scene items compare by value):

- **Damage**: when a scene has the items of the last one on its canvas but a few, the
  last image is kept and only the region those few covered (before and now) is painted
  again: the items that reach into it are painted on the canvas as it was before the
  first of them (a kept snapshot, made the first time), and the region is copied from
  it. A change costs about what the changed layers cost, whatever the number of layers.
- **Snapshots**: the canvas painted up to the first item that changed between two
  renders is kept; a later render whose items start the same way starts from it.

Every prefix of the items gets a key built from the key before it and one more item,
so that each item is hashed once and looking for a kept prefix is linear.
"""

from __future__ import annotations

import math
from typing import Any

from attrs import frozen
from PIL import Image as PILImage

from templatekit.cache import BoundedCache
from templatekit.paint.raster import PAINTERS, Surface
from templatekit.scene import Item, Scene
from templatekit.scene.geometry import Box, union

#: At most this many changed items are repainted as damage; more paint the canvas.
MAX_CHANGED = 8
#: ... and only while the damage covers at most this share of the canvas.
MAX_DAMAGE_SHARE = 0.5
#: Scene px added around the changed items' boxes: anti-aliasing, and strokes that reach
#: past an item's geometry.
MARGIN = 4.0


@frozen
class _Painted:
    """A canvas painted with ``items`` (all of them: a last frame; a prefix: a snapshot)."""

    canvas: Any
    items: tuple[Item, ...]
    image: PILImage.Image


_SNAPSHOTS: BoundedCache[int, _Painted] = BoundedCache(32, name="canvas.snapshots")
_LAST: BoundedCache[Any, _Painted] = BoundedCache(16, name="canvas.last")


def paint(scene: Scene, scale: float = 1.0) -> PILImage.Image:
    """Paint a Scene at ``scale`` (1 = one image pixel per scene px). The image is kept
    for the next render of the canvas: treat it as read-only."""
    size = canvas_size(scene, scale)
    canvas = (size, scene.background, scale)
    keys = _prefix_keys(canvas, scene.items)
    last = _LAST.get(canvas)
    image = None if last is None else _repaired(scene, canvas, keys, last, scale)
    if image is None:
        image = _painted(scene, canvas, keys, scale, last)
    _LAST.put(canvas, _Painted(canvas, scene.items, image), _weight(size))
    return image


def canvas_size(scene: Scene, scale: float) -> tuple[int, int]:
    return (max(1, round(scene.width * scale)), max(1, round(scene.height * scale)))


def forget() -> None:
    """Drop every kept canvas: the next paint of any scene starts from nothing."""
    _SNAPSHOTS.clear()
    _LAST.clear()


def _painted(scene: Scene, canvas: Any, keys: list[int], scale: float, last: _Painted | None) -> PILImage.Image:
    """Every item from the longest kept prefix on; the prefix shared with the last
    render is kept as a snapshot on the way."""
    items = scene.items
    start, image = _snapshot_for(canvas, items, keys, len(items) - 1)
    surface = Surface(image or _background(scene, canvas[0]), 0, 0, scale, opaque=is_opaque(scene))
    keep_at = _shared_prefix(last.items if last is not None else (), items)
    for index in range(start, len(items)):
        if index == keep_at and index > start:
            snapshot = _Painted(canvas, items[:index], surface.image.copy())
            _SNAPSHOTS.put(keys[index], snapshot, _weight(surface.image.size))
        PAINTERS[type(items[index])](surface, items[index])
    return surface.image


def _repaired(scene: Scene, canvas: Any, keys: list[int], last: _Painted, scale: float) -> PILImage.Image | None:
    """The last image with the damage of the changed items painted again; None when
    the scenes differ too much for that to pay (or their lengths differ)."""
    items = scene.items
    if len(last.items) != len(items):
        return None
    changed = [index for index, (old, new) in enumerate(zip(last.items, items, strict=True)) if old != new]
    if not changed:
        return last.image
    if len(changed) > MAX_CHANGED:
        return None
    damage = union([last.items[index].bounds() for index in changed] + [items[i].bounds() for i in changed])
    region = None if damage is None else _pixel_region(damage, scale, canvas[0])
    if region is None:  # the changed items paint nothing, before or now
        return last.image
    left, top, right, bottom = region
    if (right - left) * (bottom - top) > MAX_DAMAGE_SHARE * canvas[0][0] * canvas[0][1]:
        return None
    # on a whole canvas, as a full render paints: Pillow's shapes rasterise differently
    # on a surface that starts elsewhere
    first = changed[0]
    start, below = _snapshot_for(canvas, items, keys, first)
    surface = Surface(below or _background(scene, canvas[0]), 0, 0, scale, opaque=is_opaque(scene))
    for item in items[start:first]:  # the canvas under the first change, kept for next time
        PAINTERS[type(item)](surface, item)
    if first > start:
        _SNAPSHOTS.put(keys[first], _Painted(canvas, items[:first], surface.image.copy()), _weight(canvas[0]))
    reach = tuple(edge / scale for edge in region)
    for item in items[first:]:
        if _meets(item.bounds(), reach):
            PAINTERS[type(item)](surface, item)
    image = last.image.copy()
    image.paste(surface.image.crop(region), region[:2])
    return image


def _prefix_keys(canvas: Any, items: tuple[Item, ...]) -> list[int]:
    """A key for every prefix of ``items`` on ``canvas`` (index: the prefix's length)."""
    keys = [hash(canvas)]
    for item in items:
        keys.append(hash((keys[-1], item)))
    return keys


def _snapshot_for(
    canvas: Any, items: tuple[Item, ...], keys: list[int], longest: int
) -> tuple[int, PILImage.Image | None]:
    """The longest kept prefix of ``items`` no longer than ``longest`` (its length and a
    copy of its canvas). A matching key is checked against the items: equal keys are
    not proof."""
    for length in range(longest, 0, -1):
        snapshot = _SNAPSHOTS.get(keys[length])
        if snapshot is not None and snapshot.canvas == canvas and snapshot.items == items[:length]:
            return length, snapshot.image.copy()
    return 0, None


def _shared_prefix(previous: tuple[Item, ...], items: tuple[Item, ...]) -> int:
    count = 0
    for old, new in zip(previous, items, strict=False):
        if old != new:
            break
        count += 1
    return count


def _background(scene: Scene, size: tuple[int, int]) -> PILImage.Image:
    return PILImage.new("RGBA", size, scene.background.rgba if scene.background else (0, 0, 0, 0))


def is_opaque(scene: Scene) -> bool:
    """Whether every pixel of the scene's image is opaque: everything is drawn over an
    opaque background."""
    return scene.background is not None and scene.background.a == 255


def _pixel_region(box: Box, scale: float, size: tuple[int, int]) -> tuple[int, int, int, int] | None:
    """The canvas pixels ``box`` (grown by the margin) covers, clamped to the canvas."""
    left = max(0, math.floor((box[0] - MARGIN) * scale))
    top = max(0, math.floor((box[1] - MARGIN) * scale))
    right = min(size[0], math.ceil((box[2] + MARGIN) * scale))
    bottom = min(size[1], math.ceil((box[3] + MARGIN) * scale))
    return (left, top, right, bottom) if left < right and top < bottom else None


def _meets(box: Box | None, region: tuple[float, ...]) -> bool:
    if box is None:
        return False
    return box[0] < region[2] and region[0] < box[2] and box[1] < region[3] and region[1] < box[3]


def _weight(size: tuple[int, int]) -> int:
    return size[0] * size[1] * 4
