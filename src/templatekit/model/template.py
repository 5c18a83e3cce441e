"""The template: canvas, fonts, optional video settings and the layer stack."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import attrs
from attrs import frozen

from templatekit.model.checks import (
    MAX_NAME,
    SOURCE,
    WEIGHT_STEP,
    at_most_items,
    between,
    field,
    max_length,
    non_negative,
)
from templatekit.model.layers import (
    COLOURS,
    DEFAULT_LOCALE,
    FILTERS,
    LOCALE,
    MAX_FRAME_DEPTH,
    NAME,
    AnyLayer,
    Fit,
    FrameLayer,
    family,
    layer_paths,
    walk_layers,
)
from templatekit.model.values import Color, Gradient, Source

MAX_SIDE = 10_000
#: a video's frames at most 4K (DCI's 4096x2160, or turned on its side): each frame is
#: painted, held a few frames ahead and encoded, 35 MB apiece at this size
MAX_VIDEO_SIDE = 4096
MAX_VIDEO_PIXELS = 4096 * 2160
MAX_PIXELS = 50_000_000
MAX_LAYERS = 500
#: Font faces of a template: every weight and style of several families.
MAX_FONTS = 32
#: How many layers deep masks may nest (a mask's layer masked by another…): each level
#: is one more surface painted for every pixel of the masked layer.
MAX_MASK_DEPTH = 16


@frozen(kw_only=True)
class FontSource:
    """An extra font face; ``src`` is a path relative to the template, a URL or a data URI."""

    family: str = family()
    src: Source = field(check=SOURCE)
    weight: int = field(400, check=between(100, 900), schema=WEIGHT_STEP)
    style: Literal["normal", "italic"] = "normal"


@frozen(kw_only=True)
class BackgroundImage:
    src: Source = field(check=SOURCE)
    fit: Fit = "cover"


@frozen(kw_only=True)
class GifSettings:
    """How a video is written as an animated GIF: at most ``fps`` frames a second (GIF
    delays are in hundredths of a second) and ``width`` pixels wide (scaled down keeping
    the ratio), its colours dithered or not."""

    fps: int = field(15, check=between(1, 50))
    width: int = field(640, check=between(16, MAX_SIDE))
    dither: bool = True


@frozen(kw_only=True)
class WebpSettings:
    """How a video is written as an animated WebP: lossy at ``quality`` (0–100) or
    lossless, at most ``fps`` frames a second."""

    lossless: bool = False
    quality: int = field(80, check=between(0, 100))
    fps: int = field(30, check=between(1, 60))


#: how far past a whole number of frames a duration may be from float arithmetic alone
#: (2.3 s × 30 fps is 69.00000000000001 frames)
FRAME_NOISE = 1e-6


@frozen(kw_only=True)
class VideoSettings:
    duration: float = field(check=between(0.1, 300), schema={"examples": [5]})
    fps: int = field(30, check=between(1, 60))
    poster: float | None = field(None, check=between(0, 300))
    gif: GifSettings = GifSettings()
    webp: WebpSettings = WebpSettings()

    def problems(self) -> Iterator[tuple[str, str]]:
        if self.poster is not None and self.poster > self.duration:
            yield "poster", f"must be within the video ({self.poster:g} > {self.duration:g})"

    def frame_count(self, fps: int) -> int:
        """Frames of the video at ``fps``: frame n shows the moment n / fps, and the last
        is shown until the duration has passed (a video lasts at least its duration)."""
        return max(1, math.ceil(self.duration * fps - FRAME_NOISE))

    @property
    def last_moment(self) -> float:
        """The moment the video's last frame shows: a still asked for a moment after it
        (the end itself, where every layer's time on screen is over) shows this one."""
        return (self.frame_count(self.fps) - 1) / self.fps


@frozen(kw_only=True)
class AudioTrack:
    """Music under a video: ``volume`` multiplies it; it fades to silence over the last
    ``fade_out`` seconds of the video."""

    src: Source = field(check=SOURCE)
    volume: float = field(1.0, check=between(0, 4))
    fade_out: float = field(0.0, check=non_negative)


@frozen(kw_only=True)
class Template:
    """A reusable design. ``base_dir`` (where relative paths of images and fonts
    resolve) and ``load_warnings`` (unknown fields dropped when loading) are not part
    of the JSON."""

    name: str = field(check=NAME)
    width: int = field(check=between(1, MAX_SIDE))
    height: int = field(check=between(1, MAX_SIDE))
    id: str | None = field(None, check=max_length(MAX_NAME))
    background: Color | Gradient | BackgroundImage | None = None
    locale: str = field(DEFAULT_LOCALE, check=LOCALE)  # how formatted values are written, unless their format says
    fonts: tuple[FontSource, ...] = field((), check=at_most_items(MAX_FONTS))
    video: VideoSettings | None = None
    audio: AudioTrack | None = None
    layers: tuple[AnyLayer, ...] = field((), check=at_most_items(MAX_LAYERS))
    base_dir: Path | None = field(None, eq=False, repr=False)
    load_warnings: tuple[str, ...] = field((), eq=False, repr=False)

    def problems(self) -> Iterator[tuple[str, str]]:
        if self.width * self.height > MAX_PIXELS:
            yield "width", f"canvas is {self.width}x{self.height}, more than {MAX_PIXELS // 1_000_000} MP"
        seen: set[str] = set()
        for path, layer, _ in layer_paths(self.layers):
            if layer.name in seen:
                yield f"{path}.name", f"{layer.name!r} is used by an earlier layer; names must be unique"
            seen.add(layer.name)
            if layer.PLAYS and self.video is None:
                yield f"{path}.type", f"{layer.kind} layers need a video template (add a 'video' field)"
            for number, animation in enumerate(layer.animations):
                where = f"{path}.animations[{number}].property"
                if animation.property in FILTERS and layer.TYPE != "image":
                    yield where, f"{animation.property!r} animates an image's filters; this is a {layer.kind} layer"
                if animation.property is not None and animation.property in COLOURS:
                    yield from _colour_problems(where, layer, animation.property)
            if isinstance(layer, FrameLayer) and path.count(".layers[") >= MAX_FRAME_DEPTH:  # inside 16 frames
                yield path, f"frames nest more than {MAX_FRAME_DEPTH} deep"
        if len(seen) > MAX_LAYERS:
            yield (
                "layers",
                f"must have at most {MAX_LAYERS:,} layers in all, frames' layers included (got {len(seen):,})",
            )
        yield from self.size_problems()
        yield from self.mask_problems()
        if self.audio is not None and self.video is None:
            yield "audio", "a soundtrack needs a video template (add a 'video' field)"

    def frames_too_large(self) -> str | None:
        """Why the video of this template is not made (its frames are over 4K), or None.
        Asked when a video is, not when the template is read: a still of a larger video
        template is a still like any other, and templates stored before this limit read
        as they did."""
        if max(self.width, self.height) <= MAX_VIDEO_SIDE and self.width * self.height <= MAX_VIDEO_PIXELS:
            return None
        return (
            f"width: a video is at most 4K, {MAX_VIDEO_SIDE} px a side and 4096x2160 pixels in all"
            f" (got {self.width}x{self.height})"
        )

    def size_problems(self) -> Iterator[tuple[str, str]]:
        """``"hug"`` and ``"fill"`` where they mean something: on kinds with a size of
        their own, in frames that have room to share."""
        for path, layer, frame in layer_paths(self.layers):
            for side, message in layer.sizing_problems():
                yield f"{path}.{side}", message
            yield from _fill_problems(path, layer, frame)

    def mask_problems(self) -> Iterator[tuple[str, str]]:
        """Masks of the template's layers and of each frame's: see ``_mask_problems``."""
        everywhere = {layer.name for layer in walk_layers(self.layers)}
        yield from _mask_problems(self.layers, "layers", everywhere)
        for path, layer, _ in layer_paths(self.layers):
            if isinstance(layer, FrameLayer):
                yield from _mask_problems(layer.layers, f"{path}.layers", everywhere)

    def layer(self, name: str) -> AnyLayer | None:
        """The layer named ``name``, at any depth of frames."""
        return next((layer for layer in walk_layers(self.layers) if layer.name == name), None)


def _colour_problems(where: str, layer: AnyLayer, name: str) -> Iterator[tuple[str, str]]:
    """A colour animation needs the colour it moves: a field of the layer, and a solid one."""
    if name not in attrs.fields_dict(type(layer)):  # the JSON names are the fields' own
        yield where, f"a {layer.kind} layer has no {name!r} to animate"
    elif isinstance(getattr(layer, name), Gradient):
        yield where, f"the layer's {name} is a gradient, which is not animatable; give it a colour"


def _fill_problems(path: str, layer: AnyLayer, frame: FrameLayer | None) -> Iterator[tuple[str, str]]:
    """``"fill"`` is the space a row or column frame leaves; elsewhere there is none."""
    for side, mode in (("width", layer.width_sizing), ("height", layer.height_sizing)):
        if mode == "fill" and (frame is None or frame.layout == "none"):
            where = "outside a frame" if frame is None else f'in frame {frame.name!r}, whose layout is "none"'
            yield f"{path}.{side}", f'"fill" takes the space a row or column frame leaves; this layer is {where}'
        if mode == "hug" and frame is None and not isinstance(layer, FrameLayer):
            yield (
                f"{path}.{side}",
                '"hug" sizes a frame, or a layer in a frame; this layer is outside any: give a number',
            )


def _mask_problems(layers: tuple[AnyLayer, ...], at: str, everywhere: set[str]) -> Iterator[tuple[str, str]]:
    """A mask names another layer beside it (of the same frame, or of the template's
    top level), masks do not go round in a circle, and they nest at most
    ``MAX_MASK_DEPTH`` deep (a mask's own mask may be a layer, as long as the chain ends
    soon): each chain is followed that far, no further."""
    masks = {layer.name: layer.mask.layer for layer in layers if layer.mask and layer.mask.layer}
    names = {layer.name for layer in layers}
    too_deep: set[str] = set()  # the layers of a chain already reported
    for index, layer in enumerate(layers):
        target = masks.get(layer.name)
        if target is None or layer.name in too_deep:
            continue
        where = f"{at}[{index}].mask.layer"
        chain = mask_chain(layer.name, masks, MAX_MASK_DEPTH + 1)
        if target == layer.name:
            yield where, f"a layer cannot be its own mask ({target!r})"
        elif target in everywhere and target not in names:
            yield where, f"{target!r} is not beside this layer: a mask is a layer of the same frame"
        elif target not in names:
            yield where, f"no layer is named {target!r}"
        elif chain[-1] in chain[:-1]:
            yield where, f"masks go round in a circle ({' -> '.join(chain)})"
        elif len(chain) > MAX_MASK_DEPTH + 1:
            too_deep.update(mask_chain(layer.name, masks, len(masks)))
            shown = " -> ".join([*chain[:3], "…"])
            yield where, f"masks nest more than {MAX_MASK_DEPTH} layers deep from {layer.name!r} ({shown})"


def mask_chain(name: str, masks: dict[str, str], depth: int) -> list[str]:
    """``name``, the layer that masks it, the one that masks that…, at most ``depth``
    steps; it ends where a name comes again (a circle)."""
    chain = [name]
    while chain[-1] in masks and len(chain) <= depth:
        chain.append(masks[chain[-1]])
        if chain[-1] in chain[:-1]:
            break
    return chain
