"""Chart layers: a Plotly figure drawn by Chrome, placed as one image over the layer box.

The figure is built in Python and rasterised at twice the layer's size by the browser
that all charts of the process share. The image's key is the hash of the figure and
size, so painters and caches treat identical charts as one. Chrome is given the
figure's data inline, never a URL to fetch.
"""

from __future__ import annotations

from typing import Any

import attrs

from templatekit.charts.figure import TEXT_WEIGHTS, build_figure
from templatekit.charts.render import font_family, rasterise, vectorise
from templatekit.layout.context import LayoutContext
from templatekit.layout.scene import Image, Item
from templatekit.model.layers import ChartLayer


def layout(layer: ChartLayer, ctx: LayoutContext) -> list[Item]:
    family = _font_family(layer, ctx)
    figure = build_figure(_inline_only(layer, ctx), family)
    width, height = max(1, round(layer.width)), max(1, round(layer.height))
    raster = rasterise(figure, width, height, layer=layer.name, scale=ctx.density)
    vector = None
    if ctx.vector:
        from templatekit.layout.vector import svg_vector  # svglib and ReportLab load only for vector output

        svg = vectorise(figure, width, height, layer=layer.name)
        vector = svg_vector(svg, (layer.x, layer.y, layer.width, layer.height), ctx.fonts)
    key = f"chart:{raster.key}"
    return [Image(layer.x, layer.y, layer.width, layer.height, raster.image, key, vector=vector)]


def _font_family(layer: ChartLayer, ctx: LayoutContext) -> str:
    """The family the figure names: a bundled family is known to Chrome by its own name,
    template faces are installed for it under a name derived from their content."""
    ctx.face_warning(layer.name, layer.font)
    faces = list(dict.fromkeys(ctx.fonts.match(layer.font, weight) for weight in TEXT_WEIGHTS))
    if all(face.file.data is None for face in faces):
        return faces[0].family
    return font_family(faces)


def _inline_only(layer: ChartLayer, ctx: LayoutContext) -> ChartLayer:
    """The layer without image sources in its ``plotly`` settings other than data URIs:
    Plotly would have Chrome fetch them, and every fetch goes through the AssetLoader."""
    if not layer.plotly:
        return layer
    dropped: list[str] = []
    settings = _without_sources(layer.plotly, "plotly", dropped)
    for path in dropped:
        ctx.warn(layer.name, f"{path}: charts take images only as data: URIs; left out")
    return attrs.evolve(layer, plotly=settings) if dropped else layer


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
