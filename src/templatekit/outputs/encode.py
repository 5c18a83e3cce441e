"""Image encoders: a registry of output format name -> encoder of an RGBA image."""

from __future__ import annotations

import io
from collections.abc import Callable

from attrs import frozen
from PIL import Image

from templatekit.outputs.png import write_png


@frozen
class Encoded:
    data: bytes
    media_type: str


def _opaque(image: Image.Image) -> bool:
    return "A" not in image.getbands() or image.getchannel("A").getextrema()[0] == 255


def _flatten(
    image: Image.Image, opaque: bool | None, background: tuple[int, int, int] = (255, 255, 255)
) -> Image.Image:
    """RGB on white, for formats without transparency."""
    if _opaque(image) if opaque is None else opaque:
        return image.convert("RGB")
    base = Image.new("RGB", image.size, background)
    base.paste(image, mask=image.getchannel("A"))
    return base


def encode_png(image: Image.Image, draft: bool, opaque: bool | None = None) -> Encoded:
    """Opaque images are written as RGB (a quarter fewer bytes to compress); drafts
    (editor previews) at libdeflate's fastest level."""
    if opaque is None:
        opaque = _opaque(image)
    return Encoded(write_png(image, level=1 if draft else 7, drop_alpha=opaque), "image/png")


def encode_jpeg(image: Image.Image, draft: bool, opaque: bool | None = None) -> Encoded:
    out = io.BytesIO()
    _flatten(image, opaque).save(out, "JPEG", quality=75 if draft else 90, optimize=not draft, progressive=not draft)
    return Encoded(out.getvalue(), "image/jpeg")


def encode_webp(image: Image.Image, draft: bool, opaque: bool | None = None) -> Encoded:
    out = io.BytesIO()
    source = image.convert("RGB") if (_opaque(image) if opaque is None else opaque) else image
    source.save(out, "WEBP", quality=75 if draft else 90, method=2 if draft else 4)
    return Encoded(out.getvalue(), "image/webp")


#: Each takes the image, whether it is a draft, and whether it is known to be opaque
#: (None: look), and gives the encoded bytes.
ENCODERS: dict[str, Callable[[Image.Image, bool, bool | None], Encoded]] = {
    "png": encode_png,
    "jpeg": encode_jpeg,
    "webp": encode_webp,
}
_ALIASES = {"jpg": "jpeg"}


def image_format(name: str) -> str:
    """The canonical format name; ``ValueError`` naming the choices if unknown."""
    canonical = _ALIASES.get(name.lower(), name.lower()) if isinstance(name, str) else name
    if canonical not in ENCODERS:
        raise ValueError(f"format: must be one of {', '.join(ENCODERS)} (got {name!r})")
    return canonical


def encode(image: Image.Image, name: str, *, draft: bool = False, opaque: bool | None = None) -> Encoded:
    """``opaque``: whether every pixel is known to be opaque (None: look)."""
    return ENCODERS[image_format(name)](image, draft, opaque)
