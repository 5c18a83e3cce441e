"""The CSS blend modes (Compositing and Blending 1) on pixels: a blend mode mixes
colours where both a layer and its backdrop are, then composites source-over. numpy is
imported only when a layer has a blend mode (start-up time)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PIL import Image as PILImage


def blend_onto(target: PILImage.Image, patch: PILImage.Image, left: int, top: int, mode: str) -> None:
    """Composite ``patch`` onto ``target`` at (left, top) with a CSS blend mode."""
    x0, y0 = max(left, 0), max(top, 0)
    x1, y1 = min(left + patch.width, target.width), min(top + patch.height, target.height)
    if x0 >= x1 or y0 >= y1:
        return
    source = _floats(patch.crop((x0 - left, y0 - top, x1 - left, y1 - top)))
    backdrop = _floats(target.crop((x0, y0, x1, y1)))
    cs, alpha_s = source[..., :3], source[..., 3:]
    cb, alpha_b = backdrop[..., :3], backdrop[..., 3:]
    mixed = (1 - alpha_b) * cs + alpha_b * _mix(cb, cs, mode)
    alpha = alpha_s + alpha_b * (1 - alpha_s)
    colour = alpha_s * mixed + (1 - alpha_s) * alpha_b * cb
    out = np.where(alpha > 0, colour / np.maximum(alpha, 1e-6), 0.0)
    pixels = np.concatenate([out, alpha], axis=-1)
    result = PILImage.fromarray(np.clip(np.rint(pixels * 255), 0, 255).astype(np.uint8), "RGBA")
    target.paste(result, (x0, y0))


def blend_over_opaque(backdrop: np.ndarray, patch: np.ndarray, mode: str) -> np.ndarray:
    """RGB ``backdrop`` (opaque, uint8) with premultiplied RGBA ``patch`` (uint8, the
    same size) blended onto it in a CSS blend mode: a video frame's pixels."""
    cb = backdrop.astype(np.float32) / 255
    alpha_s = patch[..., 3:].astype(np.float32) / 255
    cs = np.where(alpha_s > 0, patch[..., :3].astype(np.float32) / 255 / np.maximum(alpha_s, 1e-6), 0.0)
    mixed = (1 - alpha_s) * cb + alpha_s * _mix(cb, np.clip(cs, 0, 1), mode)
    return np.clip(np.rint(mixed * 255), 0, 255).astype(np.uint8)


def _floats(image: PILImage.Image) -> np.ndarray:
    return np.asarray(image.convert("RGBA"), dtype=np.float32) / 255


def _mix(cb: np.ndarray, cs: np.ndarray, mode: str) -> np.ndarray:
    """B(Cb, Cs) of the Compositing and Blending spec, on straight colours in 0..1."""
    if mode in _NON_SEPARABLE:
        return _NON_SEPARABLE[mode](cb, cs)
    return _SEPARABLE[mode](cb, cs)


def _hard_light(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    return np.where(cs <= 0.5, cb * 2 * cs, _screen(cb, 2 * cs - 1))


def _screen(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    return cb + cs - cb * cs


def _soft_light(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    d = np.where(cb <= 0.25, ((16 * cb - 12) * cb + 4) * cb, np.sqrt(cb))
    return np.where(cs <= 0.5, cb - (1 - 2 * cs) * cb * (1 - cb), cb + (2 * cs - 1) * (d - cb))


def _dodge(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    return np.where(cb == 0, 0.0, np.where(cs >= 1, 1.0, np.minimum(1.0, cb / np.maximum(1 - cs, 1e-6))))


def _burn(cb: np.ndarray, cs: np.ndarray) -> np.ndarray:
    return np.where(cb >= 1, 1.0, np.where(cs <= 0, 0.0, 1 - np.minimum(1.0, (1 - cb) / np.maximum(cs, 1e-6))))


Mix = Callable[[np.ndarray, np.ndarray], np.ndarray]

_SEPARABLE: dict[str, Mix] = {
    "normal": lambda cb, cs: cs,
    "multiply": lambda cb, cs: cb * cs,
    "screen": _screen,
    "overlay": lambda cb, cs: _hard_light(cs, cb),
    "darken": np.minimum,
    "lighten": np.maximum,
    "color-dodge": _dodge,
    "color-burn": _burn,
    "hard-light": _hard_light,
    "soft-light": _soft_light,
    "difference": lambda cb, cs: np.abs(cb - cs),
    "exclusion": lambda cb, cs: cb + cs - 2 * cb * cs,
}


def _lum(c: np.ndarray) -> np.ndarray:
    return (0.3 * c[..., 0] + 0.59 * c[..., 1] + 0.11 * c[..., 2])[..., None]


def _clip_colour(c: np.ndarray) -> np.ndarray:
    lum = _lum(c)
    low = c.min(axis=-1, keepdims=True)
    high = c.max(axis=-1, keepdims=True)
    c = np.where(low < 0, lum + (c - lum) * lum / np.maximum(lum - low, 1e-6), c)
    return np.where(high > 1, lum + (c - lum) * (1 - lum) / np.maximum(high - lum, 1e-6), c)


def _set_lum(c: np.ndarray, lum: np.ndarray) -> np.ndarray:
    return _clip_colour(c + (lum - _lum(c)))


def _sat(c: np.ndarray) -> np.ndarray:
    return c.max(axis=-1, keepdims=True) - c.min(axis=-1, keepdims=True)


def _set_sat(c: np.ndarray, saturation: np.ndarray) -> np.ndarray:
    low = c.min(axis=-1, keepdims=True)
    span = c.max(axis=-1, keepdims=True) - low
    return np.where(span > 0, (c - low) * saturation / np.maximum(span, 1e-6), 0.0)


_NON_SEPARABLE: dict[str, Mix] = {
    "hue": lambda cb, cs: _set_lum(_set_sat(cs, _sat(cb)), _lum(cb)),
    "saturation": lambda cb, cs: _set_lum(_set_sat(cb, _sat(cs)), _lum(cb)),
    "color": lambda cb, cs: _set_lum(cs, _lum(cb)),
    "luminosity": lambda cb, cs: _set_lum(cb, _lum(cs)),
}
