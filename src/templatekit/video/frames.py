"""Frames of a video template: layers that never change are painted once, the others are
moved, scaled, turned and faded per frame.

The layers are cut into a stack of *plates* and *actors*. A plate is a run of still
layers painted once into one image (the bottom plate also holds the background). An
actor is an animated layer, a layer on screen for part of the video, or a video clip:
its laid-out look is painted once into a sprite (at the largest scale it reaches, so
that it stays sharp), and each frame only transforms that sprite and composites it.
A frame whose actors all look as they did in the frame before is that frame again.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

from attrs import evolve, frozen
from PIL import Image as PILImage

from templatekit.cache import BoundedCache
from templatekit.layout.compose import background_color, background_items, layout_layers
from templatekit.layout.context import LayoutContext
from templatekit.layout.image import fitted_pixels
from templatekit.layout.scene import Group, Item, Scene, TextRun
from templatekit.model.layers import Layer, VideoLayer
from templatekit.model.template import Template
from templatekit.paint.raster import paint, paint_sprite
from templatekit.video.clips import ClipReader
from templatekit.video.timeline import LayerState, Timeline

MAX_SPRITE_SCALE = 2.0
Sprite = tuple[PILImage.Image, int, int, float]  # image, left, top (px at its scale), scale


@frozen
class _Plate:
    image: PILImage.Image
    left: int
    top: int


class _Actor:
    """One layer that changes over the video."""

    def __init__(self, layer: Layer, group: Group | None, timeline: Timeline, clip: ClipReader | None) -> None:
        self.layer = layer
        self.group = group
        self.timeline = timeline
        self.clip = clip
        self.scale = min(MAX_SPRITE_SCALE, timeline.max_scale(layer))
        self._sprites: BoundedCache[Hashable, tuple[Sprite | None]] = BoundedCache(max_entries=8, max_weight=8)

    def look(self, time: float) -> tuple[LayerState, Hashable]:
        """The layer's state and what its content is at ``time`` (the clip frame, the
        share of text typed): equal looks draw equal pixels."""
        state = self.timeline.state(self.layer, time)
        if not state.visible or self.layer.opacity * state.opacity <= 0:
            return state, None
        if self.clip is not None:
            moment, _ = self.clip.frame_at(time - self.timeline.window(self.layer)[0])
            return state, moment
        if state.reveal < 1:
            return state, _revealed_count(self.group, state.reveal)
        return state, "laid out"

    def draw(self, frame: PILImage.Image, time: float, state: LayerState, content: Hashable) -> None:
        if content is None:
            return
        cached = self._sprites.get(content)
        if cached is None:
            cached = (self._sprite(time, content),)
            self._sprites.put(content, cached, 1)
        sprite = cached[0]
        if sprite is None:
            return
        if state.zoom != 1:
            sprite = _zoomed(sprite, self.layer, state)
        _composite(frame, sprite, self.layer, state)

    def _sprite(self, time: float, content: Hashable) -> Sprite | None:
        if self.clip is not None:
            _, image = self.clip.frame_at(time - self.timeline.window(self.layer)[0])
            layer = self.layer
            items: Sequence[Item] = [
                fitted_pixels(
                    image, f"clip:{layer.name}@{content}", layer.fit, layer.x, layer.y, layer.width, layer.height
                )
            ]  # type: ignore[attr-defined]
        else:
            assert self.group is not None
            items = self.group.items
            if isinstance(content, int):
                items = _reveal(items, content)
        painted = paint_sprite(items, self.scale)
        return None if painted is None else (*painted, self.scale)


class FrameMaker:
    """Paints the frames of a laid-out video template; the frame size is the canvas made
    even (H.264 in yuv420p needs even sides), the extra row or column in the background."""

    def __init__(self, template: Template, ctx: LayoutContext) -> None:
        assert template.video is not None
        self.width = template.width + template.width % 2
        self.height = template.height + template.height % 2
        self.timeline = Timeline(template.video.duration, template.width, template.height)
        drawn = dict(layout_layers(template, ctx))
        self._stack: list[_Plate | _Actor] = []
        self.clips: list[ClipReader] = []
        still: list[Item] = list(background_items(template, ctx))
        bottom = True
        for index, layer in enumerate(template.layers):
            if not layer.visible or (index not in drawn and layer.TYPE != "video"):
                continue
            if self.timeline.is_still(layer):
                still.append(drawn[index])
                continue
            self._add_plate(still, background_color(template) if bottom else None, bottom)
            bottom, still = False, []
            clip = None
            if isinstance(layer, VideoLayer):
                clip = ClipReader(layer, ctx.assets.fetch_media(layer.src, ctx.base_dir))
                self.clips.append(clip)
            group = drawn.get(index)
            self._stack.append(
                _Actor(layer, evolve(group, opacity=1.0, rotation=0.0) if group else None, self.timeline, clip)
            )
        self._add_plate(still, background_color(template) if bottom else None, bottom)
        self._last: tuple[tuple[Hashable, ...], PILImage.Image] | None = None

    def _add_plate(self, items: list[Item], background: object, bottom: bool) -> None:
        if not items and not bottom:
            return
        image = paint(Scene(self.width, self.height, background, tuple(items)))  # type: ignore[arg-type]
        if bottom:
            self._stack.append(_Plate(_opaque(image), 0, 0))
            return
        box = image.getchannel("A").getbbox()
        if box is not None:
            self._stack.append(_Plate(image.crop(box), box[0], box[1]))

    @property
    def actors(self) -> int:
        return sum(isinstance(part, _Actor) for part in self._stack)

    def frame(self, time: float) -> PILImage.Image:
        """The RGB frame at ``time`` seconds."""
        looks = tuple(part.look(time) if isinstance(part, _Actor) else None for part in self._stack)
        if self._last is not None and self._last[0] == looks:
            return self._last[1]
        base = self._stack[0]
        assert isinstance(base, _Plate)
        frame = base.image.copy()
        for part, look in zip(self._stack[1:], looks[1:], strict=True):
            if isinstance(part, _Plate):
                frame.alpha_composite(part.image, (part.left, part.top))
            elif look is not None:
                part.draw(frame, time, *look)
        rgb = frame.convert("RGB")
        self._last = (looks, rgb)
        return rgb

    def close(self) -> None:
        for clip in self.clips:
            clip.close()


def _opaque(image: PILImage.Image) -> PILImage.Image:
    """The bottom plate over black: a video has no transparency."""
    if image.getchannel("A").getextrema() == (255, 255):
        return image
    black = PILImage.new("RGBA", image.size, (0, 0, 0, 255))
    black.alpha_composite(image)
    return black


def _revealed_count(group: Group | None, share: float) -> int:
    total = sum(len(run.text) for run in _runs(group.items)) if group is not None else 0
    return math.floor(total * share + 1e-9)


def _runs(items: Sequence[Item]) -> list[TextRun]:
    found: list[TextRun] = []
    for item in items:
        if isinstance(item, Group):
            found.extend(_runs(item.items))
        elif isinstance(item, TextRun):
            found.append(item)
    return found


def _reveal(items: Sequence[Item], count: int) -> list[Item]:
    """The items with only the first ``count`` characters of their text (in reading
    order of the runs), each run where the full text put it."""
    shown: list[Item] = []
    for item in items:
        if isinstance(item, TextRun):
            if count <= 0:
                continue
            if len(item.text) > count:
                item = evolve(item, text=item.text[:count])
            count -= len(item.text)
            shown.append(item)
        elif isinstance(item, Group):
            inner = _reveal(item.items, count)
            count -= sum(len(run.text) for run in _runs(inner))
            count = max(count, 0) if inner else count
            shown.append(evolve(item, items=tuple(inner)))
        else:
            shown.append(item)
    return shown


def _zoomed(sprite: Sprite, layer: Layer, state: LayerState) -> Sprite:
    """Ken-burns: the part of the sprite inside the layer's box, enlarged about the focus
    point and cut to the box."""
    image, left, top, scale = sprite
    box_left, box_top = math.floor(layer.x * scale), math.floor(layer.y * scale)
    width, height = max(1, round(layer.width * scale)), max(1, round(layer.height * scale))
    fx, fy = (
        layer.x * scale + state.focus[0] * layer.width * scale,
        layer.y * scale + state.focus[1] * layer.height * scale,
    )
    zoom = state.zoom
    # output pixel (u, v) of the box shows sprite pixel ((box_left + u - fx) / zoom + fx - left, ...)
    data = (1 / zoom, 0, (box_left - fx) / zoom + fx - left, 0, 1 / zoom, (box_top - fy) / zoom + fy - top)
    zoomed = image.transform((width, height), PILImage.Transform.AFFINE, data, resample=PILImage.Resampling.BILINEAR)
    return zoomed, box_left, box_top, scale


def _composite(frame: PILImage.Image, sprite: Sprite, layer: Layer, state: LayerState) -> None:
    """Draw the sprite onto the frame, moved by the state's offset, scaled and turned
    about the centre of the layer's box, and faded by its opacity."""
    image, left, top, scale = sprite
    rotation = layer.rotation if state.rotation is None else state.rotation
    opacity = layer.opacity * state.opacity
    k = state.scale / scale  # frame px per sprite px
    if rotation == 0 and k == 1 and state.dx == int(state.dx) and state.dy == int(state.dy):
        patch, x, y = image, left + int(state.dx), top + int(state.dy)
    else:
        patch, x, y = _transformed(image, left, top, scale, layer, state, rotation)
    if opacity < 1:
        patch = patch.copy()
        patch.putalpha(patch.getchannel("A").point([round(a * opacity) for a in range(256)]))
    _paste(frame, patch, x, y)


def _transformed(
    image: PILImage.Image, left: int, top: int, scale: float, layer: Layer, state: LayerState, rotation: float
) -> tuple[PILImage.Image, int, int]:
    cx, cy = layer.x + layer.width / 2, layer.y + layer.height / 2
    angle = math.radians(rotation)
    cos, sin, k = math.cos(angle), math.sin(angle), state.scale

    def forward(u: float, v: float) -> tuple[float, float]:
        px, py = (u + left) / scale - cx, (v + top) / scale - cy
        return cx + state.dx + k * (cos * px - sin * py), cy + state.dy + k * (sin * px + cos * py)

    corners = [forward(u, v) for u in (0, image.width) for v in (0, image.height)]
    x0, y0 = math.floor(min(c[0] for c in corners)), math.floor(min(c[1] for c in corners))
    x1, y1 = math.ceil(max(c[0] for c in corners)), math.ceil(max(c[1] for c in corners))
    # the inverse: frame pixel (x0 + X, y0 + Y) shows sprite pixel (a X + b Y + c, d X + e Y + f)
    ox, oy = x0 - cx - state.dx, y0 - cy - state.dy
    a, b = scale * cos / k, scale * sin / k
    d, e = -scale * sin / k, scale * cos / k
    c = scale * cx + a * ox + b * oy - left
    f = scale * cy + d * ox + e * oy - top
    size = (max(1, x1 - x0), max(1, y1 - y0))
    patch = image.transform(size, PILImage.Transform.AFFINE, (a, b, c, d, e, f), resample=PILImage.Resampling.BILINEAR)
    return patch, x0, y0


def _paste(frame: PILImage.Image, patch: PILImage.Image, x: int, y: int) -> None:
    """Alpha-composite the part of ``patch`` that falls on the frame."""
    left, top = max(0, -x), max(0, -y)
    right, bottom = min(patch.width, frame.width - x), min(patch.height, frame.height - y)
    if right <= left or bottom <= top:
        return
    frame.alpha_composite(patch, (x + left, y + top), (left, top, right, bottom))
