"""Chart layers. The chart kinds of the template format are drawn by the engine
(``charts.native``); a layer that carries a whole Plotly figure (``figure``) is drawn by
Plotly in Chrome (``templatekit.browser``) and placed as one image over the layer box,
with its SVG kept for vector output.

Plotly's image is rasterised at the layout's density by the browser that all figures of
the process share. Its key is the hash of the figure and size, so painters and caches
treat identical charts as one. Chrome is given the figure's data inline, never a URL.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from templatekit.layout.charts import native
from templatekit.layout.charts.style import BODY_WEIGHT, STRONG_WEIGHT
from templatekit.layout.context import LayoutContext
from templatekit.model.layers import ChartLayer
from templatekit.scene import Image, Item

TEXT_WEIGHTS = (BODY_WEIGHT, STRONG_WEIGHT)  # the faces a figure may draw with


def layout(layer: ChartLayer, ctx: LayoutContext) -> list[Item]:
    if layer.figure is None:
        return native.draw(layer, ctx)
    from templatekit.browser.figures import rasterise, vectorise  # Plotly, Kaleido and Chrome load on demand

    family = _font_family(layer, ctx)
    figure = merge(_inline_only(layer.figure, layer.name, ctx), {"layout": _sized(layer, family)})
    width, height = max(1, round(layer.width)), max(1, round(layer.height))
    raster = rasterise(figure, width, height, layer=layer.name, scale=ctx.density)
    vector = None
    if ctx.vector:
        from templatekit.layout.vector import svg_vector  # svglib and ReportLab load only for vector output

        svg = vectorise(figure, width, height, layer=layer.name)
        vector = svg_vector(svg, (layer.x, layer.y, layer.width, layer.height), ctx.fonts)
    key = f"chart:{raster.key}"
    return [Image(layer.x, layer.y, layer.width, layer.height, raster.image, key, from_vector=True, vector=vector)]


def merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """``override`` merged into ``base``: nested objects merge key by key, anything else
    (numbers, strings, lists) replaces."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _sized(layer: ChartLayer, family: str) -> dict[str, Any]:
    """What a given figure's layout is made to: the layer's size, and its font unless
    the figure names one."""
    figure: dict[str, Any] = layer.figure or {}
    layout = figure.get("layout", {})
    font = layout.get("font") if isinstance(layout.get("font"), dict) else {}
    sized: dict[str, Any] = {"width": round(layer.width), "height": round(layer.height)}
    if not font.get("family"):
        sized["font"] = {"family": family}
    return sized


def _font_family(layer: ChartLayer, ctx: LayoutContext) -> str:
    """The family the figure names: a bundled family is known to Chrome by its own name,
    template faces are installed for it under a name derived from their content."""
    from templatekit.browser.chrome import font_family

    ctx.face_warning(layer.name, layer.font)
    faces = list(dict.fromkeys(ctx.fonts.match(layer.font, weight) for weight in TEXT_WEIGHTS))
    if all(face.file.data is None for face in faces):
        return faces[0].family
    return font_family(faces)


def _inline_only(figure: dict[str, Any], name: str, ctx: LayoutContext) -> dict[str, Any]:
    """A figure without image sources other than data URIs: Plotly would have Chrome
    fetch them, and every fetch goes through the AssetLoader."""
    dropped: list[str] = []
    figure = _without_sources(figure, "figure", dropped)
    for path in dropped:
        ctx.warn(name, f"{path}: charts take images only as data: URIs; left out")
    return figure


def _without_sources(value: Any, path: str, dropped: list[str]) -> Any:
    if isinstance(value, dict):
        kept = {}
        for key, item in value.items():
            if key == "source" and isinstance(item, str) and not item.lstrip().lower().startswith("data:"):
                dropped.append(f"{path}.{key}")
            else:
                kept[key] = _without_sources(item, f"{path}.{key}", dropped)
        return kept
    if isinstance(value, list):
        return [_without_sources(item, f"{path}[{i}]", dropped) for i, item in enumerate(value)]
    return value
