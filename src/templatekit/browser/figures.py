"""Whole Plotly figures drawn by the process's Chrome: a PNG for images, SVG for vector
output. Drawn figures are cached by their content and size: a miss costs the browser
hundreds of milliseconds, so they are kept from their first use (their share of the
cache budget bounds them)."""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Mapping
from typing import Any

from attrs import field, frozen
from PIL import Image as PILImage

from templatekit.browser import chrome
from templatekit.cache import BoundedCache

SCALE = 2.0  # device pixels per layer pixel: crisp when the painter scales the canvas


@frozen
class Raster:
    """A drawn figure: ``key`` identifies its content, ``image`` is the decoded PNG."""

    key: str
    image: PILImage.Image = field(eq=False, repr=False)


#: Drawn figures as PNG files, a tenth or less of their pixels' weight: a dashboard of a
#: dozen figures stays in the share (decoding one again takes milliseconds, drawing it in
#: the browser a second).
_RASTERS: BoundedCache[str, bytes] = BoundedCache(128, name="charts.rasters")
_VECTORS: BoundedCache[str, bytes] = BoundedCache(128, name="charts.vectors")


def rasterise(figure: Mapping[str, Any], width: int, height: int, *, layer: str, scale: float = SCALE) -> Raster:
    """The figure as a PNG of ``width`` × ``height`` layer pixels at ``scale``.
    ``layer`` names the chart in errors."""
    key = figure_key(figure, width, height, scale)
    png = _RASTERS.get(key)
    if png is None:
        png = chrome.render(figure, {"format": "png", "width": width, "height": height, "scale": scale}, layer)
        _RASTERS.put(key, png, len(png))
    image = PILImage.open(io.BytesIO(png))
    image.load()
    return Raster(key, image)


def vectorise(figure: Mapping[str, Any], width: int, height: int, *, layer: str) -> bytes:
    """The figure as SVG of ``width`` × ``height`` px (for vector output such as PDF)."""
    key = figure_key(figure, width, height, 0)
    cached = _VECTORS.get(key)
    if cached is None:
        cached = chrome.render(figure, {"format": "svg", "width": width, "height": height, "scale": 1}, layer)
        _VECTORS.put(key, cached, len(cached))
    return cached


def figure_key(figure: Mapping[str, Any], width: int, height: int, scale: float) -> str:
    """A hash of everything a drawing depends on (template fonts are named by content)."""
    text = json.dumps([figure, width, height, scale], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]
