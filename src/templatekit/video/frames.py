"""Frames of a video template: each frame is the template's Scene at that moment
(``templatekit.video.moment``), with what does not change painted once, drawn by the
raster painter's fast path for frames (``templatekit.paint.frame``).

The layers are cut into a stack of *plates* and *actors*. A plate is a run of still
layers painted once into one picture (the bottom plate also holds the background). An
actor is an animated layer, a layer on screen for part of the video, or a video clip:
the content of each of its looks (the clip frame, the text typed so far, its effects at
their values) is painted once into a picture, at the largest scale it reaches so that
it stays sharp, and each frame places that picture as the moment's Scene says. A frame
whose actors all look as they did in the frame before is that frame again.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator

import numpy as np
from attrs import evolve, field, frozen
from PIL import Image as PILImage

from templatekit import budget
from templatekit.assets.clips import ClipReader
from templatekit.cache import BoundedCache
from templatekit.layout.captions import CaptionTrack, Shown
from templatekit.layout.compose import (
    background_color,
    background_items,
    layer_group,
    layout_function,
    layout_layers,
    mask_layer_names,
)
from templatekit.layout.context import LayoutContext
from templatekit.layout.glyph_memory import at_scale, check_glyphs_fit
from templatekit.layout.image import fitted_pixels
from templatekit.model.layers import CaptionsLayer, Layer, VideoLayer
from templatekit.model.template import Template
from templatekit.paint.canvas import paint
from templatekit.paint.frame import paint_frame, picture
from templatekit.paint.needs import canvas_needs, sprite_needs
from templatekit.paint.raster import paint_sprite
from templatekit.scene import Group, Image, Item, Scene
from templatekit.scene.geometry import IDENTITY
from templatekit.video.moment import (
    BLACK,
    Relayout,
    effect_values,
    placed_at,
    seen,
    split_blend,
    with_children_at,
    with_effect_values,
    with_items_of,
)
from templatekit.video.reveal import reveal, revealed_count
from templatekit.video.timeline import LayerState, Timeline

SPRITES_KEPT = 8

#: What plays in a layer over the video: a clip's frames, a captions layer's cues.
Player = ClipReader | CaptionTrack

MAX_SPRITE_SCALE = 2.0


@frozen
class Look:
    """How an actor appears in one frame: its state, what its content is (the clip frame
    or the share of text typed; None when it is not seen) and a clip's pixels. Equal
    looks draw equal pixels."""

    state: LayerState
    content: Hashable
    pixels: PILImage.Image | None = field(default=None, eq=False)
    group: Group | None = field(default=None, eq=False)  # the layer laid out with its animated effects


class _Actor:
    """One layer that changes over the video. ``look`` is asked in time order (it reads
    the clip); ``item`` may run in several threads at once."""

    def __init__(
        self,
        layer: Layer,
        group: Group,
        timeline: Timeline,
        player: Player | None,
        relayout: Relayout,
        held: dict[str, tuple[Layer, Player]],
    ) -> None:
        self.layer = layer
        self.group = group  # as laid out
        self.timeline = timeline
        self.clip = player if isinstance(player, ClipReader) else None
        self.track = player if isinstance(player, CaptionTrack) else None  # what a captions layer shows when
        #: the clips and captions a frame holds (by name), which play inside it
        self.held = held
        self._held_cues: dict[str, tuple[Shown, tuple[Item, ...]]] = {}  # the items of each one's last cue
        self.relayout = relayout
        self.scale = 1.0 if self.clip is not None else min(MAX_SPRITE_SCALE, timeline.max_scale(layer))
        self.blend, self.effects = split_blend(group.effects)
        self.moving_children = not all(timeline.is_still(child) for child in getattr(layer, "layers", ()))
        self._shown_key: Shown | None = None
        self._shown = group
        # the looks of one layer during one render (a few, each painted once): the working
        # set of the render, freed with it, not a cache that outlives it; bounded by count
        self._pictures: BoundedCache[Hashable, tuple[Image | None]] = BoundedCache(
            SPRITES_KEPT, max_weight=SPRITES_KEPT
        )
        self._animated: BoundedCache[Hashable, Group] = BoundedCache(SPRITES_KEPT, max_weight=SPRITES_KEPT)

    def look(self, time: float) -> Look:
        state = self.timeline.state(self.layer, time)
        if not seen(self.group, state):
            return Look(state, None)
        look = self._content(state, time)
        if self.held:  # a frame holding clips or captions: what they show is part of its look
            playing, holding = self._held_at(time, look.group or self.group)
            look = evolve(look, content=(look.content, playing), group=holding)
        if self.moving_children:  # a frame whose layers move: each of their looks is one of its own
            children = with_children_at(self.layer, look.group or self.group, self.timeline, time, self.relayout)
            states = self.timeline.children_states(self.layer, time)
            look = evolve(look, content=(look.content, states), group=children)
        if not state.effects:
            return look
        # effects moved by keyframes: a look of their own, at a hundredth of their unit
        values = effect_values(state)
        key = (look.content, values)
        varies = self.moving_children or bool(self.held)  # its group is not the same for equal values
        group = None if varies else self._animated.get(values)
        if group is None:
            group = with_effect_values(self.layer, look.group or self.group, values, self.relayout)
            if not varies:
                self._animated.put(values, group, 1)
        return evolve(look, content=key, group=group)

    def _content(self, state: LayerState, time: float) -> Look:
        if self.track is not None:
            shown = self.track.shown_at(time)
            if shown is None:
                return Look(state, None)
            if shown != self._shown_key:  # set anew when the page or the word changes
                self._shown_key, self._shown = shown, evolve(self.group, items=tuple(self.track.items(shown)))
            return Look(state, shown, group=self._shown)
        if self.clip is not None:
            moment, pixels = self.clip.frame_at(time - self.timeline.window(self.layer)[0])
            return Look(state, moment, pixels)
        if state.reveal < 1:
            return Look(state, revealed_count(self.group, state.reveal))
        return Look(state, "laid out")

    def _held_at(self, time: float, group: Group) -> tuple[tuple[Hashable, ...], Group]:
        """What the clips and captions the frame holds show at ``time`` (asked in time
        order: clips decode forward), and ``group`` with them in their layers' places."""
        playing: list[Hashable] = []
        shown: dict[str, tuple[Item, ...]] = {}
        for name, (layer, player) in self.held.items():
            start, end = self.timeline.window(layer)
            if not start <= time < end:  # off screen (the frame's own timeline hides it)
                playing.append(None)
            elif isinstance(player, CaptionTrack):
                cue = player.shown_at(time)
                playing.append(cue)
                shown[name] = () if cue is None else self._cue_items(name, player, cue)
            else:
                assert isinstance(layer, VideoLayer)
                moment, pixels = player.frame_at(time - start)
                playing.append(moment)
                box = (layer.x, layer.y, layer.width, layer.height)
                shown[name] = (fitted_pixels(pixels, f"clip:{player.key}@{moment}", layer.fit, *box),)
        return tuple(playing), with_items_of(group, shown)

    def _cue_items(self, name: str, track: CaptionTrack, cue: Shown) -> tuple[Item, ...]:
        last = self._held_cues.get(name)
        if last is None or last[0] != cue:  # laid out anew when the page or the word changes
            last = self._held_cues[name] = (cue, tuple(track.items(cue)))
        return last[1]

    def item(self, look: Look) -> Group | None:
        """The layer as the frame shows it: its look's picture placed by the moment."""
        if look.content is None:
            return None
        cached = self._pictures.get(look.content)
        if cached is None:
            cached = (self._picture(look),)
            self._pictures.put(look.content, cached, 1)  # bounded by count
        if cached[0] is None:
            return None
        shown = Group((cached[0],), opacity=self.group.opacity, label=self.layer.name, effects=self.blend)
        return placed_at(self.layer, shown, look.state)

    def _picture(self, look: Look) -> Image | None:
        """The look's content painted once: the layer's group with its clip frame or
        typed text, its clip, mask and effects (how it blends is the frame's)."""
        group = look.group or self.group
        if look.pixels is not None:
            layer = self.layer
            assert self.clip is not None
            key = f"clip:{self.clip.key}@{look.content}"
            fitted = fitted_pixels(look.pixels, key, layer.fit, layer.x, layer.y, layer.width, layer.height)  # type: ignore[attr-defined]
            group = evolve(group, items=(fitted,))
        if look.state.reveal < 1:
            group = evolve(group, items=tuple(reveal(group.items, revealed_count(self.group, look.state.reveal))))
        group = evolve(group, opacity=1.0, transform=IDENTITY, effects=split_blend(group.effects)[1])
        with budget.layer(self.layer.name):
            budget.ask(sprite_needs([group], self.scale))
        painted = paint_sprite([group], self.scale)
        if painted is None:
            return None
        image, left, top = painted
        return picture(image, left, top, self.scale, f"look:{self.layer.name}@{look.content!r}")


class FrameMaker:
    """Paints the frames of a laid-out video template. With ``even`` (as H.264 and VP9
    in yuv420p need), the frame is the canvas made even, the canvas's last column or row
    repeated into the one added. Frames are opaque, over black, unless ``transparent``:
    then they keep the alpha of the template's background and layers, unless the bottom
    plate (the background and the still layers under everything that moves) covers the
    canvas, which leaves nothing to see through."""

    def __init__(self, template: Template, ctx: LayoutContext, transparent: bool = False, even: bool = True) -> None:
        assert template.video is not None
        self.transparent = transparent
        self.canvas = (template.width, template.height)
        self.width = template.width + template.width % 2 * even
        self.height = template.height + template.height % 2 * even
        self.timeline = Timeline(template.video.duration, template.width, template.height)
        drawn = dict(layout_layers(template, ctx))
        masks = mask_layer_names(template.layers)
        self._stack: list[Image | _Actor] = []
        self.clips: list[ClipReader] = []
        still: list[Item] = list(background_items(template, ctx))
        bottom = True

        def relayout(layer: Layer) -> list[Item]:
            lay_out = layout_function(layer.TYPE)
            return lay_out(layer, ctx) if lay_out is not None else []

        for index, layer in enumerate(template.layers):
            if not layer.visible or layer.name in masks or (index not in drawn and not layer.PLAYS):
                continue
            # a blend mode mixes with what is under it: painted into a plate of its own,
            # it would mix with nothing; the bottom plate holds the background
            if self.timeline.is_still(layer) and (bottom or layer.blend == "normal"):
                check_glyphs_fit([drawn[index]], at_scale(1.0))  # as a plate is painted
                still.append(drawn[index])
                continue
            self._add_plate(still, background_color(template) if bottom else None, bottom)
            bottom, still = False, []
            inside = played_layers(getattr(layer, "layers", ()))
            held = {child.name: (child, self._player(child, ctx)) for child in inside}
            group = drawn.get(index) or layer_group(layer, [])
            player = self._player(layer, ctx) if layer.PLAYS else None
            actor = _Actor(layer, group, self.timeline, player, relayout, held)
            check_glyphs_fit([group], at_scale(actor.scale))  # as its picture is painted
            self._stack.append(actor)
        self._add_plate(still, background_color(template) if bottom else None, bottom)

    def _player(self, layer: Layer, ctx: LayoutContext) -> Player:
        """What plays in a clip or captions layer over the video."""
        if isinstance(layer, VideoLayer):
            clip = ClipReader(layer, ctx.assets.fetch_media(layer.src, ctx.base_dir))
            self.clips.append(clip)
            return clip
        assert isinstance(layer, CaptionsLayer)
        track = CaptionTrack(layer, ctx)
        if late := sum(cue.start >= self.timeline.duration for cue in track.cues):
            ending = f"{self.timeline.duration:g} s"
            ctx.warn(layer.name, f"{late} of its cues start at or after the video's end ({ending}): never shown")
        return track

    def _add_plate(self, items: list[Item], background: object, bottom: bool) -> None:
        """Still layers painted once into a picture (cut to what they cover); the bottom
        one with the background, over black unless the frames are transparent."""
        if not items and not bottom:
            return
        size = self.canvas if bottom else (self.width, self.height)
        plate = Scene(*size, background, tuple(items))  # type: ignore[arg-type]
        budget.ask(canvas_needs(plate, 1.0))
        image = paint(plate)
        if bottom:
            if image.getchannel("A").getextrema()[0] == 255:
                self.transparent = False  # nothing to see through: the frames are opaque
            elif not self.transparent:  # seen through to black
                black = PILImage.new("RGBA", image.size, BLACK.rgba)
                black.alpha_composite(image)
                image = black
            self._stack.append(picture(image, 0, 0, 1.0, "plate:bottom"))
            return
        box = image.getchannel("A").getbbox()
        if box is not None:
            self._stack.append(picture(image.crop(box), box[0], box[1], 1.0, f"plate:{len(self._stack)}"))

    @property
    def actors(self) -> int:
        return sum(isinstance(part, _Actor) for part in self._stack)

    def looks(self, time: float) -> tuple[Look | None, ...]:
        """How each part of the stack appears at ``time`` (None for plates): asked in
        time order, since clips decode forward."""
        return tuple(part.look(time) if isinstance(part, _Actor) else None for part in self._stack)

    def scene(self, looks: tuple[Look | None, ...]) -> Scene:
        """The frame's Scene for ``looks``: the plates and the actors as the moment places them."""
        items: list[Item] = []
        for part, look in zip(self._stack, looks, strict=True):
            if isinstance(part, Image):
                items.append(part)
            elif look is not None and (shown := part.item(look)) is not None:
                items.append(shown)
        return Scene(self.width, self.height, None if self.transparent else BLACK, tuple(items))

    def compose(self, looks: tuple[Look | None, ...]) -> np.ndarray:
        """The frame for ``looks`` (premultiplied RGBA; opaque unless the frames are
        transparent); safe to call from several threads."""
        frame = paint_frame(self.scene(looks))
        width, height = self.canvas  # the added column and row repeat the canvas's last ones,
        if self.width > width:  # whatever is painted there (an actor at the edge too)
            frame[:, width:] = frame[:, width - 1 : width]
        if self.height > height:
            frame[height:] = frame[height - 1 : height]
        return frame

    def frame(self, time: float) -> PILImage.Image:
        """The frame at ``time`` seconds as an RGB image."""
        return PILImage.fromarray(self.compose(self.looks(time))).convert("RGB")

    def close(self) -> None:
        for clip in self.clips:
            clip.close()


def played_layers(layers: Iterable[Layer]) -> Iterator[Layer]:
    """The clips and captions among ``layers`` and the frames they hold, at any depth,
    that are shown (not those of a hidden frame)."""
    for layer in layers:
        if layer.visible:
            if layer.PLAYS:
                yield layer
            yield from played_layers(getattr(layer, "layers", ()))
