"""Charts drawn by Plotly: the figure built from a layer with ``plotly`` layout settings
(no browser), and real renders of ``figure`` and ``plotly`` layers through Chrome
(skipped when none is installed)."""

from __future__ import annotations

import io
import json
import os
import signal
import threading
import time
from pathlib import Path

import plotly.graph_objects as go
import pytest

import templatekit as tk
from templatekit.layout import chart
from templatekit.layout.charts import render
from templatekit.layout.charts.figure import build_figure, merge
from templatekit.layout.charts.style import PALETTE
from templatekit.layout.context import LayoutContext
from templatekit.model.layers import ChartLayer
from templatekit.scene import Group, Image
from templatekit.text.fonts import FONT_DIR, FontBook
from tests.conftest import decode, layer, needs_chrome, template

KINDS = ("bar", "horizontalBar", "line", "area", "pie", "doughnut", "scatter")
CARTESIAN = ("bar", "horizontalBar", "line", "area", "scatter")
POINTS = [{"label": "1", "value": 3}, {"label": "2", "value": 5}, {"label": "3", "value": 2}]
SERIES = [
    {"name": "North", "data": [{"label": "1", "value": 3}, {"label": "2", "value": 5}, {"label": "3", "value": 4}]},
    {"name": "South", "data": [{"label": "1", "value": 2}, {"label": "2", "value": 4}, {"label": "3", "value": 6}]},
]


def chart_layer(**fields) -> ChartLayer:
    loaded = tk.load_template(template(layer("chart", "sales", **{"width": 400, "height": 300, **fields})))
    return loaded.layers[0]


def figure(font: str = "Inter", **fields) -> dict:
    return build_figure(chart_layer(**fields), font)


def hexes(colors: list[str] | str) -> list[str]:
    return [colors] if isinstance(colors, str) else list(colors)


# --- the figure ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("rows", [POINTS, SERIES], ids=["points", "series"])
def test_every_kind_and_row_shape_makes_a_valid_plotly_figure(kind, rows):
    built = figure(chartType=kind, rows=rows, title="Sales")
    go.Figure({"data": built["data"], "layout": built["layout"]})  # raises on any unknown property
    json.dumps(built)
    count = 1 if rows is POINTS else 2
    assert len(built["data"]) == count
    expected = {"bar": "bar", "horizontalBar": "bar", "pie": "pie", "doughnut": "pie"}.get(kind, "scatter")
    assert {trace["type"] for trace in built["data"]} == {expected}
    assert (built["layout"]["width"], built["layout"]["height"]) == (400, 300)


@pytest.mark.parametrize("kind", KINDS)
def test_a_chart_without_rows_is_an_empty_figure(kind):
    built = figure(chartType=kind, title="Nothing yet")
    assert built["data"] == []
    go.Figure({"data": built["data"], "layout": built["layout"]})


def test_bars_lines_areas_and_scatter_take_labels_and_values():
    bar = figure(chartType="bar", rows=POINTS)["data"][0]
    assert (bar["x"], bar["y"], bar["orientation"]) == (["1", "2", "3"], [3, 5, 2], "v")
    horizontal = figure(chartType="horizontalBar", rows=POINTS)
    assert (horizontal["data"][0]["x"], horizontal["data"][0]["y"]) == ([3, 5, 2], ["1", "2", "3"])
    assert horizontal["layout"]["yaxis"]["autorange"] == "reversed"  # first label on top
    line = figure(chartType="line", rows=POINTS)["data"][0]
    assert line["mode"] == "lines+markers" and "fill" not in line
    area = figure(chartType="area", rows=POINTS)["data"][0]
    assert area["fill"] == "tozeroy"
    scatter = figure(chartType="scatter", rows=POINTS)
    assert scatter["data"][0]["x"] == [1.0, 2.0, 3.0] and scatter["data"][0]["mode"] == "markers"
    assert scatter["layout"]["xaxis"]["type"] == "-"  # numeric labels: a continuous axis


def test_pies_and_doughnuts_one_per_series_side_by_side():
    pie = figure(chartType="pie", rows=POINTS)["data"]
    assert pie[0]["hole"] == 0 and pie[0]["labels"] == ["1", "2", "3"] and pie[0]["values"] == [3, 5, 2]
    doughnuts = figure(chartType="doughnut", rows=SERIES)["data"]
    assert all(trace["hole"] > 0.4 for trace in doughnuts)
    (left_start, left_end), (right_start, right_end) = (tuple(trace["domain"]["x"]) for trace in doughnuts)
    assert 0 <= left_start < left_end < right_start < right_end <= 1
    assert [trace["title"]["text"] for trace in doughnuts] == ["North", "South"]


def test_default_palette_colours_series_in_order():
    bars = figure(chartType="bar", rows=SERIES)["data"]
    assert [trace["marker"]["color"] for trace in bars] == [PALETTE[0].hex, PALETTE[1].hex]
    assert PALETTE[0].hex == "#3f90da"  # Petroff's blue first


def test_colors_series_colours_and_point_colours():
    palette = figure(chartType="line", rows=SERIES, colors=["#111111", "#222222"])["data"]
    assert [trace["line"]["color"] for trace in palette] == ["#111111", "#222222"]
    own = [{**SERIES[0], "color": "#ff0000"}, SERIES[1]]
    assert [t["marker"]["color"] for t in figure(chartType="bar", rows=own)["data"]] == ["#ff0000", PALETTE[1].hex]
    points = [POINTS[0], {**POINTS[1], "color": "#00ff00"}, POINTS[2]]
    bar = figure(chartType="bar", rows=points, colors=["#0000ff"])["data"][0]
    assert bar["marker"]["color"] == ["#0000ff", "#00ff00", "#0000ff"]
    translucent = figure(chartType="bar", rows=[{"label": "a", "value": 1, "color": "rgba(255,0,0,0.5)"}])
    assert translucent["data"][0]["marker"]["color"] == ["rgba(255,0,0,0.502)"]


def test_a_slice_keeps_its_colour_in_every_pie():
    rows = [
        {"name": "A", "data": [{"label": "x", "value": 1}, {"label": "y", "value": 2}]},
        {"name": "B", "data": [{"label": "y", "value": 1}, {"label": "z", "value": 2, "color": "#123456"}]},
    ]
    first, second = figure(chartType="pie", rows=rows)["data"]
    assert first["marker"]["colors"] == [PALETTE[0].hex, PALETTE[1].hex]
    assert second["marker"]["colors"] == [PALETTE[1].hex, "#123456"]


def test_stacked():
    assert figure(chartType="bar", rows=SERIES)["layout"]["barmode"] == "group"
    assert figure(chartType="bar", rows=SERIES, stacked=True)["layout"]["barmode"] == "stack"
    assert figure(chartType="horizontalBar", rows=SERIES, stacked=True)["layout"]["barmode"] == "stack"
    areas = figure(chartType="area", rows=SERIES, stacked=True)["data"]
    assert {trace["stackgroup"] for trace in areas} == {"one"} and all("fill" not in t for t in areas)


def test_legend_names_series_or_slices_when_asked():
    assert figure(chartType="bar", rows=SERIES)["layout"]["showlegend"] is True
    assert figure(chartType="bar", rows=SERIES, legend=False)["layout"]["showlegend"] is False
    assert figure(chartType="bar", rows=POINTS)["layout"]["showlegend"] is False  # one series: nothing to name
    assert figure(chartType="pie", rows=POINTS)["layout"]["showlegend"] is True
    labelled = figure(chartType="pie", rows=POINTS, legend=False)
    assert labelled["layout"]["showlegend"] is False
    assert labelled["data"][0]["textposition"] == "outside" and "%{label}" in labelled["data"][0]["texttemplate"]


def test_title_and_room_for_it():
    untitled, titled = figure(chartType="bar", rows=SERIES), figure(chartType="bar", rows=SERIES, title="Revenue")
    assert "title" not in untitled["layout"]
    assert titled["layout"]["title"]["text"] == "Revenue"
    assert titled["layout"]["margin"]["t"] > untitled["layout"]["margin"]["t"]


def test_all_text_uses_the_font_family_and_the_figure_is_clean():
    built = figure(font="Dancing Script", chartType="bar", rows=SERIES, title="T")
    layout = built["layout"]
    assert layout["font"]["family"] == "Dancing Script"
    assert all("family" not in part.get("font", {}) for part in (layout["title"], layout["legend"]))
    assert layout["paper_bgcolor"] == layout["plot_bgcolor"] == "rgba(0,0,0,0)"
    assert layout["yaxis"]["showgrid"] and not layout["xaxis"]["showgrid"]  # grid on the value axis only
    assert not layout["yaxis"]["zeroline"] and not layout["xaxis"]["zeroline"]
    assert built["config"]["displayModeBar"] is False


def test_negative_values_get_a_zero_line_instead_of_a_baseline():
    layout = figure(chartType="bar", rows=[{"label": "a", "value": -2}, {"label": "b", "value": 3}])["layout"]
    assert layout["yaxis"]["zeroline"] and not layout["xaxis"]["showline"]


def test_plotly_settings_merge_last_and_deeply():
    settings = {"yaxis": {"gridcolor": "red", "title": {"text": "k$"}}, "bargap": 0.05, "font": {"size": 30}}
    layout = figure(chartType="bar", rows=SERIES, plotly=settings)["layout"]
    assert layout["yaxis"]["gridcolor"] == "red" and layout["yaxis"]["title"] == {"text": "k$"}
    assert layout["yaxis"]["showgrid"] is True  # kept from the defaults
    assert layout["bargap"] == 0.05 and layout["font"]["size"] == 30 and layout["font"]["family"] == "Inter"


def test_merge_replaces_lists_and_leaves_its_inputs_alone():
    base = {"a": {"b": 1, "c": [1, 2]}, "d": 1}
    assert merge(base, {"a": {"c": [3]}, "e": {"f": 1}}) == {"a": {"b": 1, "c": [3]}, "d": 1, "e": {"f": 1}}
    assert base == {"a": {"b": 1, "c": [1, 2]}, "d": 1}


def test_text_scales_with_the_layer():
    small = build_figure(chart_layer(chartType="bar", width=300, height=200), "Inter")["layout"]["font"]["size"]
    large = build_figure(chart_layer(chartType="bar", width=1200, height=700), "Inter")["layout"]["font"]["size"]
    assert 11 <= small < large <= 20


def test_image_sources_other_than_data_uris_are_left_out_with_a_warning():
    settings = {
        "images": [{"source": "https://example.com/logo.png", "x": 0}, {"source": "data:image/png;base64,AAAA"}],
        "title": {"text": "https://example.com stays: text is not fetched"},
    }
    ctx = LayoutContext(fonts=FontBook.bundled(), assets=None)
    inline = chart._inline_only(settings, "plotly", "sales", ctx)
    assert inline["images"] == [{"x": 0}, {"source": "data:image/png;base64,AAAA"}]
    assert inline["title"] == settings["title"]
    assert ctx.warnings == ["layer 'sales': plotly.images[0].source: charts take images only as data: URIs; left out"]


# --- finding a browser (no browser started) ------------------------------------------


def executable(path: Path) -> str:
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def test_templatekit_chrome_comes_before_browser_path(tmp_path, monkeypatch):
    ours, theirs = executable(tmp_path / "ours"), executable(tmp_path / "theirs")
    monkeypatch.delenv("TEMPLATEKIT_CHROME", raising=False)
    monkeypatch.setenv("BROWSER_PATH", theirs)
    assert render.find_browser() == theirs
    monkeypatch.setenv("TEMPLATEKIT_CHROME", ours)
    assert render.find_browser() == ours


def test_no_browser_anywhere_says_how_to_get_one(tmp_path, monkeypatch):
    for name in render.BROWSER_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(render, "BROWSER_PATHS", ())
    with pytest.raises(tk.RenderError, match=r"apt-get install chromium\) or set TEMPLATEKIT_CHROME"):
        render.find_browser()
    monkeypatch.setattr(render, "BROWSER_PATHS", (executable(tmp_path / "chromium-somewhere"),))
    assert render.find_browser().endswith("chromium-somewhere")


# --- real renders ----------------------------------------------------------------------


RED, BLUE, AMBER = "#e11d48", "#2563eb", "#d97706"


def chart_template(kind: str = "bar", rows=None, width: int = 360, height: int = 240, **fields) -> dict:
    """A chart drawn by Plotly: given ``plotly`` layout settings (none: a harmless one)."""
    rows = rows if rows is not None else SERIES
    fields.setdefault("plotly", {"hovermode": False})
    spec = layer("chart", "sales", width=width, height=height, chartType=kind, rows=rows, **fields)
    return template(spec, width=width, height=height, background="#ffffff")


def figure_template(figure, width: int = 360, height: int = 240, **fields) -> dict:
    spec = layer("chart", "sales", width=width, height=height, figure=figure, **fields)
    return template(spec, width=width, height=height, background="#ffffff")


def pixels_near(image, color: str, tolerance: int = 10) -> int:
    target = tuple(int(color[i : i + 2], 16) for i in (1, 3, 5))
    counts = image.convert("RGB").getcolors(1 << 24)
    return sum(n for n, rgb in counts if all(abs(a - b) <= tolerance for a, b in zip(rgb, target, strict=True)))


@needs_chrome
@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_draws_its_colours(kind):
    if kind in ("pie", "doughnut"):
        rows = [
            {"label": "a", "value": 5, "color": RED},
            {"label": "b", "value": 3, "color": BLUE},
            {"label": "c", "value": 2, "color": AMBER},
        ]
    else:
        rows = [{**SERIES[0], "color": RED}, {**SERIES[1], "color": BLUE}]
    result = tk.render_image(chart_template(kind, rows))
    assert result.warnings == ()
    image = decode(result.data)
    assert image.size == (360, 240)
    for color in (RED, BLUE, AMBER) if kind in ("pie", "doughnut") else (RED, BLUE):
        assert pixels_near(image, color) > 60, f"{kind}: too few pixels of {color}"


@needs_chrome
def test_a_chart_is_one_image_covering_the_layer_at_twice_its_size():
    spec = layer(
        "chart", "sales", x=20, y=10, width=300, height=150, chartType="line", rows=SERIES, plotly={"hovermode": False}
    )
    (group,) = tk.prepare(template(spec)).scene.items
    assert isinstance(group, Group) and len(group.items) == 1
    image = group.items[0]
    assert isinstance(image, Image) and (image.x, image.y, image.width, image.height) == (20, 10, 300, 150)
    assert image.key.startswith("chart:") and image.image.size == (600, 300)
    other = layer(
        "chart", "sales", x=20, y=10, width=300, height=150, chartType="line", rows=POINTS, plotly={"hovermode": False}
    )
    assert tk.prepare(template(other)).scene.items[0].items[0].key != image.key


@needs_chrome
def test_charts_draw_with_the_bundled_and_template_fonts(tmp_path):
    """A template font that is Inter's own file draws exactly like the bundled Inter (so
    Chrome draws with Inter, not a system font), and another family draws differently."""
    (tmp_path / "brand.ttf").write_bytes((FONT_DIR / "Inter-Regular.otf").read_bytes())

    def render_in(font: str) -> bytes:
        data = chart_template("bar", font=font, plotly={"title": {"text": "Quarterly sales 2026"}})
        data["fonts"] = [{"family": "Brand", "src": "brand.ttf"}]
        return tk.render_image(tk.load_template(data, base_dir=tmp_path)).data

    inter, brand, script = render_in("Inter"), render_in("Brand"), render_in("Dancing Script")
    assert inter == brand
    assert inter != script


def test_a_missing_browser_is_a_render_error_saying_how_to_get_one(monkeypatch):
    render.shutdown()
    monkeypatch.setenv("TEMPLATEKIT_CHROME", "/nonexistent")
    with pytest.raises(tk.RenderError) as error:
        tk.render_image(chart_template("bar", [{"label": "nobrowser", "value": 1}]))
    message = str(error.value)
    assert message.startswith(
        "layer 'sales': charts need Chrome or Chromium: install it (Debian/Ubuntu: apt-get install chromium) "
        "or set TEMPLATEKIT_CHROME to its path"
    )
    assert "'/nonexistent'" in message


@needs_chrome
def test_twenty_charts_start_the_browser_once():
    render.shutdown()
    before = render.browser_starts()
    keys = set()
    for i in range(20):
        rows = [{"label": "a", "value": i + 1}, {"label": "b", "value": 20 - i}]
        prepared = tk.prepare(chart_template("bar", rows, width=160, height=100))
        keys.add(prepared.scene.items[0].items[0].key)
    assert render.browser_starts() - before == 1
    assert len(keys) == 20


@needs_chrome
def test_charts_render_from_many_threads():
    def render_one(i: int) -> tk.RenderResult:
        return tk.render_image(chart_template("line", [{"label": "a", "value": i}, {"label": "b", "value": 1}]))

    results: list[tk.RenderResult] = []
    threads = [threading.Thread(target=lambda i=i: results.append(render_one(i))) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 6 and len({r.data for r in results}) == 6


@needs_chrome
def test_a_cached_chart_skips_the_browser_and_is_identical(monkeypatch):
    data = chart_template("doughnut", POINTS, title="Cached")
    first = tk.render_image(data)

    def no_browser(*args, **kwargs):
        raise AssertionError("the browser was asked again")

    monkeypatch.setattr(render._BROWSER, "render", no_browser)
    started = time.perf_counter()
    again = tk.render_image(data)
    assert time.perf_counter() - started < 0.25
    assert again.data == first.data


@needs_chrome
def test_a_crashed_browser_is_restarted():
    tk.render_image(chart_template("bar", POINTS))
    before = render.browser_starts()
    os.killpg(render._BROWSER._session.kaleido.subprocess.pid, signal.SIGKILL)
    result = tk.render_image(chart_template("bar", [{"label": "after", "value": 1}]))
    assert decode(result.data).size == (360, 240)
    assert render.browser_starts() == before + 1


@needs_chrome
def test_a_stuck_browser_is_restarted_once_then_the_layer_fails(monkeypatch):
    monkeypatch.setattr(render, "RENDER_TIMEOUT", 0.001)
    before = render.browser_starts()
    with pytest.raises(tk.RenderError, match=r"layer 'sales': Chrome timed out .* also after a restart"):
        tk.render_image(chart_template("bar", [{"label": "slow", "value": 1}]))
    assert 1 <= render.browser_starts() - before <= 2


# --- whole Plotly figures ------------------------------------------------------------


FUNNEL = {"data": [{"type": "funnel", "y": ["Visits", "Carts", "Orders"], "x": [900, 300, 120]}], "layout": {}}


@needs_chrome
def test_a_whole_plotly_figure_is_drawn_at_the_layer_size_in_its_font():
    figure = {**FUNNEL, "data": [{**FUNNEL["data"][0], "marker": {"color": RED}}]}
    result = tk.render_image(figure_template(figure))
    assert result.warnings == ()
    image = decode(result.data)
    assert image.size == (360, 240) and pixels_near(image, RED) > 500
    (group,) = tk.prepare(figure_template(figure)).scene.items
    assert group.items[0].image.size == (720, 480)  # drawn at twice the size, like every chart


@needs_chrome
def test_a_figure_object_can_replace_a_native_chart_by_modification():
    native = chart_template("bar", POINTS)
    native["layers"][0].pop("plotly")
    figure = go.Figure(go.Funnel(y=["Visits", "Orders"], x=[10, 4], marker={"color": BLUE}))
    result = tk.render_image(native, [{"name": "sales", "figure": figure}])
    assert pixels_near(decode(result.data), BLUE) > 500
    assert pixels_near(decode(tk.render_image(native).data), PALETTE[0].hex) > 500  # drawn natively without it


def test_a_figure_must_be_plotly_json():
    with pytest.raises(tk.TemplateError, match=r"layers\[0\]\.figure: a Plotly figure's data must be a list"):
        tk.load_template(figure_template({"data": {"type": "bar"}}))
    with pytest.raises(tk.TemplateError, match=r"unknown: frame"):
        tk.load_template(figure_template({"data": [], "frame": 1}))
    loaded = tk.load_template(figure_template(go.Figure(go.Bar(y=[1, 2]))))  # a figure object in a template
    assert loaded.layers[0].figure["data"][0] == {"type": "bar", "y": [1, 2]}
    with pytest.raises(tk.TemplateError, match=r"\(template\): must be JSON data \(object is not JSON data\)"):
        tk.load_template(figure_template(object()))


@needs_chrome
def test_a_figure_in_a_pdf_is_vector_with_searchable_text():
    figure = {**FUNNEL, "layout": {"title": {"text": "Checkout funnel"}}}
    pdf = tk.render_pdf(figure_template(figure)).data
    import pdfminer.high_level

    text = pdfminer.high_level.extract_text(io.BytesIO(pdf))
    assert "Checkout funnel" in text and "Visits" in text
