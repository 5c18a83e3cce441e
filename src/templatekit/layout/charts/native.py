"""Charts of the template format drawn by the engine: the title, the legend of a
chart's series, then the plot in the room left, as Scene items in the layer's box."""

from __future__ import annotations

from templatekit.layout.charts import cartesian, pie
from templatekit.layout.charts.canvas import Canvas
from templatekit.layout.charts.data import series_of
from templatekit.layout.charts.legend import Entry, Legend
from templatekit.layout.charts.style import STRONG_WEIGHT, TITLE, Metrics
from templatekit.layout.context import LayoutContext
from templatekit.model.layers import ChartLayer
from templatekit.scene import Item

LEGEND_SHARE = 0.25  # of the room under the title, at most, for a series legend


def draw(layer: ChartLayer, ctx: LayoutContext) -> list[Item]:
    metrics = Metrics.of(layer.width, layer.height)
    canvas = Canvas(layer, ctx, metrics)
    ctx.face_warning(layer.name, layer.font)
    x, y, width, height = canvas.box
    top = y
    if layer.title:
        block = canvas.text(layer.title, canvas.style(metrics.title, STRONG_WEIGHT, TITLE), width, "title", max_lines=2)
        rtl = bool(block.lines) and block.lines[0].rtl_paragraph
        canvas.put(block, x, y, width, "right" if rtl else "left")
        top += block.height + metrics.pad
    series = series_of(layer)
    if not any(s.points for s in series):
        canvas.notes.append("rows is empty: the chart is drawn without data")
    if layer.is_pie:
        pie.draw(canvas, series, (x, top, width, y + height - top))
        return canvas.finish()
    if layer.legend and len(series) > 1:
        dot = layer.chart_type in ("line", "scatter")
        entries = [Entry(s.name, s.color, dot) for s in series]
        used = Legend(canvas).flow(entries, x, top, width, (y + height - top) * LEGEND_SHARE)
        top += used + metrics.pad
    cartesian.draw(canvas, series, (x, top, width, y + height - top))
    return canvas.finish()
