"""Charts given as whole Plotly figures (``figure``): finding a browser, and real renders
through Kaleido's Chrome (skipped when none is installed), with the browser shared by all
figures of the process, cached, restarted and drawing the template's fonts."""

from __future__ import annotations

import io
import os
import signal
import threading
import time
from pathlib import Path

import plotly.graph_objects as go
import pytest

import templatekit as tk
from templatekit.browser import chrome, locate
from templatekit.layout import chart
from templatekit.layout.charts.style import PALETTE
from templatekit.layout.context import LayoutContext
from templatekit.scene import Group, Image
from templatekit.text.fonts import FONT_DIR, FontBook
from tests.conftest import decode, layer, needs_chrome, template

pytestmark = pytest.mark.slow

POINTS = [{"label": "1", "value": 3}, {"label": "2", "value": 5}, {"label": "3", "value": 2}]


def test_merge_replaces_lists_and_leaves_its_inputs_alone():
    base = {"a": {"b": 1, "c": [1, 2]}, "d": 1}
    assert chart.merge(base, {"a": {"c": [3]}, "e": {"f": 1}}) == {"a": {"b": 1, "c": [3]}, "d": 1, "e": {"f": 1}}
    assert base == {"a": {"b": 1, "c": [1, 2]}, "d": 1}


def test_image_sources_other_than_data_uris_are_left_out_with_a_warning():
    figure = {
        "data": [],
        "layout": {
            "images": [{"source": "https://example.com/logo.png", "x": 0}, {"source": "data:image/png;base64,AAAA"}],
            "title": {"text": "https://example.com stays: text is not fetched"},
        },
    }
    ctx = LayoutContext(fonts=FontBook.bundled(), assets=None)
    inline = chart._inline_only(figure, "sales", ctx)
    assert inline["layout"]["images"] == [{"x": 0}, {"source": "data:image/png;base64,AAAA"}]
    assert inline["layout"]["title"] == figure["layout"]["title"]
    assert ctx.warnings == [
        "layer 'sales': figure.layout.images[0].source: charts take images only as data: URIs; left out"
    ]


# --- finding a browser (no browser started) ------------------------------------------


def executable(path: Path) -> str:
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def test_templatekit_chrome_comes_before_browser_path(tmp_path, monkeypatch):
    ours, theirs = executable(tmp_path / "ours"), executable(tmp_path / "theirs")
    monkeypatch.delenv("TEMPLATEKIT_CHROME", raising=False)
    monkeypatch.setenv("BROWSER_PATH", theirs)
    assert locate.find_browser() == theirs
    monkeypatch.setenv("TEMPLATEKIT_CHROME", ours)
    assert locate.find_browser() == ours


def test_no_browser_anywhere_says_how_to_get_one(tmp_path, monkeypatch):
    for name in locate.BROWSER_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(locate, "BROWSER_PATHS", ())
    with pytest.raises(tk.RenderError, match=r"apt-get install chromium\) or set TEMPLATEKIT_CHROME"):
        locate.find_browser()
    monkeypatch.setattr(locate, "BROWSER_PATHS", (executable(tmp_path / "chromium-somewhere"),))
    assert locate.find_browser().endswith("chromium-somewhere")


# --- real renders ----------------------------------------------------------------------


RED, BLUE, AMBER = "#e11d48", "#2563eb", "#d97706"


def bars(values: dict[str, float], color: str | None = None, **layout) -> dict:
    """A Plotly figure of one bar trace."""
    marker = {"color": color} if color else {}
    trace = {"type": "bar", "x": list(values), "y": list(values.values()), "marker": marker}
    return {"data": [trace], "layout": layout}


def chart_template(figure: dict | None = None, width: int = 360, height: int = 240, **fields) -> dict:
    """A chart given as a whole Plotly figure (by default a small bar chart)."""
    figure = figure if figure is not None else bars({"a": 3, "b": 5})
    spec = layer("chart", "sales", width=width, height=height, figure=figure, **fields)
    return template(spec, width=width, height=height, background="#ffffff")


def pixels_near(image, color: str, tolerance: int = 10) -> int:
    target = tuple(int(color[i : i + 2], 16) for i in (1, 3, 5))
    counts = image.convert("RGB").getcolors(1 << 24)
    return sum(n for n, rgb in counts if all(abs(a - b) <= tolerance for a, b in zip(rgb, target, strict=True)))


@needs_chrome
@pytest.mark.parametrize(
    "trace",
    [
        {"type": "bar", "x": ["a", "b", "c"], "y": [5, 3, 2], "marker": {"color": [RED, BLUE, AMBER]}},
        {"type": "pie", "labels": ["a", "b", "c"], "values": [5, 3, 2], "marker": {"colors": [RED, BLUE, AMBER]}},
        {"type": "funnel", "y": ["a", "b", "c"], "x": [5, 3, 2], "marker": {"color": [RED, BLUE, AMBER]}},
    ],
    ids=lambda trace: trace["type"],
)
def test_a_figure_draws_its_colours(trace):
    result = tk.render_image(chart_template({"data": [trace], "layout": {}}))
    assert result.warnings == ()
    image = decode(result.data)
    assert image.size == (360, 240)
    for color in (RED, BLUE, AMBER):
        assert pixels_near(image, color) > 60, f"{trace['type']}: too few pixels of {color}"


@needs_chrome
def test_a_chart_is_one_image_covering_the_layer_at_twice_its_size():
    spec = layer("chart", "sales", x=20, y=10, width=300, height=150, figure=bars({"a": 3, "b": 5}))
    (group,) = tk.prepare(template(spec)).scene.items
    assert isinstance(group, Group) and len(group.items) == 1
    image = group.items[0]
    assert isinstance(image, Image) and (image.x, image.y, image.width, image.height) == (20, 10, 300, 150)
    assert image.key.startswith("chart:") and image.image.size == (600, 300)
    other = layer("chart", "sales", x=20, y=10, width=300, height=150, figure=bars({"a": 3, "b": 4}))
    assert tk.prepare(template(other)).scene.items[0].items[0].key != image.key


@needs_chrome
def test_charts_draw_with_the_bundled_and_template_fonts(tmp_path):
    """A template font that is Inter's own file draws exactly like the bundled Inter (so
    Chrome draws with Inter, not a system font), and another family draws differently."""
    (tmp_path / "brand.ttf").write_bytes((FONT_DIR / "Inter-Regular.otf").read_bytes())

    def render_in(font: str) -> bytes:
        data = chart_template(bars({"a": 3, "b": 5}, title={"text": "Quarterly sales 2026"}), font=font)
        data["fonts"] = [{"family": "Brand", "src": "brand.ttf"}]
        return tk.render_image(tk.load_template(data, base_dir=tmp_path)).data

    inter, brand, script = render_in("Inter"), render_in("Brand"), render_in("Dancing Script")
    assert inter == brand
    assert inter != script


def test_a_missing_browser_is_a_render_error_saying_how_to_get_one(monkeypatch):
    chrome.shutdown()
    monkeypatch.setenv("TEMPLATEKIT_CHROME", "/nonexistent")
    with pytest.raises(tk.RenderError) as error:
        tk.render_image(chart_template(bars({"nobrowser": 1})))
    message = str(error.value)
    assert message.startswith(
        "layer 'sales': charts need Chrome or Chromium: install it (Debian/Ubuntu: apt-get install chromium) "
        "or set TEMPLATEKIT_CHROME to its path"
    )
    assert "'/nonexistent'" in message


@needs_chrome
def test_twenty_charts_start_the_browser_once():
    chrome.shutdown()
    before = chrome.browser_starts()
    keys = set()
    for i in range(20):
        prepared = tk.prepare(chart_template(bars({"a": i + 1, "b": 20 - i}), width=160, height=100))
        keys.add(prepared.scene.items[0].items[0].key)
    assert chrome.browser_starts() - before == 1
    assert len(keys) == 20


@needs_chrome
def test_charts_render_from_many_threads():
    def render_one(i: int) -> tk.RenderResult:
        return tk.render_image(chart_template(bars({"a": i, "b": 1})))

    results: list[tk.RenderResult] = []
    threads = [threading.Thread(target=lambda i=i: results.append(render_one(i))) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 6 and len({r.data for r in results}) == 6


@needs_chrome
def test_a_cached_chart_skips_the_browser_and_is_identical(monkeypatch):
    data = chart_template({"data": [{"type": "pie", "labels": ["a", "b"], "values": [3, 5], "hole": 0.5}]})
    first = tk.render_image(data)

    def no_browser(*args, **kwargs):
        raise AssertionError("the browser was asked again")

    monkeypatch.setattr(chrome._BROWSER, "render", no_browser)
    started = time.perf_counter()
    again = tk.render_image(data)
    assert time.perf_counter() - started < 0.25
    assert again.data == first.data


@needs_chrome
def test_a_crashed_browser_is_restarted():
    tk.render_image(chart_template())
    before = chrome.browser_starts()
    os.killpg(chrome._BROWSER._session.kaleido.subprocess.pid, signal.SIGKILL)
    result = tk.render_image(chart_template(bars({"after": 1})))
    assert decode(result.data).size == (360, 240)
    assert chrome.browser_starts() == before + 1


@needs_chrome
def test_a_stuck_browser_is_restarted_once_then_the_layer_fails(monkeypatch):
    monkeypatch.setattr(chrome, "RENDER_TIMEOUT", 0.001)
    before = chrome.browser_starts()
    with pytest.raises(tk.RenderError, match=r"layer 'sales': Chrome timed out .* also after a restart"):
        tk.render_image(chart_template(bars({"slow": 1})))
    assert 1 <= chrome.browser_starts() - before <= 2


# --- whole Plotly figures ------------------------------------------------------------


FUNNEL = {"data": [{"type": "funnel", "y": ["Visits", "Carts", "Orders"], "x": [900, 300, 120]}], "layout": {}}


@needs_chrome
def test_a_whole_plotly_figure_is_drawn_at_the_layer_size_in_its_font():
    figure = {**FUNNEL, "data": [{**FUNNEL["data"][0], "marker": {"color": RED}}]}
    result = tk.render_image(chart_template(figure))
    assert result.warnings == ()
    image = decode(result.data)
    assert image.size == (360, 240) and pixels_near(image, RED) > 500
    (group,) = tk.prepare(chart_template(figure)).scene.items
    assert group.items[0].image.size == (720, 480)  # drawn at twice the size, like every chart


@needs_chrome
def test_a_figure_object_can_replace_a_native_chart_by_modification():
    spec = layer("chart", "sales", width=360, height=240, rows=POINTS)
    native = template(spec, width=360, height=240, background="#ffffff")
    figure = go.Figure(go.Funnel(y=["Visits", "Orders"], x=[10, 4], marker={"color": BLUE}))
    result = tk.render_image(native, [{"name": "sales", "figure": figure}])
    assert pixels_near(decode(result.data), BLUE) > 500
    assert pixels_near(decode(tk.render_image(native).data), PALETTE[0].hex) > 500  # drawn natively without it


def test_a_figure_must_be_plotly_json():
    with pytest.raises(tk.TemplateError, match=r"layers\[0\]\.figure: a Plotly figure's data must be a list"):
        tk.load_template(chart_template({"data": {"type": "bar"}}))
    with pytest.raises(tk.TemplateError, match=r"unknown: frame"):
        tk.load_template(chart_template({"data": [], "frame": 1}))
    loaded = tk.load_template(chart_template(go.Figure(go.Bar(y=[1, 2]))))  # a figure object in a template
    assert loaded.layers[0].figure["data"][0] == {"type": "bar", "y": [1, 2]}
    with pytest.raises(tk.TemplateError, match=r"\(template\): must be JSON data \(object is not JSON data\)"):
        tk.load_template(chart_template(object()))


@needs_chrome
def test_a_figure_in_a_pdf_is_vector_with_searchable_text():
    figure = {**FUNNEL, "layout": {"title": {"text": "Checkout funnel"}}}
    pdf = tk.render_pdf(chart_template(figure)).data
    import pdfminer.high_level

    text = pdfminer.high_level.extract_text(io.BytesIO(pdf))
    assert "Checkout funnel" in text and "Visits" in text
