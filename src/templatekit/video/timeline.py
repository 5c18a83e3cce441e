"""The timeline: what a layer looks like at a moment of the video.

A layer is on screen from ``start`` for ``duration`` seconds (the whole video by
default). Its animations change its laid-out look, never its layout: opacity,
position, scale and rotation about the centre of its box, two things that act inside
the box (the ken-burns zoom, cropped to the box, and the typewriter's share of the text
shown), and its effects (blur, its first shadow, an image's filters). Several
animations combine: opacities and scales multiply, offsets add, a rotation or effect
keyframe sets the value.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs
from attrs import evolve, frozen

from templatekit.model.checks import schema_of
from templatekit.model.convert import json_name
from templatekit.model.layers import (
    PLACEMENT,
    Animation,
    ImageFilters,
    ImageLayer,
    Keyframe,
    Layer,
    Shadow,
    TextLayer,
)
from templatekit.model.values import Color
from templatekit.video.easing import easing_function

# Seconds a preset takes when its animation gives no duration.
DEFAULT_DURATIONS = {"fade-in": 0.6, "fade-out": 0.6, "slide-in": 0.8, "slide-out": 0.8, "zoom-in": 0.6}
TYPEWRITER_CHARACTERS_PER_SECOND = 20
ZOOM_IN_FROM = 0.5  # zoom-in grows the layer from half its size
KEN_BURNS_ZOOM = 1.2  # and drifts its focus across the middle of the box
KEN_BURNS_FOCUS = ((0.45, 0.55), (0.55, 0.45))
LINEAR_BY_DEFAULT = ("ken-burns", "typewriter")


@frozen
class LayerState:
    """How a layer is drawn at one moment, relative to its laid-out look."""

    visible: bool = True
    opacity: float = 1.0  # multiplies the layer's own opacity
    dx: float = 0.0
    dy: float = 0.0
    scale: float = 1.0  # about the centre of the box
    rotation: float | None = None  # degrees, replacing the layer's rotation
    zoom: float = 1.0  # ken-burns: the content enlarged inside the box, about ``focus``
    focus: tuple[float, float] = (0.5, 0.5)  # as fractions of the box
    reveal: float = 1.0  # typewriter: the share of the text shown
    #: effect and filter values at this moment (``Animation.property`` names), in order
    effects: tuple[tuple[str, float | Color], ...] = ()


HIDDEN = LayerState(visible=False)
STILL = LayerState()


@frozen
class Timeline:
    """The moments of a video template: its length and canvas, for presets that move a
    layer off the canvas or last as long as the layer does."""

    duration: float
    width: int
    height: int

    def window(self, layer: Layer) -> tuple[float, float]:
        """When the layer is on screen: [start, end)."""
        start = layer.start or 0.0
        end = start + layer.duration if layer.duration is not None else self.duration
        return start, min(end, self.duration)

    def is_still(self, layer: Layer) -> bool:
        """True when the layer looks the same for the whole video (a frame: with the
        layers it holds)."""
        start, end = self.window(layer)
        still = not layer.animations and start <= 0 and end >= self.duration and not layer.PLAYS
        return still and all(self.is_still(child) for child in getattr(layer, "layers", ()))

    def children_states(self, layer: Layer, time: float) -> tuple[LayerState, ...]:
        """The states of the layers a frame holds, at any depth, in order: equal states
        look the same."""
        children = getattr(layer, "layers", ())
        return tuple(
            state for child in children for state in (self.state(child, time), *self.children_states(child, time))
        )

    def state(self, layer: Layer, time: float) -> LayerState:
        start, end = self.window(layer)
        if not start <= time < end:
            return HIDDEN
        state = STILL
        for animation in layer.animations:
            state = self._animate(state, layer, animation, time, start, end)
        return state

    def _animate(
        self, state: LayerState, layer: Layer, animation: Animation, time: float, start: float, end: float
    ) -> LayerState:
        default = "linear" if animation.property is not None or animation.preset in LINEAR_BY_DEFAULT else "ease-out"
        ease = easing_function(animation.easing or default)
        if animation.property is not None:
            value = _keyframe_value(animation.keyframes, time - start - animation.delay, ease)
            return _with_property(state, layer, animation.property, value)
        preset = animation.preset
        begin = start + animation.delay
        if preset == "ken-burns":
            length = animation.duration or max(end - begin, 1e-9)
        elif preset == "typewriter":
            characters = _typed_characters(layer)
            length = animation.duration or max(min(characters / TYPEWRITER_CHARACTERS_PER_SECOND, end - begin), 1e-9)
        else:
            length = animation.duration or DEFAULT_DURATIONS[str(preset)]
        if preset in ("fade-out", "slide-out"):
            begin = end - animation.delay - length
        p = ease(min(1.0, max(0.0, (time - begin) / length)))
        if preset == "fade-in":
            return evolve(state, opacity=state.opacity * p)
        if preset == "fade-out":
            return evolve(state, opacity=state.opacity * (1 - p))
        if preset in ("slide-in", "slide-out"):
            dx, dy = self._off_canvas(layer, animation.from_ or "left")
            share = 1 - p if preset == "slide-in" else p
            return evolve(state, dx=state.dx + dx * share, dy=state.dy + dy * share)
        if preset == "zoom-in":
            return evolve(state, scale=state.scale * (ZOOM_IN_FROM + (1 - ZOOM_IN_FROM) * p), opacity=state.opacity * p)
        if preset == "ken-burns":
            (fx0, fy0), (fx1, fy1) = KEN_BURNS_FOCUS
            focus = (fx0 + (fx1 - fx0) * p, fy0 + (fy1 - fy0) * p)
            return evolve(state, zoom=state.zoom * (1 + (KEN_BURNS_ZOOM - 1) * p), focus=focus)
        return evolve(state, reveal=min(state.reveal, p))  # typewriter

    def _off_canvas(self, layer: Layer, side: str) -> tuple[float, float]:
        """The offset that puts the layer's box just outside the canvas on ``side``."""
        return {
            "left": (-(layer.x + layer.width), 0.0),
            "right": (self.width - layer.x, 0.0),
            "top": (0.0, -(layer.y + layer.height)),
            "bottom": (0.0, self.height - layer.y),
        }[side]

    def unseen(self, layers: Sequence[Layer]) -> Iterator[str]:
        """Warnings for what the video never shows: a layer that starts at or after its
        end, an animation whose delay outlasts its layer's time on screen (a fade-in's
        layer is never seen, a fade-out's gone from the start)."""
        for layer in layers:
            start, end = self.window(layer)
            if start >= self.duration:
                yield (
                    f"layer {layer.name!r}: starts at {start:g} s, at or after the video's end"
                    f" ({self.duration:g} s): never on screen"
                )
                continue
            for number, animation in enumerate(layer.animations):
                if animation.delay and animation.delay >= end - start:
                    yield (
                        f"layer {layer.name!r}: animations[{number}].delay: {animation.delay:g} s is as long as"
                        f" the layer's time on screen ({end - start:g} s) or longer: it never plays"
                    )
            yield from self.unseen(getattr(layer, "layers", ()))

    def max_scale(self, layer: Layer) -> float:
        """The largest the layer's content gets, to paint it sharp enough once."""
        largest = 1.0
        for animation in layer.animations:
            if animation.preset == "ken-burns":
                largest *= KEN_BURNS_ZOOM
            elif animation.property == "scale":
                largest *= max(
                    1.0, *(abs(frame.value) for frame in animation.keyframes if isinstance(frame.value, float))
                )
        return largest


def _typed_characters(layer: Layer) -> int:
    """The characters a typewriter types: those of the text as it is drawn (its spans',
    its markup's without the tags), not of the markup that writes it."""
    if not isinstance(layer, TextLayer):
        return 0
    if layer.spans:
        return sum(len(span.text) for span in layer.spans)
    if layer.markup:
        from templatekit.model.markup_parser import parse_markup  # markup only (start-up time)

        return sum(len(span.text) for span in parse_markup(layer.text))
    return len(layer.text)


def _keyframe_value(keyframes: tuple[Keyframe, ...], time: float, ease: Callable[[float], float]) -> float | Color:
    """The value at ``time`` (seconds after the animation starts): held before the first
    keyframe and after the last, eased between two."""
    frames = sorted(keyframes, key=lambda frame: frame.time)
    if time <= frames[0].time:
        return frames[0].value
    for before, after in zip(frames, frames[1:], strict=False):
        if time < after.time:
            progress = ease((time - before.time) / (after.time - before.time))
            if isinstance(before.value, Color) and isinstance(after.value, Color):
                return mixed(before.value, after.value, progress)
            assert isinstance(before.value, float) and isinstance(after.value, float)
            return before.value + (after.value - before.value) * progress
    return frames[-1].value


def mixed(first: Color, second: Color, share: float) -> Color:
    """``share`` of the way from one colour to the other, as CSS transitions mix them: in
    sRGB with premultiplied alpha (a fade from transparent does not pass through grey)."""
    alpha = first.a + (second.a - first.a) * share
    if alpha <= 0:
        return Color(0, 0, 0, 0)

    def channel(a: int, b: int) -> int:
        premultiplied = a * first.a + (b * second.a - a * first.a) * share
        return max(0, min(255, round(premultiplied / alpha)))

    return Color(channel(first.r, second.r), channel(first.g, second.g), channel(first.b, second.b), round(alpha))


def _with_property(state: LayerState, layer: Layer, name: str, value: float | Color) -> LayerState:
    if name not in PLACEMENT:
        return evolve(state, effects=(*state.effects, (name, value)))
    assert isinstance(value, float)
    if name == "opacity":
        return evolve(state, opacity=state.opacity * min(1.0, max(0.0, value)))
    if name == "x":
        return evolve(state, dx=state.dx + value - layer.x)
    if name == "y":
        return evolve(state, dy=state.dy + value - layer.y)
    if name == "scale":
        return evolve(state, scale=state.scale * value)
    return evolve(state, rotation=value)


def _targets() -> dict[str, tuple[type, str]]:
    """Each effect property: the class whose field it sets, and that field."""
    shadow = {"shadowX": "x", "shadowY": "y", "shadowBlur": "blur", "shadowSpread": "spread"}
    filters = {json_name(field.name): field.name for field in attrs.fields(ImageFilters)}
    return {
        "blur": (Layer, "blur"),
        **{name: (Shadow, field) for name, field in shadow.items()},
        **{name: (ImageFilters, field) for name, field in filters.items()},
    }


_TARGETS = _targets()


def _clamped(owner: type, field: str, value: float) -> float:
    """``value`` kept within what the field's own check allows."""
    allowed = schema_of(attrs.fields_dict(owner)[field].metadata.get("check"))
    return min(allowed.get("maximum", math.inf), max(allowed.get("minimum", -math.inf), value))


def with_effects(layer: Layer, effects: tuple[tuple[str, float | Color], ...]) -> Layer:
    """The layer as its animated effects make it at one moment: its blur, its first
    shadow (a default one when it has none) and, for an image, its filters; each value
    kept within its field's range."""
    changes: dict[str, Any] = {}
    shadows = list(layer.shadows)
    filters = layer.filters if isinstance(layer, ImageLayer) else None
    for name, raw in effects:
        if isinstance(raw, Color):  # a colour field of the layer (checked when it was loaded)
            changes[name] = raw
            continue
        owner, field = _TARGETS[name]
        value: dict[str, Any] = {field: _clamped(owner, field, raw)}
        if owner is Layer:
            changes.update(value)
        elif owner is Shadow:
            shadows[:1] = [evolve(shadows[0] if shadows else Shadow(), **value)]
            changes["shadows"] = tuple(shadows)
        elif filters is not None:
            filters = changes["filters"] = evolve(filters, **value)
    return evolve(layer, **changes)
