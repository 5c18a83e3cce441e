"""Image layers and the template background image.

Fitting is done here, in source pixels: a cover crop or the visible part of an
unscaled image is cut out at layout, so that painters only scale an image into its box
and the PDF writer embeds just the pixels that show, at source resolution.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

import attrs
from attrs import frozen
from PIL import Image as PILImage

from templatekit.assets import LoadedImage
from templatekit.cache import BoundedCache
from templatekit.errors import AssetError
from templatekit.layout.context import LayoutContext
from templatekit.layout.image_filters import filtered, grayscale
from templatekit.model.layers import Border, Fit, Focus, ImageFilters, ImageLayer
from templatekit.model.values import Length
from templatekit.scene import Clip, Ellipse, EncodedSource, Group, Image, Item, Rect

Crop = tuple[int, int, int, int]  # left, top, right, bottom in source pixels

_CENTRE = Focus()
_NO_RADIUS = Length(0)
_NO_FILTERS = ImageFilters()

_PREPARED: BoundedCache[str, PILImage.Image] = BoundedCache(64, name="image.prepared")


@frozen
class _Placement:
    """Where the image lands on the canvas, and the part of the source that is drawn
    there (None: all of it)."""

    x: float
    y: float
    width: float
    height: float
    crop: Crop | None = None


def layout(layer: ImageLayer, ctx: LayoutContext) -> list[Item]:
    box = (layer.x, layer.y, layer.width, layer.height)
    items = [
        fitted_image(
            layer.src,
            layer.fit,
            *box,
            ctx,
            owner=layer.name,
            focus=layer.focus,
            grayscale=layer.grayscale,
            filters=layer.filters,
            radius=layer.radius,
        )
    ]
    if layer.border is not None and layer.border.width > 0:
        items.append(_border(layer.border, *box, layer.radius))
    return items


def fitted_image(
    src: str,
    fit: Fit,
    x: float,
    y: float,
    width: float,
    height: float,
    ctx: LayoutContext,
    *,
    owner: str,
    focus: Focus = _CENTRE,
    grayscale: bool = False,
    filters: ImageFilters = _NO_FILTERS,
    radius: Length = _NO_RADIUS,
) -> Item:
    """``src`` fitted into the box, clipped to its rounded corners or ellipse.
    ``owner`` (a layer name, or "background") names the image in errors."""
    loaded = _load(src, fit, width, height, ctx, owner)
    placed = _place(loaded.image.size, fit, x, y, width, height, focus)
    tone = _Tone(grayscale, filters)
    key = _key(loaded.key, placed.crop, tone)
    pixels = _prepared(loaded, placed.crop, tone, key)
    crop = placed.crop or (0, 0, *loaded.image.size)
    source = vector = None
    if loaded.format == "JPEG" and tone.identity:
        source = EncodedSource(loaded.data, loaded.format, loaded.image.size, crop)
    if loaded.format == "SVG" and tone.identity and ctx.vector:
        vector = _vector(loaded, _whole_box(placed, crop, loaded.image.size), ctx)
    item = Image(
        placed.x,
        placed.y,
        placed.width,
        placed.height,
        pixels,
        key,
        from_vector=loaded.format == "SVG",
        source=source,
        vector=vector,
    )
    ellipse, corner = _corners(radius, width, height)
    if not ellipse and corner == 0:
        return item
    return Group((item,), clip=Clip(x, y, width, height, radius=corner, ellipse=ellipse))


def _whole_box(placed: _Placement, crop: Crop, size: tuple[int, int]) -> tuple[float, float, float, float]:
    """Where the whole source lands when its ``crop`` fills the placement."""
    left, top, right, bottom = crop
    scale_x, scale_y = placed.width / (right - left), placed.height / (bottom - top)
    return (placed.x - left * scale_x, placed.y - top * scale_y, size[0] * scale_x, size[1] * scale_y)


_VECTORS: BoundedCache[tuple[str, tuple[float, ...]], Group | None] = BoundedCache(64, name="image.vectors")


def _vector(loaded: LoadedImage, box: tuple[float, float, float, float], ctx: LayoutContext) -> Group | None:
    """The SVG as paths over ``box``, kept by content and place (logos repeat)."""
    from templatekit.layout.vector import svg_vector  # svglib and ReportLab load only for vector output

    key = (loaded.key, box)
    found = _VECTORS.get(key)
    if found is None:
        found = svg_vector(loaded.data, box, ctx.fonts) or Group(())
        _VECTORS.put(key, found, found.weight() if found is not None else 100)
    return found if found.items else None


def fitted_pixels(image: PILImage.Image, key: str, fit: Fit, x: float, y: float, width: float, height: float) -> Image:
    """Decoded pixels (a video frame) fitted into the box; ``key`` names them for the
    painters' caches."""
    placed = _place(image.size, fit, x, y, width, height, _CENTRE)
    if placed.crop is not None:
        image = image.crop(placed.crop)
        key = _key(key, placed.crop, _Tone(False, _NO_FILTERS))
    return Image(placed.x, placed.y, placed.width, placed.height, image, key)


def _load(src: str, fit: Fit, width: float, height: float, ctx: LayoutContext, owner: str) -> LoadedImage:
    size_hint = None if fit == "none" else (max(1, math.ceil(width)), max(1, math.ceil(height)))
    with _named(owner, src):
        return ctx.assets.load_image(src, ctx.base_dir, size_hint=size_hint)


def pixel_size(layer: ImageLayer, ctx: LayoutContext) -> tuple[int, int] | None:
    """The size of the layer's image from its header (``AssetLoader.raster_size``);
    a URL that cannot be downloaded fails here, naming the layer, as its drawing would."""
    if ctx.assets is None:
        return None
    with _named(layer.name, layer.src):
        return ctx.assets.raster_size(layer.src, ctx.base_dir)


@contextmanager
def _named(owner: str, src: str) -> Iterator[None]:
    """An AssetError raised in the block, naming the layer ``owner``."""
    try:
        yield
    except AssetError as exc:
        raise AssetError(f"layer {owner!r}: {exc}", layer=owner, url=src) from exc


def _place(
    size: tuple[int, int], fit: Fit, x: float, y: float, width: float, height: float, focus: Focus
) -> _Placement:
    if fit == "cover":
        return _Placement(x, y, width, height, _whole_or(size, _cover_crop(size, width, height, focus)))
    if fit == "contain":
        scale = min(width / size[0], height / size[1])
        drawn_width, drawn_height = size[0] * scale, size[1] * scale
        left, top = x + (width - drawn_width) / 2, y + (height - drawn_height) / 2
        return _Placement(left, top, drawn_width, drawn_height)
    if fit == "fill":
        return _Placement(x, y, width, height)
    return _natural(size, x, y, width, height)


def _cover_crop(size: tuple[int, int], width: float, height: float, focus: Focus) -> Crop:
    """The largest part of the source with the box's aspect ratio, centred on the focus
    point as far as the source's edges allow."""
    source_width, source_height = size
    if source_width * height > source_height * width:
        cut = max(1, min(source_width, round(source_height * width / height)))
        left = _start(focus.x * source_width, cut, source_width)
        return (left, 0, left + cut, source_height)
    cut = max(1, min(source_height, round(source_width * height / width)))
    top = _start(focus.y * source_height, cut, source_height)
    return (0, top, source_width, top + cut)


def _start(centre: float, length: int, total: int) -> int:
    return min(max(round(centre - length / 2), 0), total - length)


def _natural(size: tuple[int, int], x: float, y: float, width: float, height: float) -> _Placement:
    """The image at one canvas px per source pixel, centred, cut to the box."""
    left, right, drawn_x, drawn_width = _axis(size[0], x, width)
    top, bottom, drawn_y, drawn_height = _axis(size[1], y, height)
    crop = _whole_or(size, (left, top, right, bottom))
    return _Placement(drawn_x, drawn_y, drawn_width, drawn_height, crop)


def _axis(source: int, start: float, box: float) -> tuple[int, int, float, float]:
    """Along one axis: the source range kept, and where it is drawn (start, length)."""
    if source <= box:
        return 0, source, start + (box - source) / 2, float(source)
    kept = max(1, round(box))
    first = (source - kept) // 2
    return first, first + kept, start, box


def _whole_or(size: tuple[int, int], crop: Crop) -> Crop | None:
    return None if crop == (0, 0, *size) else crop


@frozen
class _Tone:
    """What an image layer does to its colours."""

    grayscale: bool
    filters: ImageFilters

    @property
    def identity(self) -> bool:
        return not self.grayscale and self.filters.identity


def _key(content: str, crop: Crop | None, tone: _Tone) -> str:
    parts = [content]
    if crop is not None:
        parts.append("crop={},{},{},{}".format(*crop))
    if not tone.filters.identity:
        parts.append("filters=" + ",".join(f"{value:g}" for value in attrs.astuple(tone.filters)))
    if tone.grayscale:
        parts.append("gray")
    return "/".join(parts)


def _prepared(loaded: LoadedImage, crop: Crop | None, tone: _Tone, key: str) -> PILImage.Image:
    """The pixels to draw: cropped, filtered, then made gray, kept by key across renders."""
    if crop is None and tone.identity:
        return loaded.image
    image = _PREPARED.get(key)
    if image is None:
        image = loaded.image if crop is None else loaded.image.crop(crop)
        if not tone.filters.identity:
            image = filtered(image, tone.filters)
        if tone.grayscale:
            image = grayscale(image)
        _PREPARED.put(key, image, image.width * image.height * len(image.mode))
    return image


def _corners(radius: Length, width: float, height: float) -> tuple[bool, float]:
    """(ellipse?, corner radius in px): 50% or more makes an ellipse, a circle in a
    square box; any other radius is resolved against the shorter side."""
    if radius.percent and radius.value >= 50:
        return True, 0.0
    side = min(width, height)
    return False, max(0.0, min(radius.resolve(side), side / 2))


def _border(border: Border, x: float, y: float, width: float, height: float, radius: Length) -> Item:
    """The border follows the clip's outline; its stroke lies inside the box."""
    stroke_width = min(border.width, min(width, height) / 2)
    ellipse, corner = _corners(radius, width, height)
    if ellipse:
        return Ellipse(x, y, width, height, stroke=border.color, stroke_width=stroke_width)
    return Rect(x, y, width, height, stroke=border.color, stroke_width=stroke_width, radius=corner)
