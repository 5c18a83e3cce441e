"""Chart layers. The chart kinds of the template format are drawn by the engine
(``charts.native``); a layer that carries a whole Plotly figure (``figure``), or Plotly
layout settings (``plotly``), is drawn by Plotly in Chrome and placed as one image over
the layer box, with its SVG kept for vector output.

Plotly's image is rasterised at the layout's density by the browser that all charts of
the process share. Its key is the hash of the figure and size, so painters and caches
treat identical charts as one. Chrome is given the figure's data inline, never a URL.
"""

from __future__ import annotations

from typing import Any

import attrs

from templatekit.layout.charts import native
from templatekit.layout.context import LayoutContext
from templatekit.model.layers import ChartLayer
from templatekit.scene import Image, Item


def layout(layer: ChartLayer, ctx: LayoutContext) -> list[Item]:
    if layer.figure is None and not layer.plotly:
        return native.draw(layer, ctx)
    from templatekit.layout.charts.figure import TEXT_WEIGHTS, build_figure, merge  # Plotly's kinds load on demand
    from templatekit.layout.charts.render import rasterise, vectorise

    family = _font_family(layer, ctx, TEXT_WEIGHTS)
    if layer.figure is not None:
        figure = merge(_inline_only(layer.figure, "figure", layer.name, ctx), {"layout": _sized(layer, family)})
    else:
        figure = build_figure(
            attrs.evolve(layer, plotly=_inline_only(layer.plotly or {}, "plotly", layer.name, ctx)), family
        )
    width, height = max(1, round(layer.width)), max(1, round(layer.height))
    raster = rasterise(figure, width, height, layer=layer.name, scale=ctx.density)
    vector = None
    if ctx.vector:
        from templatekit.layout.vector import svg_vector  # svglib and ReportLab load only for vector output

        svg = vectorise(figure, width, height, layer=layer.name)
        vector = svg_vector(svg, (layer.x, layer.y, layer.width, layer.height), ctx.fonts)
    key = f"chart:{raster.key}"
    return [Image(layer.x, layer.y, layer.width, layer.height, raster.image, key, vector=vector)]


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


def _font_family(layer: ChartLayer, ctx: LayoutContext, weights: tuple[int, ...]) -> str:
    """The family the figure names: a bundled family is known to Chrome by its own name,
    template faces are installed for it under a name derived from their content."""
    from templatekit.layout.charts.render import font_family

    ctx.face_warning(layer.name, layer.font)
    faces = list(dict.fromkeys(ctx.fonts.match(layer.font, weight) for weight in weights))
    if all(face.file.data is None for face in faces):
        return faces[0].family
    return font_family(faces)


def _inline_only(settings: dict[str, Any], field: str, name: str, ctx: LayoutContext) -> dict[str, Any]:
    """Plotly settings without image sources other than data URIs: Plotly would have
    Chrome fetch them, and every fetch goes through the AssetLoader."""
    dropped: list[str] = []
    settings = _without_sources(settings, field, dropped)
    for path in dropped:
        ctx.warn(name, f"{path}: charts take images only as data: URIs; left out")
    return settings


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
