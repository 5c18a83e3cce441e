"""Frames of a video template: layers that never change are painted once, the others are
moved, scaled, turned and faded per frame.

The layers are cut into a stack of *plates* and *actors*. A plate is a run of still
layers painted once into one image (the bottom plate also holds the background). An
actor is an animated layer, a layer on screen for part of the video, or a video clip:
its laid-out look is painted once into a sprite (at the largest scale it reaches, so
that it stays sharp), and each frame only transforms that sprite and composites it.
A frame whose actors all look as they did in the frame before is that frame again.

Frames are RGBA arrays (the alpha channel unused: frames are opaque) composited with
OpenCV. Plates and sprites are kept premultiplied, so that drawing one is a multiply
and an add, and resampling one does not darken its edges.
"""

from __future__ import annotations

import math
from collections.abc import Hashable

import cv2
import numpy as np
from attrs import evolve, field, frozen
from PIL import Image as PILImage

from templatekit import budget
from templatekit.assets.clips import ClipReader
from templatekit.cache import BoundedCache
from templatekit.geometry import IDENTITY
from templatekit.layout.compose import (
    background_color,
    background_items,
    layout_function,
    layout_layers,
    mask_layer_names,
)
from templatekit.layout.context import LayoutContext
from templatekit.layout.glyph_memory import at_scale, check_glyphs_fit
from templatekit.layout.image import fitted_pixels
from templatekit.model.layers import Layer, VideoLayer
from templatekit.model.template import Template
from templatekit.paint.canvas import paint
from templatekit.paint.needs import canvas_needs, sprite_needs
from templatekit.paint.raster import paint_sprite
from templatekit.scene import Group, Item, Scene
from templatekit.video.moment import Relayout, effect_values, with_effect_values
from templatekit.video.reveal import reveal, revealed_count
from templatekit.video.timeline import LayerState, Timeline

SPRITES_KEPT = 8

MAX_SPRITE_SCALE = 2.0


@frozen
class _Plate:
    """Premultiplied RGBA pixels and 255 minus their alpha (in all four channels), placed
    at (left, top); the bottom plate is opaque and has no ``inverse``."""

    pixels: np.ndarray = field(eq=False)
    inverse: np.ndarray | None = field(eq=False)
    left: int
    top: int


@frozen
class Look:
    """How an actor appears in one frame: its state, what its content is (the clip frame
    or the share of text typed; None when it is not seen) and a clip's pixels. Equal
    looks draw equal pixels."""

    state: LayerState
    content: Hashable
    pixels: PILImage.Image | None = field(default=None, eq=False)
    group: Group | None = field(default=None, eq=False)  # the layer laid out with its animated effects


@frozen
class _Sprite:
    pixels: np.ndarray = field(eq=False)  # premultiplied RGBA
    left: int  # pixels at ``scale``
    top: int
    scale: float
    opaque: bool  # every pixel fully covered: copied, not blended

    @property
    def size(self) -> tuple[int, int]:
        return self.pixels.shape[1], self.pixels.shape[0]


class _Actor:
    """One layer that changes over the video. ``look`` is asked in time order (it reads
    the clip); ``draw`` may run in several threads at once."""

    def __init__(
        self, layer: Layer, group: Group | None, timeline: Timeline, clip: ClipReader | None, relayout: Relayout
    ) -> None:
        self.layer = layer
        self.group = group
        self.timeline = timeline
        self.clip = clip
        self.relayout = relayout
        self.scale = 1.0 if clip is not None else min(MAX_SPRITE_SCALE, timeline.max_scale(layer))
        # the looks of one layer during one render (a few, each drawn once): the working
        # set of the render, freed with it, not a cache that outlives it; bounded by count
        self._sprites: BoundedCache[Hashable, tuple[_Sprite | None]] = BoundedCache(
            SPRITES_KEPT, max_weight=SPRITES_KEPT
        )
        self._animated: BoundedCache[Hashable, Group] = BoundedCache(SPRITES_KEPT, max_weight=SPRITES_KEPT)

    def look(self, time: float) -> Look:
        state = self.timeline.state(self.layer, time)
        if not state.visible or self.layer.opacity * state.opacity <= 0:
            return Look(state, None)
        look = self._content(state, time)
        if not state.effects:
            return look
        # effects moved by keyframes: a look of their own, at a hundredth of their unit
        values = effect_values(state)
        group = self._animated.get(values)
        if group is None:
            group = with_effect_values(self.layer, self.group or Group(()), values, self.relayout)
            self._animated.put(values, group, 1)
        return evolve(look, content=(look.content, values), group=group)

    def _content(self, state: LayerState, time: float) -> Look:
        if self.clip is not None:
            moment, pixels = self.clip.frame_at(time - self.timeline.window(self.layer)[0])
            return Look(state, moment, pixels)
        if state.reveal < 1:
            return Look(state, revealed_count(self.group, state.reveal))
        return Look(state, "laid out")

    def draw(self, frame: np.ndarray, look: Look) -> None:
        if look.content is None:
            return
        cached = self._sprites.get(look.content)
        if cached is None:
            cached = (self._sprite(look),)
            self._sprites.put(look.content, cached, 1)  # bounded by count
        sprite = cached[0]
        if sprite is not None:
            _composite(frame, sprite, self.layer, look.state)

    def _sprite(self, look: Look) -> _Sprite | None:
        """The look painted once: the layer's group with its clip, mask and effects (its
        opacity, turn and blend mode are applied per frame)."""
        group = look.group or self.group or Group(())
        if look.pixels is not None:
            layer = self.layer
            key = f"clip:{layer.name}@{look.content}"
            fitted = fitted_pixels(look.pixels, key, layer.fit, layer.x, layer.y, layer.width, layer.height)  # type: ignore[attr-defined]
            group = evolve(group, items=(fitted,))
        content = look.content[0] if isinstance(look.content, tuple) else look.content
        if isinstance(content, int):
            group = evolve(group, items=tuple(reveal(group.items, content)))
        if group.effects is not None and group.effects.blend != "normal":
            group = evolve(group, effects=evolve(group.effects, blend="normal"))
        with budget.layer(self.layer.name):
            budget.ask(sprite_needs([group], self.scale))
        painted = paint_sprite([group], self.scale)
        if painted is None:
            return None
        image, left, top = painted
        opaque = image.getchannel("A").getextrema() == (255, 255)
        return _Sprite(np.asarray(image.convert("RGBa")), left, top, self.scale, opaque)


class FrameMaker:
    """Paints the frames of a laid-out video template; the frame size is the canvas made
    even (H.264 in yuv420p needs even sides), the extra row or column in the background."""

    def __init__(self, template: Template, ctx: LayoutContext) -> None:
        assert template.video is not None
        self.width = template.width + template.width % 2
        self.height = template.height + template.height % 2
        self.timeline = Timeline(template.video.duration, template.width, template.height)
        drawn = dict(layout_layers(template, ctx))
        masks = mask_layer_names(template)
        self._stack: list[_Plate | _Actor] = []
        self.clips: list[ClipReader] = []
        still: list[Item] = list(background_items(template, ctx))
        bottom = True

        def relayout(layer: Layer) -> list[Item]:
            lay_out = layout_function(layer.TYPE)
            return lay_out(layer, ctx) if lay_out is not None else []

        for index, layer in enumerate(template.layers):
            if not layer.visible or layer.name in masks or (index not in drawn and layer.TYPE != "video"):
                continue
            # a blend mode mixes with what is under it: painted into a plate of its own,
            # it would mix with nothing; the bottom plate holds the background
            if self.timeline.is_still(layer) and (bottom or layer.blend == "normal"):
                check_glyphs_fit([drawn[index]], at_scale(1.0))  # as a plate is painted
                still.append(drawn[index])
                continue
            self._add_plate(still, background_color(template) if bottom else None, bottom)
            bottom, still = False, []
            clip = None
            if isinstance(layer, VideoLayer):
                clip = ClipReader(layer, ctx.assets.fetch_media(layer.src, ctx.base_dir))
                self.clips.append(clip)
            group = drawn.get(index)
            actor = _Actor(
                layer, evolve(group, opacity=1.0, transform=IDENTITY) if group else None, self.timeline, clip, relayout
            )
            check_glyphs_fit([group] if group else [], at_scale(actor.scale))  # as its sprite is painted
            self._stack.append(actor)
        self._add_plate(still, background_color(template) if bottom else None, bottom)

    def _add_plate(self, items: list[Item], background: object, bottom: bool) -> None:
        if not items and not bottom:
            return
        plate = Scene(self.width, self.height, background, tuple(items))  # type: ignore[arg-type]
        budget.ask(canvas_needs(plate, 1.0))
        image = paint(plate)
        if bottom:  # over black: a video has no transparency
            black = PILImage.new("RGBA", image.size, (0, 0, 0, 255))
            black.alpha_composite(image)
            self._stack.append(_Plate(np.asarray(black), None, 0, 0))
            return
        box = image.getchannel("A").getbbox()
        if box is not None:
            pixels = np.asarray(image.crop(box).convert("RGBa"))
            self._stack.append(_Plate(pixels, _inverse_alpha(pixels), box[0], box[1]))

    @property
    def actors(self) -> int:
        return sum(isinstance(part, _Actor) for part in self._stack)

    def looks(self, time: float) -> tuple[Look | None, ...]:
        """How each part of the stack appears at ``time`` (None for plates): asked in
        time order, since clips decode forward."""
        return tuple(part.look(time) if isinstance(part, _Actor) else None for part in self._stack)

    def compose(self, looks: tuple[Look | None, ...]) -> np.ndarray:
        """The frame for ``looks`` (RGBA, opaque); safe to call from several threads."""
        base = self._stack[0]
        assert isinstance(base, _Plate)
        frame = base.pixels.copy()
        for part, look in zip(self._stack[1:], looks[1:], strict=True):
            if isinstance(part, _Plate):
                _blend(frame, part.pixels, part.inverse, part.left, part.top)
            elif look is not None:
                part.draw(frame, look)
        return frame

    def frame(self, time: float) -> PILImage.Image:
        """The frame at ``time`` seconds as an RGB image."""
        return PILImage.fromarray(self.compose(self.looks(time))).convert("RGB")

    def close(self) -> None:
        for clip in self.clips:
            clip.close()


def _inverse_alpha(pixels: np.ndarray) -> np.ndarray:
    """255 minus the alpha of RGBA pixels, in all four channels."""
    return cv2.cvtColor(255 - pixels[:, :, 3], cv2.COLOR_GRAY2RGBA)


def _blend(frame: np.ndarray, pixels: np.ndarray, inverse: np.ndarray | None, x: int, y: int) -> None:
    """Premultiplied RGBA pixels over the frame at (x, y), cut to the frame, in place:
    frame = pixels + frame * (255 - alpha) / 255."""
    height, width = pixels.shape[:2]
    left, top = max(0, -x), max(0, -y)
    right, bottom = min(width, frame.shape[1] - x), min(height, frame.shape[0] - y)
    if right <= left or bottom <= top:
        return
    region = frame[y + top : y + bottom, x + left : x + right]
    pixels = pixels[top:bottom, left:right]
    inverse = _inverse_alpha(pixels) if inverse is None else inverse[top:bottom, left:right]
    cv2.add(cv2.multiply(region, inverse, scale=1 / 255), pixels, dst=region)


def _composite(frame: np.ndarray, sprite: _Sprite, layer: Layer, state: LayerState) -> None:
    """Draw the sprite onto the frame as the state says: zoomed inside the layer's box
    (ken-burns), moved, scaled and turned about the box's centre, faded."""
    rotation = layer.rotation if state.rotation is None else state.rotation
    opacity = layer.opacity * state.opacity
    height, width = frame.shape[:2]
    placed: tuple[tuple[float, ...] | None, tuple[int, int, int, int]] | None
    if state.zoom != 1 and not rotation:
        placed = _zoomed_placement(sprite, layer, state, (width, height))
    else:
        if state.zoom != 1:
            sprite = _zoomed(sprite, layer, state)
        placed = _placement(sprite, layer, state, rotation, (width, height))
    if placed is None:
        return
    inverse_map, (x0, y0, x1, y1) = placed
    covers = sprite.opaque and opacity >= 1 and not rotation and layer.blend == "normal"
    if inverse_map is None:  # moved by whole pixels: the sprite as it is
        patch = sprite.pixels[y0 - sprite.top - int(state.dy) :, x0 - sprite.left - int(state.dx) :][
            : y1 - y0, : x1 - x0
        ]
    elif covers:  # resampled straight into the frame
        _warp(sprite.pixels, inverse_map, (x1 - x0, y1 - y0), frame[y0:y1, x0:x1])
        return
    else:
        patch = _warp(sprite.pixels, inverse_map, (x1 - x0, y1 - y0))
    if covers:
        frame[y0:y1, x0:x1] = patch
        return
    if opacity < 1:
        patch = cv2.convertScaleAbs(patch, alpha=opacity)
    if layer.blend != "normal":
        from templatekit.paint.blending import blend_over_opaque

        region = frame[y0 : y0 + patch.shape[0], x0 : x0 + patch.shape[1]]
        region[..., :3] = blend_over_opaque(region[..., :3], patch, layer.blend)
        return
    _blend(frame, patch, None, x0, y0)


def _placement(
    sprite: _Sprite, layer: Layer, state: LayerState, rotation: float, size: tuple[int, int]
) -> tuple[tuple[float, ...] | None, tuple[int, int, int, int]] | None:
    """Where the sprite lands on the frame (x0, y0, x1, y1, cut to the frame) and the
    inverse map from that rectangle to the sprite; no map when the sprite only moves by
    whole pixels. None when nothing of it is on the frame."""
    s, k = sprite.scale, state.scale
    width, height = sprite.size
    if not rotation and k == s == 1 and state.dx.is_integer() and state.dy.is_integer():
        x, y = sprite.left + int(state.dx), sprite.top + int(state.dy)
        box = (max(0, x), max(0, y), min(size[0], x + width), min(size[1], y + height))
        return (None, box) if box[2] > box[0] and box[3] > box[1] else None
    cx, cy = layer.x + layer.width / 2, layer.y + layer.height / 2
    angle = math.radians(rotation)
    cos, sin = math.cos(angle), math.sin(angle)

    def forward(u: float, v: float) -> tuple[float, float]:
        px, py = (u + sprite.left) / s - cx, (v + sprite.top) / s - cy
        return cx + state.dx + k * (cos * px - sin * py), cy + state.dy + k * (sin * px + cos * py)

    corners = [forward(u, v) for u in (0, width) for v in (0, height)]
    x0 = max(0, math.floor(min(c[0] for c in corners) + 1e-6))
    y0 = max(0, math.floor(min(c[1] for c in corners) + 1e-6))
    x1 = min(size[0], math.ceil(max(c[0] for c in corners) - 1e-6))
    y1 = min(size[1], math.ceil(max(c[1] for c in corners) - 1e-6))
    if x1 <= x0 or y1 <= y0:
        return None
    # frame pixel (x0 + X, y0 + Y) shows sprite pixel (a X + b Y + c, d X + e Y + f)
    a, b, d, e = s * cos / k, s * sin / k, -s * sin / k, s * cos / k
    ox, oy = x0 - cx - state.dx, y0 - cy - state.dy
    c = s * cx + a * ox + b * oy - sprite.left
    f = s * cy + d * ox + e * oy - sprite.top
    return (a, b, c, d, e, f), (x0, y0, x1, y1)


def _zoomed_placement(
    sprite: _Sprite, layer: Layer, state: LayerState, size: tuple[int, int]
) -> tuple[tuple[float, ...], tuple[int, int, int, int]] | None:
    """``_placement`` for a zoomed (ken-burns) sprite without rotation, in one resample:
    the layer's box, moved and scaled, shows the sprite enlarged about the focus point."""
    s, k, z = sprite.scale, state.scale, state.zoom
    cx, cy = layer.x + layer.width / 2, layer.y + layer.height / 2
    fx, fy = layer.x + state.focus[0] * layer.width, layer.y + state.focus[1] * layer.height
    x0 = max(0, math.ceil(cx + state.dx + k * (layer.x - cx) - 1e-6))
    y0 = max(0, math.ceil(cy + state.dy + k * (layer.y - cy) - 1e-6))
    x1 = min(size[0], math.floor(cx + state.dx + k * (layer.x + layer.width - cx) + 1e-6))
    y1 = min(size[1], math.floor(cy + state.dy + k * (layer.y + layer.height - cy) + 1e-6))
    if x1 <= x0 or y1 <= y0:
        return None
    step = s / (k * z)  # sprite pixels per frame pixel
    c = s * (fx + ((x0 - cx - state.dx) / k + cx - fx) / z) - sprite.left
    f = s * (fy + ((y0 - cy - state.dy) / k + cy - fy) / z) - sprite.top
    return (step, 0.0, c, 0.0, step, f), (x0, y0, x1, y1)


def _zoomed(sprite: _Sprite, layer: Layer, state: LayerState) -> _Sprite:
    """Ken-burns: the part of the sprite inside the layer's box, enlarged about the focus
    point and cut to the box."""
    s, z = sprite.scale, state.zoom
    left, top = math.floor(layer.x * s), math.floor(layer.y * s)
    width, height = max(1, round(layer.width * s)), max(1, round(layer.height * s))
    fx, fy = (layer.x + state.focus[0] * layer.width) * s, (layer.y + state.focus[1] * layer.height) * s
    data = (1 / z, 0.0, (left - fx) / z + fx - sprite.left, 0.0, 1 / z, (top - fy) / z + fy - sprite.top)
    return _Sprite(_warp(sprite.pixels, data, (width, height)), left, top, s, sprite.opaque)


def _warp(
    pixels: np.ndarray, inverse: tuple[float, ...], size: tuple[int, int], into: np.ndarray | None = None
) -> np.ndarray:
    """Premultiplied RGBA pixels resampled (bilinear) so that output pixel (X, Y) shows the source at
    (a X + b Y + c, d X + e Y + f), in coordinates where pixels are unit squares from 0;
    outside the source is transparent. OpenCV does it four to eight times faster than
    Pillow's resize and transform, which matters once per frame per moving layer."""
    a, b, c, d, e, f = inverse
    # OpenCV samples at pixel centres: output centre X + 1/2 -> source point -> minus 1/2
    matrix = np.array(
        [[a, b, c + (a + b) / 2 - 0.5], [d, e, f + (d + e) / 2 - 0.5]],
        dtype=np.float64,
    )
    if into is not None:  # an opaque sprite: pixels outside it leave ``into`` as it was
        return cv2.warpAffine(
            pixels,
            matrix,
            size,
            dst=into,
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_TRANSPARENT,
        )
    return cv2.warpAffine(
        pixels,
        matrix,
        size,
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0, 0),
    )
