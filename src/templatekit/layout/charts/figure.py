"""Chart layers as Plotly figures: plain JSON data, built without a browser.

Every styling decision (palette, fonts, margins, gridlines, legend placement) is made
here, so that the rendered image depends on the figure alone: that is what the render
cache keys on, and what tests can check without Chrome.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from attrs import frozen

from templatekit.layout.charts.data import Series, label_colors, palette_of, series_of
from templatekit.layout.charts.style import AXIS, BODY_WEIGHT, GRID, STRONG_WEIGHT, TEXT, TITLE, Metrics
from templatekit.model.layers import ChartLayer
from templatekit.model.values import Color

Json = dict[str, Any]

TITLE_COLOR = TITLE.hex
TEXT_COLOR = TEXT.hex
GRID_COLOR = GRID.hex
AXIS_COLOR = AXIS.hex
TRANSPARENT = "rgba(0,0,0,0)"

TEXT_WEIGHTS = (BODY_WEIGHT, STRONG_WEIGHT)  # the faces a chart draws with
TITLE_WEIGHT = STRONG_WEIGHT

CARTESIAN = ("bar", "horizontalBar", "line", "area", "scatter")

CONFIG = {"displayModeBar": False, "staticPlot": True}


def build_figure(layer: ChartLayer, font_family: str) -> Json:
    """The Plotly figure (``data``, ``layout``, ``config``) of a chart layer, at the layer's
    size, with all text in ``font_family``; ``layer.plotly`` is merged into the layout last."""
    series = series_of(layer)
    metrics = Metrics.of(layer.width, layer.height)
    data = _TRACES[layer.chart_type](series, layer, metrics)
    layout = _layout(layer, series, font_family, metrics)
    return {"data": data, "layout": merge(layout, layer.plotly or {}), "config": dict(CONFIG)}


def merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> Json:
    """``override`` merged into ``base``: nested objects merge key by key, anything else
    (numbers, strings, lists) replaces."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _css(color: Color) -> str:
    """A colour as Plotly reads it (no 8-digit hex)."""
    return color.hex if color.a == 255 else f"rgba({color.r},{color.g},{color.b},{color.a / 255:.3f})"


def _point_colors(series: Series) -> str | list[str]:
    """One colour for the series, or one per point when any point has its own."""
    if all(p.color is None for p in series.points):
        return _css(series.color)
    return [_css(p.color or series.color) for p in series.points]


def _labels(series: Series) -> list[str]:
    return [p.label for p in series.points]


def _values(series: Series) -> list[float]:
    return [p.value for p in series.points]


def _bars(series: list[Series], layer: ChartLayer, metrics: Metrics) -> list[Json]:
    horizontal = layer.chart_type == "horizontalBar"
    traces = []
    for s in series:
        labels, values = _labels(s), _values(s)
        traces.append(
            {
                "type": "bar",
                "name": s.name,
                "orientation": "h" if horizontal else "v",
                "x": values if horizontal else labels,
                "y": labels if horizontal else values,
                "marker": {"color": _point_colors(s), "line": {"width": 0}},
            }
        )
    return traces


def _lines(series: list[Series], layer: ChartLayer, metrics: Metrics) -> list[Json]:
    width = max(2.0, metrics.text / 5.5)
    area = layer.chart_type == "area"
    traces = []
    for s in series:
        colors = _point_colors(s)
        trace: Json = {
            "type": "scatter",
            "name": s.name,
            "x": _labels(s),
            "y": _values(s),
            "mode": "lines" if area and isinstance(colors, str) else "lines+markers",
            "line": {"color": _css(s.color), "width": width},
            "marker": {"color": colors, "size": round(width * 3), "line": {"color": "#ffffff", "width": width * 0.75}},
            "cliponaxis": False,
        }
        if area:
            trace.update(_area_fill(s.color, layer.stacked))
        traces.append(trace)
    return traces


def _area_fill(color: Color, stacked: bool) -> Json:
    """Stacked areas are read by their bands, so they are nearly solid; overlapping areas
    stay light so that every line shows through."""
    if stacked:
        return {"stackgroup": "one", "fillcolor": _css(color.with_alpha(0.7))}
    return {"fill": "tozeroy", "fillcolor": _css(color.with_alpha(0.16))}


def _scatter(series: list[Series], layer: ChartLayer, metrics: Metrics) -> list[Json]:
    size = round(max(8.0, metrics.text * 0.75))
    return [
        {
            "type": "scatter",
            "name": s.name,
            "mode": "markers",
            "x": _numbers_or_labels(_labels(s)),
            "y": _values(s),
            "marker": {
                "color": _point_colors(s),
                "size": size,
                "line": {"color": "#ffffff", "width": 1},
            },
            "cliponaxis": False,
        }
        for s in series
    ]


def _numbers_or_labels(labels: list[str]) -> list[float] | list[str]:
    """Scatter x values: numbers when every label is one, so the axis is continuous."""
    try:
        return [float(label) for label in labels]
    except ValueError:
        return labels


def _pies(series: list[Series], layer: ChartLayer, metrics: Metrics) -> list[Json]:
    """One pie per series, side by side; a label has the same colour in every pie."""
    if not series:
        return []
    colors = label_colors(series, palette_of(layer))
    doughnut = layer.chart_type == "doughnut"
    row = _PieRow.of(layer, series, metrics)
    traces = []
    for s, domain in zip(series, row.domains, strict=True):
        trace: Json = {
            "type": "pie",
            "name": s.name,
            "labels": _labels(s),
            "values": _values(s),
            "sort": False,
            "direction": "clockwise",
            "hole": 0.58 if doughnut else 0,
            "domain": {"x": list(domain), "y": [0, 1]},
            "marker": {
                "colors": [_css(p.color or colors[p.label]) for p in s.points],
                "line": {"color": "#ffffff", "width": max(1.5, metrics.text / 7)},
            },
            **_pie_text(layer.legend, metrics),
        }
        if len(series) > 1:
            position = "middle center" if doughnut else "bottom center"
            trace["title"] = {"text": s.name, "position": position, "font": {"color": TEXT_COLOR}}
        traces.append(trace)
    return traces


_TRACES: dict[str, Callable[[list[Series], ChartLayer, Metrics], list[Json]]] = {
    "bar": _bars,
    "horizontalBar": _bars,
    "line": _lines,
    "area": _lines,
    "scatter": _scatter,
    "pie": _pies,
    "doughnut": _pies,
}


@frozen
class _PieRow:
    """Pies and a legend beside them, laid out as one centred group (Plotly would centre
    the pies alone and push the legend to the far edge). Domains are paper fractions."""

    domains: tuple[tuple[float, float], ...]
    legend_x: float

    @classmethod
    def of(cls, layer: ChartLayer, series: list[Series], metrics: Metrics) -> _PieRow:
        margin = _margin(layer, _shows_legend(layer, series), metrics)
        paper_width = max(1.0, layer.width - margin["l"] - margin["r"])
        paper_height = max(1.0, layer.height - margin["t"] - margin["b"])
        count, gap = max(1, len(series)), metrics.text * 2
        beside = _shows_legend(layer, series) and _legend_beside(layer)
        legend = _legend_width(series, metrics) + gap if beside else 0.0
        size = max(1.0, min(paper_height, (paper_width - legend - gap * (count - 1)) / count))
        start = (paper_width - (count * size + gap * (count - 1) + legend)) / 2
        domains = tuple(
            (_fraction(start + i * (size + gap), paper_width), _fraction(start + i * (size + gap) + size, paper_width))
            for i in range(count)
        )
        return cls(domains, _fraction(start + count * size + gap * count, paper_width))


def _fraction(part: float, whole: float) -> float:
    return min(1.0, max(0.0, part / whole))


def _legend_width(series: list[Series], metrics: Metrics) -> float:
    """An estimate of the legend's width: symbol, gap, and the longest label at about
    0.6 em per character."""
    longest = max((len(p.label) for s in series for p in s.points), default=0)
    return 40 + metrics.text * 0.6 * longest


def _pie_text(legend: bool, metrics: Metrics) -> Json:
    """Percentages inside the slices when a legend names them; otherwise name and
    percentage outside, with the margins grown to fit them."""
    if legend:
        return {
            "texttemplate": "%{percent:.0%}",
            "textposition": "inside",
            "insidetextorientation": "horizontal",
            "textfont": {"color": "#ffffff", "size": metrics.text * 0.9},
        }
    return {"texttemplate": "%{label}<br>%{percent:.0%}", "textposition": "outside", "automargin": True}


def _layout(layer: ChartLayer, series: list[Series], font_family: str, metrics: Metrics) -> Json:
    legend = _shows_legend(layer, series)
    layout: Json = {
        "width": round(layer.width),
        "height": round(layer.height),
        "font": {"family": font_family, "size": metrics.text, "color": TEXT_COLOR, "weight": BODY_WEIGHT},
        "paper_bgcolor": TRANSPARENT,
        "plot_bgcolor": TRANSPARENT,
        "showlegend": legend,
        "margin": _margin(layer, legend, metrics),
        "hovermode": False,
    }
    if layer.title:
        layout["title"] = _title(layer.title, metrics)
    if legend:
        layout["legend"] = _legend(layer, series, metrics)
    if layer.chart_type in CARTESIAN:
        layout.update(_axes(layer, series, metrics))
    else:
        layout["uniformtext"] = {"minsize": max(9.0, metrics.text * 0.7), "mode": "hide"}
    return layout


def _shows_legend(layer: ChartLayer, series: list[Series]) -> bool:
    """A legend names series (or slices): with a single cartesian series there is
    nothing to tell apart."""
    return layer.legend and (layer.chart_type not in CARTESIAN or len(series) > 1)


def _title(text: str, metrics: Metrics) -> Json:
    return {
        "text": text,
        "font": {"size": metrics.title, "color": TITLE_COLOR, "weight": TITLE_WEIGHT},
        "xref": "container",
        "yref": "container",
        "x": 0,
        "xanchor": "left",
        "y": 1,
        "yanchor": "top",
        "pad": {"l": metrics.pad, "t": metrics.pad},
    }


def _legend_beside(layer: ChartLayer) -> bool:
    """A pie's legend goes beside it in a wide box, under it in a tall one."""
    return layer.width >= layer.height * 1.25


def _legend(layer: ChartLayer, series: list[Series], metrics: Metrics) -> Json:
    common: Json = {
        "font": {"size": metrics.text, "color": TEXT_COLOR},
        "bgcolor": TRANSPARENT,
        "itemsizing": "constant",
        "traceorder": "normal",
    }
    if layer.chart_type in CARTESIAN:
        # under the title, in figure coordinates: Plotly then moves the plot down by the
        # legend's height, however many rows it wraps to
        below_title = 1 - _header(layer, metrics) / layer.height
        return {
            **common,
            "orientation": "h",
            "xref": "container",
            "yref": "container",
            "x": metrics.pad / 2 / layer.width,  # line symbols start at the box's very edge
            "xanchor": "left",
            "y": below_title,
            "yanchor": "top",
        }
    if _legend_beside(layer):
        x = _PieRow.of(layer, series, metrics).legend_x
        return {**common, "orientation": "v", "x": x, "xanchor": "left", "y": 0.5, "yanchor": "middle"}
    return {**common, "orientation": "h", "x": 0.5, "xanchor": "center", "y": 0, "yanchor": "top"}


def _margin(layer: ChartLayer, legend: bool, metrics: Metrics) -> Json:
    """Small fixed margins: axes (``automargin``), outside pie labels and legends grow
    them to what they need, so nothing is cut off and no space is wasted."""
    top = _header(layer, metrics)
    if not legend and layer.chart_type in CARTESIAN:
        top += metrics.text / 2  # room for the top tick label
    return {"l": metrics.pad, "r": metrics.pad, "t": round(top), "b": metrics.pad, "pad": 0, "autoexpand": True}


def _header(layer: ChartLayer, metrics: Metrics) -> float:
    """The height above the plot taken by the padding and the title."""
    if layer.title:
        return metrics.pad * 2 + metrics.title * 1.3
    return metrics.pad


def _axes(layer: ChartLayer, series: list[Series], metrics: Metrics) -> Json:
    horizontal = layer.chart_type == "horizontalBar"
    negative = any(p.value < 0 for s in series for p in s.points)
    value = _value_axis(layer, metrics, zero_line=negative)
    category = _category_axis(metrics, baseline=not negative)
    if layer.chart_type == "scatter":
        category["type"] = "-"  # numeric labels make a continuous axis
    if horizontal:
        category["autorange"] = "reversed"  # first label at the top, as it reads
    layout: Json = {"xaxis": value, "yaxis": category} if horizontal else {"xaxis": category, "yaxis": value}
    if layer.chart_type in ("bar", "horizontalBar"):
        layout.update(
            barmode="stack" if layer.stacked else "group",
            bargap=0.3,
            bargroupgap=0.12,
            barcornerradius=round(metrics.text * 0.3),
        )
    return layout


def _value_axis(layer: ChartLayer, metrics: Metrics, *, zero_line: bool) -> Json:
    """Light gridlines and no axis line; a zero line only when values go below it."""
    return {
        "showgrid": True,
        "gridcolor": GRID_COLOR,
        "gridwidth": 1,
        "zeroline": zero_line,
        "zerolinecolor": AXIS_COLOR,
        "zerolinewidth": 1,
        "showline": False,
        "ticks": "",
        "ticklabelstandoff": round(metrics.pad * 0.75),
        "automargin": True,
        "rangemode": "normal" if layer.chart_type == "scatter" else "tozero",
        "nticks": 6,
        "separatethousands": True,
        "tickfont": {"color": TEXT_COLOR},
    }


def _category_axis(metrics: Metrics, *, baseline: bool) -> Json:
    """No gridlines; a baseline under the plot unless a zero line takes its place."""
    return {
        "type": "category",
        "showgrid": False,
        "zeroline": False,
        "showline": baseline,
        "linecolor": AXIS_COLOR,
        "linewidth": 1,
        "ticks": "",
        "ticklabelstandoff": round(metrics.pad * 0.75),
        "automargin": True,
        "tickfont": {"color": TEXT_COLOR},
    }
