"""The raster painter's fast path for video frames: a Scene of pictures painted once
(``Image`` items: the still layers, the looks of the moving ones) and of groups that
place them, painted on an opaque frame of premultiplied pixels with OpenCV (the video
extra). Each placed picture costs one resample, by ``templatekit.paint.placing``'s
placement, as the raster painter places a turned group. An item it does not know is
painted by the raster painter and composited. What lies under an opaque picture that
covers the whole frame (a full-frame photo zooming slowly) is not painted at all.
"""

from __future__ import annotations

import sys

import cv2
import numpy as np
from attrs import frozen
from PIL import Image as PILImage

from templatekit.paint.blending import blend_over_opaque
from templatekit.paint.placing import Placement, placement
from templatekit.paint.raster import paint_sprite
from templatekit.paint.resample import inside, sample
from templatekit.scene import Effects, Group, Image, Item, Scene
from templatekit.scene.geometry import IDENTITY, Transform

#: Where a picture keeps its premultiplied pixels and whether they are all opaque (in the
#: image's ``info``): a picture is placed at many frames and converted once.
PIXELS_INFO = "templatekit.premultiplied"
INVERSE_INFO = "templatekit.inverse-alpha"


def picture(image: PILImage.Image, left: int, top: int, scale: float, key: str) -> Image:
    """Pixels painted once (at ``scale``, their top-left pixel at (left, top)) as an
    ``Image`` that frames place; converted for them now, and held once."""
    pixels, opaque = _premultiplied(image)
    held = PILImage.frombuffer("RGBa", image.size, pixels, "raw", "RGBa", 0, 1)
    held.info[PIXELS_INFO] = (pixels, opaque)
    width, height = image.size
    return Image(left / scale, top / scale, width / scale, height / scale, held, key)


def _premultiplied(image: PILImage.Image) -> tuple[np.ndarray, bool]:
    """An image's premultiplied RGBA pixels, and whether all of them are opaque."""
    if image.mode not in ("RGBA", "RGBa"):
        image = image.convert("RGBA")
    opaque = image.getchannel("A").getextrema()[0] == 255
    # opaque pixels are their own premultiplied form
    return np.asarray(image if opaque or image.mode == "RGBa" else image.convert("RGBa")), opaque


@frozen
class _Placed:
    """A picture as a frame places it: by ``transform``, cut to the whole pixels of
    ``within``, faded by ``opacity`` and composited in ``mode``."""

    picture: Image
    transform: Transform
    opacity: float
    mode: str
    within: tuple[float, float, float, float] | None = None


def paint_frame(scene: Scene) -> np.ndarray:
    """The Scene (with an opaque background, or none: transparent) as premultiplied RGBA
    pixels; safe in several threads."""
    assert scene.background is None or scene.background.a == 255
    items: list[Item | _Placed] = [_placed(item) or item for item in scene.items]
    frame = np.empty((scene.height, scene.width, 4), np.uint8)
    covering = _last_covering(frame, items)
    if covering is not None:  # a bottom plate, or a photo over all: what lies under it is never seen
        items = items[covering:]
    elif scene.background is None:
        frame.fill(0)
    else:
        frame.view(np.uint32).fill(int.from_bytes(bytes(scene.background.rgba), sys.byteorder))  # 30x a broadcast
    for item in items:
        if isinstance(item, _Placed):
            _place(frame, item)
        else:
            _paint_other(frame, item)
    return frame


def _last_covering(frame: np.ndarray, items: list[Item | _Placed]) -> int | None:
    """The index of the last item that is an opaque picture whose samples cover every
    pixel of the frame (a bottom plate, a full-frame ken-burns photo), if there is one."""
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if not isinstance(item, _Placed) or item.opacity < 1 or item.mode != "normal":
            continue
        pixels, opaque = _pixels(item.picture.image)
        if not opaque or not _upright(item.transform):
            continue
        placed = _placement(frame, item, pixels)
        if placed is not None and placed.box == (0, 0, frame.shape[1], frame.shape[0]) and inside(placed, pixels):
            return index
    return None


def _placed(item: Item) -> _Placed | None:
    """How the frame places ``item`` when it is a picture placed by groups that only
    move, fade, blend or cut it to a box; None for an item the raster painter paints."""
    if isinstance(item, Image):
        return _Placed(item, IDENTITY, 1.0, "normal")
    if not isinstance(item, Group) or item.opacity <= 0 or item.mask is not None or not _blend_only(item.effects):
        return None
    if len(item.items) != 1:
        return None
    mode = item.effects.blend if item.effects is not None else "normal"
    inner = item.items[0]
    if item.clip is None and isinstance(inner, Image):
        return _Placed(inner, item.transform, item.opacity, mode)
    if _zoomed_picture(inner) and _upright(item.transform) and _box_clip(item):
        assert isinstance(inner, Group) and isinstance(inner.items[0], Image) and item.clip is not None
        clip = item.clip
        within = item.transform.box((clip.x, clip.y, clip.x + clip.width, clip.y + clip.height))
        return _Placed(inner.items[0], inner.transform.then(item.transform), item.opacity, mode, within)
    return None


def _paint_other(frame: np.ndarray, item: Item) -> None:
    if isinstance(item, Group) and item.opacity <= 0:
        return
    painted = paint_sprite([item])
    if painted is not None:
        image, left, top = painted
        _over(frame, _pixels(image)[0], left, top)


def _placement(frame: np.ndarray, placed: _Placed, pixels: np.ndarray) -> Placement | None:
    picture = placed.picture
    height, width = pixels.shape[:2]
    to_scene = Transform(picture.width / width, 0.0, 0.0, picture.height / height, picture.x, picture.y)
    frame_box = (0.0, 0.0, float(frame.shape[1]), float(frame.shape[0]))
    return placement(to_scene.then(placed.transform), (width, height), frame_box, placed.within)


def _place(frame: np.ndarray, placed: _Placed) -> None:
    """A placed picture drawn on the frame."""
    pixels, opaque = _pixels(placed.picture.image)
    where = _placement(frame, placed, pixels)
    if where is None:
        return
    x0, y0, x1, y1 = where.box
    region = frame[y0:y1, x0:x1]
    opacity, mode = placed.opacity, placed.mode
    if opaque and opacity >= 1 and mode == "normal" and _upright(placed.transform):  # covers its box: no blending
        if where.shift is None:
            sample(where, pixels, into=region)
        else:
            region[:] = sample(where, pixels)
        return
    patch = sample(where, pixels)
    if opacity < 1:
        patch = cv2.convertScaleAbs(patch, alpha=opacity)
    if mode == "normal":
        whole = where.shift == (0, 0) and patch.shape == pixels.shape and opacity >= 1
        _over(frame, patch, x0, y0, _inverse_alpha(placed.picture.image, pixels) if whole else None)
    else:
        region[..., :3] = blend_over_opaque(region[..., :3], patch, mode)


def _pixels(image: PILImage.Image) -> tuple[np.ndarray, bool]:
    """A picture's premultiplied RGBA pixels and whether all of them are opaque: those
    kept by ``picture``, else converted now (what the raster painter painted for an item
    the fast path does not know)."""
    known = image.info.get(PIXELS_INFO)
    return _premultiplied(image) if known is None else known


def _inverse_alpha(image: PILImage.Image, pixels: np.ndarray) -> np.ndarray:
    """255 minus the alpha of a picture's pixels, in all four channels: made once for a
    picture that is drawn whole at many frames (a plate)."""
    inverse = image.info.get(INVERSE_INFO)
    if inverse is None:
        inverse = image.info[INVERSE_INFO] = cv2.cvtColor(255 - pixels[:, :, 3], cv2.COLOR_GRAY2RGBA)
    return inverse


def _over(frame: np.ndarray, pixels: np.ndarray, x: int, y: int, inverse: np.ndarray | None = None) -> None:
    """Premultiplied ``pixels`` over the frame at (x, y), cut to it, in place:
    frame = pixels + frame * (255 - alpha) / 255 (``inverse``: 255 - alpha, if known)."""
    height, width = pixels.shape[:2]
    left, top = max(0, -x), max(0, -y)
    right, bottom = min(width, frame.shape[1] - x), min(height, frame.shape[0] - y)
    if right <= left or bottom <= top:
        return
    region = frame[y + top : y + bottom, x + left : x + right]
    pixels = np.ascontiguousarray(pixels[top:bottom, left:right])
    if inverse is None:
        inverse = cv2.cvtColor(255 - pixels[:, :, 3], cv2.COLOR_GRAY2RGBA)
    else:
        inverse = inverse[top:bottom, left:right]
    cv2.multiply(region, inverse, dst=region, scale=1 / 255)
    cv2.add(region, pixels, dst=region)


def _blend_only(effects: Effects | None) -> bool:
    return effects is None or (not effects.shadows and not effects.blur)


def _upright(transform: Transform) -> bool:
    """No turn and no flip: boxes stay boxes."""
    return transform.b == transform.c == 0 and transform.a > 0 and transform.d > 0


def _box_clip(group: Group) -> bool:
    clip = group.clip
    return clip is not None and not clip.radius and not clip.ellipse


def _zoomed_picture(item: Item) -> bool:
    """A group that only places one picture (a ken-burns zoom inside its box)."""
    return (
        isinstance(item, Group)
        and item.opacity >= 1
        and item.clip is None
        and item.mask is None
        and item.effects is None
        and len(item.items) == 1
        and isinstance(item.items[0], Image)
    )
