"""The template: canvas, fonts, optional video settings and the layer stack."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from attrs import frozen

from templatekit.model.checks import FONT_FAMILY, WEIGHT_STEP, between, field, non_empty, non_negative
from templatekit.model.layers import FILTERS, AnyLayer, Fit
from templatekit.model.values import Color, Source

MAX_SIDE = 10_000
MAX_PIXELS = 50_000_000
MAX_LAYERS = 500


@frozen(kw_only=True)
class FontSource:
    """An extra font face; ``src`` is a path relative to the template, a URL or a data URI."""

    family: str = field(check=non_empty, schema=FONT_FAMILY)
    src: Source = field(check=non_empty)
    weight: int = field(400, check=between(100, 900), schema=WEIGHT_STEP)
    style: Literal["normal", "italic"] = "normal"


@frozen(kw_only=True)
class BackgroundImage:
    src: Source = field(check=non_empty)
    fit: Fit = "cover"


@frozen(kw_only=True)
class VideoSettings:
    duration: float = field(check=between(0.1, 300), schema={"examples": [5]})
    fps: int = field(30, check=between(1, 60))
    poster: float | None = field(None, check=between(0, 300))

    def problems(self) -> Iterator[tuple[str, str]]:
        if self.poster is not None and self.poster > self.duration:
            yield "poster", f"must be within the video ({self.poster:g} > {self.duration:g})"


@frozen(kw_only=True)
class AudioTrack:
    """Music under a video: ``volume`` multiplies it; it fades to silence over the last
    ``fade_out`` seconds of the video."""

    src: Source = field(check=non_empty)
    volume: float = field(1.0, check=between(0, 4))
    fade_out: float = field(0.0, check=non_negative)


@frozen(kw_only=True)
class Template:
    """A reusable design. ``base_dir`` (where relative paths of images and fonts
    resolve) and ``load_warnings`` (unknown fields dropped when loading) are not part
    of the JSON."""

    name: str = field(check=non_empty)
    width: int = field(check=between(1, MAX_SIDE))
    height: int = field(check=between(1, MAX_SIDE))
    id: str | None = None
    background: Color | BackgroundImage | None = None
    fonts: tuple[FontSource, ...] = ()
    video: VideoSettings | None = None
    audio: AudioTrack | None = None
    layers: tuple[AnyLayer, ...] = ()
    base_dir: Path | None = field(None, eq=False, repr=False)
    load_warnings: tuple[str, ...] = field((), eq=False, repr=False)

    def problems(self) -> Iterator[tuple[str, str]]:
        if self.width * self.height > MAX_PIXELS:
            yield "width", f"canvas is {self.width}x{self.height}, more than {MAX_PIXELS // 1_000_000} MP"
        if len(self.layers) > MAX_LAYERS:
            yield "layers", f"at most {MAX_LAYERS} layers (got {len(self.layers)})"
        seen: set[str] = set()
        for index, layer in enumerate(self.layers):
            if layer.name in seen:
                yield f"layers[{index}].name", f"{layer.name!r} is used by an earlier layer; names must be unique"
            seen.add(layer.name)
            if layer.TYPE == "video" and self.video is None:
                yield f"layers[{index}].type", "video layers need a video template (add a 'video' field)"
            for number, animation in enumerate(layer.animations):
                if animation.property in FILTERS and layer.TYPE != "image":
                    where = f"layers[{index}].animations[{number}].property"
                    yield where, f"{animation.property!r} animates an image's filters; this is a {layer.kind} layer"
        yield from self._mask_problems()
        if self.audio is not None and self.video is None:
            yield "audio", "a soundtrack needs a video template (add a 'video' field)"

    def _mask_problems(self) -> Iterator[tuple[str, str]]:
        """A mask names another layer of the template, and masks do not go round in a
        circle (a mask's own mask may be a layer, as long as the chain ends)."""
        masks = {layer.name: layer.mask.layer for layer in self.layers if layer.mask and layer.mask.layer}
        for index, layer in enumerate(self.layers):
            target = masks.get(layer.name)
            if target is None:
                continue
            where = f"layers[{index}].mask.layer"
            if target == layer.name:
                yield where, f"a layer cannot be its own mask ({target!r})"
            elif self.layer(target) is None:
                yield where, f"no layer is named {target!r}"
            else:
                chain = [layer.name, target]
                while chain[-1] in masks and masks[chain[-1]] not in chain:
                    chain.append(masks[chain[-1]])
                if chain[-1] in masks:
                    circle = " -> ".join([*chain, masks[chain[-1]]])
                    yield where, f"masks go round in a circle ({circle})"

    def layer(self, name: str) -> AnyLayer | None:
        return next((layer for layer in self.layers if layer.name == name), None)
