"""Charts drawn by the engine: checked on the Scene (what is drawn where, with which
text) and on decoded pixels; the hard cases of fixed boxes (long labels, many slices,
many categories, negative values) drawn without overlaps and with warnings."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import textwrap

import pdfminer.high_level
import pytest
from PIL import ImageChops, ImageStat

import templatekit as tk
from templatekit.layout.charts.canvas import Canvas
from templatekit.layout.charts.pie import _percents
from templatekit.layout.charts.style import AXIS, GRID, OTHER, PALETTE, Metrics
from templatekit.numbers import MINUS, FormatError, NumberFormat, auto_format, nice_ticks
from templatekit.scene import Ellipse, GlyphRun, Group, Line, Path, Rect
from tests.conftest import decode, layer, template, without_modules
from tests.pdf_readers import pdf_objects

KINDS = ("bar", "horizontalBar", "line", "area", "pie", "doughnut", "scatter")
POINTS = [{"label": "Q1", "value": 3}, {"label": "Q2", "value": 5}, {"label": "Q3", "value": 2}]
SERIES = [
    {"name": "North", "data": [{"label": "Q1", "value": 3}, {"label": "Q2", "value": 5}, {"label": "Q3", "value": 4}]},
    {"name": "South", "data": [{"label": "Q1", "value": 2}, {"label": "Q2", "value": 4}, {"label": "Q3", "value": 6}]},
]
LONG = [
    {"label": "North America and the Caribbean", "value": 540},
    {"label": "Europe, Middle East & Africa", "value": 310},
    {"label": "Asia-Pacific including Oceania", "value": 150},
    {"label": "Latin America", "value": 90},
]
MANY = [{"label": f"Category {i + 1}", "value": 30 - i} for i in range(30)]
RED, BLUE = "#e11d48", "#2563eb"


def chart(kind: str = "bar", rows=None, width: int = 420, height: int = 300, **fields) -> dict:
    spec = layer("chart", "sales", width=width, height=height, chartType=kind, rows=POINTS if rows is None else rows)
    return template({**spec, **fields}, width=width, height=height, background="#ffffff")


def drawn(data: dict, modifications=None) -> tuple[list, tuple[str, ...]]:
    """The chart layer's items (flattened) and the render's warnings."""
    prepared = tk.prepare(data, modifications)
    (group,) = prepared.scene.items
    return list(flatten(group)), prepared.warnings


def flatten(item):
    if isinstance(item, Group):
        for child in item.items:
            yield from flatten(child)
    else:
        yield item


def texts(items) -> list[str]:
    return [item.text for item in items if isinstance(item, GlyphRun)]


def text_box(run: GlyphRun) -> tuple[float, float, float, float]:
    return (run.x, run.y - run.size * 0.75, run.x + run.width, run.y + run.size * 0.2)


def bounds(item) -> tuple[float, float, float, float]:
    if isinstance(item, GlyphRun):
        return text_box(item)
    if isinstance(item, Path):
        return item.bounds()
    if isinstance(item, (Rect, Ellipse)):
        return (item.x, item.y, item.x + item.width, item.y + item.height)
    raise TypeError(item)


def overlap(a, b, slack: float = 0.5) -> bool:
    return a[0] < b[2] - slack and b[0] < a[2] - slack and a[1] < b[3] - slack and b[1] < a[3] - slack


def words(items) -> list[tuple[float, float, float, float]]:
    """Boxes of whole texts: the runs of one text on one baseline count as one."""
    runs = sorted((r for r in items if isinstance(r, GlyphRun)), key=lambda r: (round(r.y, 1), r.x))
    merged: list[list[float]] = []
    for run in runs:
        box = list(text_box(run))
        last = merged[-1] if merged else None
        if last and abs(last[3] - box[3]) < 0.5 and box[0] <= last[2] + 0.5:
            last[2] = max(last[2], box[2])
        else:
            merged.append(box)
    return [tuple(box) for box in merged]


def assert_nothing_overlaps(items, box=(0, 0, 420, 300)):
    boxes = words(items)
    for i, a in enumerate(boxes):
        assert box[0] - 1 <= a[0] and a[2] <= box[2] + 1 and box[1] - 1 <= a[1] and a[3] <= box[3] + 1, a
        for b in boxes[i + 1 :]:
            assert not overlap(a, b), (a, b)


def marks(items) -> list:
    return [i for i in items if isinstance(i, Path) and i.fill is not None and i.fill not in (GRID, AXIS)]


def pixels_near(image, color: str, tolerance: int = 10) -> int:
    target = tuple(int(color[i : i + 2], 16) for i in (1, 3, 5))
    counts = image.convert("RGB").getcolors(1 << 24)
    return sum(n for n, rgb in counts if all(abs(a - b) <= tolerance for a, b in zip(rgb, target, strict=True)))


# --- numbers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("low", "high", "intervals", "ticks"),
    [
        (0, 24, 6, [0, 5, 10, 15, 20, 25]),
        (0, 26, 6, [0, 5, 10, 15, 20, 25, 30]),
        (-5, 39, 6, [-10, 0, 10, 20, 30, 40]),
        (0, 1, 5, [0, 0.2, 0.4, 0.6, 0.8, 1]),
        (-0.3, 0.7, 5, [-0.4, -0.2, 0, 0.2, 0.4, 0.6, 0.8]),  # one more tick, covering the data closely
        (0, 540, 4, [0, 200, 400, 600]),
        (0, 2_600_000, 4, [0, 1_000_000, 2_000_000, 3_000_000]),
        (3, 3, 4, [3, 4, 5, 6]),
        (0, 1410, 6.9, [0, 200, 400, 600, 800, 1000, 1200, 1400, 1600]),  # not 0-1,500 by 500
        (0, 101, 4, [0, 20, 40, 60, 80, 100, 120]),  # not 0-150 by 50, a third of it empty
    ],
)
def test_nice_ticks_are_round_cover_the_data_and_come_near_the_intervals_asked(low, high, intervals, ticks):
    assert nice_ticks(low, high, intervals) == ticks


@pytest.mark.parametrize(
    ("spec", "value", "text"),
    [
        ("$,.0f", 1234567.8, "$1,234,568"),
        ("$,.2f", -1200, f"{MINUS}$1,200.00"),
        ("€,.0f", 999.6, "€1,000"),
        (".0%", 0.256, "26%"),
        (".1%", -0.0004, "0.0%"),  # rounds to zero: no sign
        (".3s", 1_234_567, "1.23M"),
        ("s", 2_500, "2.5k"),
        ("{,.1f} kg", 12345.67, "12,345.7 kg"),
        ("d", 12.6, "13"),
        (",", 1234.5, "1,235"),  # halves round away from zero
        # words around a spec are kept as written
        (",.0f kg", 12345.67, "12,346 kg"),
        ("€ ,.1f", -2.25, f"{MINUS}€ 2.3"),
        ("USD ,.2f", 7, "USD 7.00"),
        (",.0f%", 40, "40%"),
    ],
)
def test_value_formats(spec, value, text):
    assert NumberFormat.parse(spec)(value) == text


@pytest.mark.parametrize("spec", ["x", "$,.2q", "{,.1f", "{a}{b}", ".f2", "units", "kg,.x"])
def test_a_value_format_the_language_does_not_have_is_refused(spec):
    with pytest.raises(FormatError, match="spec"):
        NumberFormat.parse(spec)
    with pytest.raises(tk.TemplateError, match=r"layers\[0\]\.valueFormat: .*"):
        tk.load_template(chart(valueFormat=spec))


def test_axes_without_a_format_read_as_people_write_numbers():
    assert [auto_format([0, 0.2, 0.4])(v) for v in (0, 0.2)] == ["0.0", "0.2"]
    assert auto_format([0, 2000, 4000])(2000) == "2,000"
    assert auto_format([0, 50_000, 100_000])(50_000) == "50k"
    assert auto_format([0, 1_000_000, 2_000_000])(2_000_000) == "2M"


def test_percentages_add_up_to_a_hundred():
    assert _percents([1, 1, 1]) == ["34%", "33%", "33%"]
    assert _percents([1000, 1]) == ["100%", "<1%"]
    assert sum(int(p.rstrip("%").lstrip("<")) for p in _percents([3.3, 7.1, 12.6, 50, 27])) == 100


# --- every kind ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("rows", [POINTS, SERIES], ids=["points", "series"])
def test_every_kind_draws_its_data_in_the_palette_without_warnings(kind, rows):
    result = tk.render_image(chart(kind, rows, title="Sales"))
    assert result.warnings == ()
    image = decode(result.data)
    assert image.size == (420, 300)
    colours = 3 if kind in ("pie", "doughnut") else len(rows) if rows is SERIES else 1
    for colour in PALETTE[:colours]:
        assert pixels_near(image, colour.hex) > 40, f"{kind}: too few pixels of {colour.hex}"


def test_the_title_axis_legend_and_category_texts_are_set_with_the_engine():
    items, warnings = drawn(chart("bar", SERIES, title="Sales by quarter"))
    shown = texts(items)
    assert warnings == ()
    assert shown[0] == "Sales by quarter"
    assert {"North", "South", "Q1", "Q2", "Q3", "0", "2", "4", "6"} <= set(shown)
    fonts = {run.font.path.rsplit("/", 1)[-1] for run in items if isinstance(run, GlyphRun)}
    assert fonts <= {"Inter-Regular.otf", "Inter-SemiBold.otf"}
    title, tick = next(r for r in items if isinstance(r, GlyphRun)), next(r for r in items if texts([r]) == ["6"])
    assert title.size > tick.size


def test_bars_stand_side_by_side_or_stacked_and_rounded_at_their_end():
    side, _ = drawn(chart("bar", SERIES))
    bars = marks(side)
    assert len(bars) == 6
    first, second = bars[0].bounds(), bars[1].bounds()
    assert first[2] <= second[0]  # North's Q1 bar left of South's
    assert any(c[0] == "C" for c in bars[0].commands)  # rounded corners
    stacked, _ = drawn(chart("bar", SERIES, stacked=True))
    lower, upper = marks(stacked)[0].bounds(), marks(stacked)[1].bounds()
    assert lower[0] == upper[0] and upper[3] == pytest.approx(lower[1])  # South's Q1 on top of North's
    assert not any(c[0] == "C" for c in marks(stacked)[0].commands)  # only the top of a stack is rounded


def test_negative_values_hang_from_a_zero_line():
    rows = [{"label": "a", "value": -20}, {"label": "b", "value": 30}]
    items, _ = drawn(chart("bar", rows))
    (zero,) = [i for i in items if isinstance(i, Line) and i.color == AXIS]
    down, up = (bar.bounds() for bar in marks(items))
    assert down[1] == pytest.approx(zero.start[1]) and down[3] > zero.start[1]
    assert up[3] == pytest.approx(zero.start[1]) and up[1] < zero.start[1]
    assert f"{MINUS}20" in texts(items)
    for kind in ("horizontalBar", "line", "area", "scatter"):
        result = tk.render_image(chart(kind, rows))
        assert result.warnings == () and pixels_near(decode(result.data), PALETTE[0].hex) > 40


def test_horizontal_bars_run_from_the_top_with_level_value_labels_and_room_at_the_end():
    items, _ = drawn(chart("horizontalBar", POINTS, valueLabels=True))
    bars = marks(items)
    assert [b.bounds()[1] for b in bars] == sorted(b.bounds()[1] for b in bars)  # Q1 at the top
    gridlines = [i.start[0] for i in items if isinstance(i, Line) and i.color == GRID]
    longest = max(b.bounds()[2] for b in bars)
    assert longest < max(gridlines)  # the longest bar stops short of the plot's end
    labels = {t: r for r in items if isinstance(r, GlyphRun) for t in [r.text]}
    assert labels["5"].x > longest  # its value label beside it
    assert_nothing_overlaps(items)


def test_value_labels_use_the_format():
    rows = [{"label": "Jan", "value": 1200}, {"label": "Feb", "value": -560}]
    items, _ = drawn(chart("line", rows, valueFormat="$,.0f", valueLabels=True))
    assert {"$1,200", f"{MINUS}$560", "$1,000", "$0"} <= set(texts(items))
    items, _ = drawn(chart("area", [{"label": "a", "value": 0.25}], valueFormat=".0%", valueLabels=True))
    assert "25%" in texts(items)


def test_scatter_with_numeric_labels_has_a_numeric_axis():
    rows = [{"label": str(x), "value": x * x} for x in (-4, 1, 10)]
    items, _ = drawn(chart("scatter", rows))
    dots = [i for i in items if isinstance(i, Ellipse) and i.fill == PALETTE[0]]
    centres = [d.x + d.width / 2 for d in dots]
    assert (centres[1] - centres[0]) / (centres[2] - centres[1]) == pytest.approx(5 / 9, rel=0.01)
    assert {f"{MINUS}4", f"{MINUS}2", "0", "2", "10"} <= set(texts(items))


def test_point_and_series_colours_and_the_palette():
    rows = [{**SERIES[0], "color": RED}, SERIES[1]]
    items, _ = drawn(chart("bar", rows, colors=["#111111", BLUE]))
    fills = [m.fill.hex for m in marks(items)]
    assert fills.count(RED) == 3 and fills.count(BLUE) == 3
    own = [POINTS[0], {**POINTS[1], "color": RED}, POINTS[2]]
    assert [m.fill.hex for m in marks(drawn(chart("bar", own))[0])] == [PALETTE[0].hex, RED, PALETTE[0].hex]


# --- pies -----------------------------------------------------------------------------


def test_pie_slices_run_clockwise_from_the_top_with_their_percentages():
    items, _ = drawn(chart("pie", [{"label": "a", "value": 1}, {"label": "b", "value": 3}]))
    first, second = marks(items)
    assert first.commands[0][1] == pytest.approx(second.commands[-2][1])  # b ends where a starts: the top
    cx = (second.bounds()[0] + second.bounds()[2]) / 2
    assert first.bounds()[0] >= cx - 1  # a quarter, clockwise from the top: right of the centre
    assert {"25%", "75%", "a", "b"} <= set(texts(items))


def test_a_negative_slice_is_refused_naming_its_row():
    rows = [{"label": "Web", "value": 50}, {"label": "Store", "value": -30}]
    with pytest.raises(tk.TemplateError, match=r"layers\[0\]\.rows\[1\]\.value: .*negative \(label 'Store': -30\)"):
        tk.load_template(chart("pie", rows))
    with pytest.raises(tk.ModificationError, match=r"rows\[1\]\.value: .*negative \(label 'Store': -30\)"):
        tk.render_image(chart("doughnut"), [{"name": "sales", "rows": rows}])
    series = [{"name": "2025", "data": rows}]
    with pytest.raises(tk.TemplateError, match=r"rows\[0\]\.data\[1\]\.value"):
        tk.load_template(chart("pie", series))


def test_many_slices_are_grouped_into_other():
    items, warnings = drawn(chart("pie", MANY))
    slices = marks(items)
    assert len(slices) == 10 and slices[-1].fill == OTHER
    assert "Other" in texts(items) and "Category 9" in texts(items) and "Category 10" not in texts(items)
    assert warnings == ("layer 'sales': 21 of the smallest slices are grouped into 'Other' (maxSlices 10)",)
    assert_nothing_overlaps(items)


def test_a_legend_with_no_room_left_says_how_many_more():
    items, warnings = drawn(chart("doughnut", MANY, maxSlices=None))
    assert len(marks(items)) == 30
    more = [t for t in texts(items) if t.startswith("+")]
    shown = [t for t in texts(items) if t.startswith("Category")]
    assert more == [f"+{30 - len(shown)} more"]
    assert warnings == (f"layer 'sales': the legend has room for {len(shown)} of 30 entries; shows '{more[0]}'",)
    assert_nothing_overlaps(items)


@pytest.mark.parametrize(("width", "height"), [(420, 300), (300, 420), (640, 260), (260, 200)])
def test_a_long_legend_never_covers_the_pie_nor_squashes_it(width, height):
    items, _ = drawn(chart("pie", LONG, width=width, height=height))
    slices = marks(items)
    pie = (min(s.bounds()[0] for s in slices), min(s.bounds()[1] for s in slices))
    pie += (max(s.bounds()[2] for s in slices), max(s.bounds()[3] for s in slices))
    assert pie[2] - pie[0] >= 0.5 * min(width, height) - 1  # the pie keeps half the shorter side
    legend = [text_box(r) for r in items if isinstance(r, GlyphRun) and not r.text.endswith("%")]
    assert legend and all(not overlap(box, pie) for box in legend)
    assert_nothing_overlaps(items, (0, 0, width, height))


def test_without_a_legend_slices_are_labelled_outside_without_overlaps():
    rows = [*LONG, {"label": "Rest", "value": 8}, {"label": "Tiny", "value": 3}]
    items, _ = drawn(chart("pie", rows, legend=False))
    assert {"Rest", "Tiny", "<1%", "1%"} <= set(texts(items))
    leaders = [i for i in items if isinstance(i, Line) and i.color == AXIS]
    assert len(leaders) == 2 * len(rows)
    assert_nothing_overlaps(items)


def test_several_pies_share_colours_by_label_and_show_their_names():
    rows = [
        {"name": "2025", "data": [{"label": "x", "value": 1}, {"label": "y", "value": 2}]},
        {"name": "2026", "data": [{"label": "y", "value": 1}, {"label": "z", "value": 2}]},
    ]
    items, _ = drawn(chart("doughnut", rows))
    assert [m.fill for m in marks(items)] == [PALETTE[0], PALETTE[1], PALETTE[1], PALETTE[2]]
    assert {"2025", "2026"} <= set(texts(items))


# --- fixed boxes ----------------------------------------------------------------------


def test_long_category_labels_wrap_then_end_in_an_ellipsis_never_slanted():
    items, warnings = drawn(chart("bar", LONG))
    shown = texts(items)
    assert "North America" in shown and "and the…" in shown  # two lines, the second cut
    assert "Latin" in shown and "America" in shown  # two lines too, as the row wraps alike
    assert warnings[0].startswith(
        "layer 'sales': 3 category label(s) shortened to fit: 'North America and the Caribbe…'"
    )
    bars = marks(items)
    plot = min(b.bounds()[1] for b in bars), max(b.bounds()[3] for b in bars)
    assert plot[1] - plot[0] >= 0.5 * 300  # the plot keeps its share of the box
    assert_nothing_overlaps(items)


def test_many_categories_thin_out_to_legible_labels_with_a_warning():
    items, warnings = drawn(chart("horizontalBar", MANY))
    shown = [t for t in texts(items) if t.startswith("Category")]
    assert shown == [f"Category {n}" for n in range(1, 31, 2)]
    assert warnings == (
        "layer 'sales': shows every second category label (15 of 30): there is no room for all of them",
    )
    assert all(run.size >= 11 for run in items if isinstance(run, GlyphRun))
    assert len(marks(items)) == 30
    assert_nothing_overlaps(items)


def test_a_series_legend_wraps_under_the_title_and_keeps_to_its_share():
    rows = [{"name": f"Region number {i}", "data": POINTS} for i in range(24)]
    items, warnings = drawn(chart("line", rows, title="Regions"))
    assert any(w.startswith("layer 'sales': the legend has room for") for w in warnings)
    legend_bottom = max(
        text_box(r)[3] for r in items if isinstance(r, GlyphRun) and r.text.startswith(("Region ", "+"))
    )
    assert legend_bottom <= 300 * 0.25 + 60
    assert_nothing_overlaps(items)


def test_an_empty_chart_is_drawn_with_a_warning():
    result = tk.render_image(chart("bar", []))
    assert result.warnings == ("layer 'sales': rows is empty: the chart is drawn without data",)
    assert tk.render_image(chart("pie", [{"label": "a", "value": 0}])).warnings == (
        "layer 'sales': no values above zero: the chart is drawn empty",
    )


def test_labels_in_other_scripts_are_shaped_and_a_right_to_left_title_sits_right():
    rows = [{"label": "القاهرة", "value": 5}, {"label": "東京", "value": 8}, {"label": "서울", "value": 6}]
    items, warnings = drawn(chart("bar", rows, title="المبيعات حسب المنطقة"))
    assert warnings == ()
    title = next(r for r in items if isinstance(r, GlyphRun))
    assert title.rtl and title.x + title.width == pytest.approx(420, abs=1)
    assert {"القاهرة", "東京", "서울"} <= set(texts(items))


# --- the same chart in every output ---------------------------------------------------


def test_a_pdf_chart_is_vector_with_searchable_labels():
    data = chart("bar", SERIES, title="Sales by quarter", valueLabels=True)
    pdf = tk.render_pdf(data).data
    assert b"/Subtype /Image" not in pdf_objects(pdf)
    text = pdfminer.high_level.extract_text(io.BytesIO(pdf))
    for word in ("Sales by quarter", "North", "South", "Q1", "Q3"):
        assert word in text


def test_png_and_pdf_draw_the_same_chart():
    fitz = pytest.importorskip("fitz")
    data = chart("doughnut", LONG, title="Channels")
    png = decode(tk.render_image(data).data).convert("RGB")
    page = fitz.open(stream=tk.render_pdf(data).data, filetype="pdf")[0]
    pixmap = page.get_pixmap(dpi=96)  # a px is 0.75 pt
    pdf = decode(pixmap.tobytes("png")).convert("RGB")
    assert pdf.size == png.size
    difference = ImageStat.Stat(ImageChops.difference(png, pdf)).mean
    assert max(difference) < 3  # mean difference per channel, out of 255


def test_no_browser_is_started_and_plotly_is_not_needed(tmp_path):
    """With Plotly, Kaleido and every browser out of reach, every kind still renders (with
    the ``plotly`` settings of earlier charts too), and no process is started."""
    env = without_modules(tmp_path, "plotly", "kaleido", "choreographer")
    script = textwrap.dedent(
        f"""
        import json, subprocess, sys
        started = []
        original = subprocess.Popen.__init__
        def spy(self, *args, **kwargs):
            started.append(args[0] if args else kwargs.get("args"))
            original(self, *args, **kwargs)
        subprocess.Popen.__init__ = spy
        import templatekit as tk
        for kind in {KINDS!r}:
            data = json.loads(sys.argv[1])
            data["layers"][0]["chartType"] = kind
            tk.render_image(data)
            tk.render_pdf(data)
        leaked = [m for m in ("plotly", "kaleido", "choreographer") if m in sys.modules]
        print(json.dumps({{"started": [str(s) for s in started], "loaded": leaked}}))
        """
    )
    environment = {**env, "PATH": str(tmp_path), "TEMPLATEKIT_CHROME": "/nonexistent"}
    data = chart("bar", SERIES, title="No browser", plotly={"showlegend": False})
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(data)],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, **environment},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["loaded"] == []
    assert not [s for s in report["started"] if "chrom" in s.lower()], report["started"]


def test_a_video_frame_draws_the_chart_as_the_png_does():
    av = pytest.importorskip("av")
    data = chart("bar", SERIES, title="Sales by quarter", valueLabels=True)
    data["video"] = {"duration": 0.2, "fps": 10}
    png = decode(tk.render_image(data).data).convert("RGB")
    with av.open(io.BytesIO(tk.render_video(data).data)) as container:
        frame = next(container.decode(container.streams.video[0])).to_image().convert("RGB")
    assert frame.size == png.size
    difference = ImageStat.Stat(ImageChops.difference(png, frame)).mean
    assert max(difference) < 4  # H.264 and 4:2:0 colour blur a little; the chart is the same


# --- colours, ticks, markers and category labels -------------------------------------

OWN = ["#0b6e4f", "#c2410c", "#7c3aed", "#0369a1"]


def swatches(items, count: int) -> list[str]:
    """The colours of the legend's first ``count`` swatches: squares, or dots for lines
    and scatters (the legend is drawn before the plot)."""
    found = [i for i in items if isinstance(i, Rect | Ellipse) and i.fill not in (None, GRID, AXIS)]
    return [i.fill.hex for i in found if i.fill.hex != "#ffffff"][:count]


def lines(items) -> list:
    return [i for i in items if isinstance(i, Path) and i.stroke is not None and i.fill is None]


def markers_of(items) -> list:
    """The coloured dots of a line chart (each sits in a white ring)."""
    return [i for i in items if isinstance(i, Ellipse) and i.fill.hex != "#ffffff"]


@pytest.mark.parametrize("kind", KINDS)
def test_legend_swatches_take_the_rows_own_colours(kind):
    """Every row coloured: the legend names each slice or series in the colour it is drawn in."""
    if kind in ("pie", "doughnut"):
        rows = [{**point, "color": colour} for point, colour in zip(LONG, OWN, strict=True)]
        items, _ = drawn(chart(kind, rows))
        drawn_in = [m.fill.hex for m in marks(items)]
    else:
        rows = [{"name": f"Region {i}", "data": POINTS, "color": colour} for i, colour in enumerate(OWN)]
        items, _ = drawn(chart(kind, rows))
        shapes = marks(items) + lines(items) + markers_of(items)
        drawn_in = list(dict.fromkeys((m.fill or m.stroke).hex[:7] for m in shapes))
    assert drawn_in == OWN
    assert swatches(items, len(OWN)) == OWN


def test_a_label_coloured_in_one_pie_has_that_colour_in_every_pie_and_in_the_legend():
    rows = [
        {"name": "2025", "data": [{"label": "x", "value": 1}, {"label": "y", "value": 2}]},
        {"name": "2026", "data": [{"label": "y", "value": 1, "color": RED}, {"label": "z", "value": 2}]},
    ]
    items, warnings = drawn(chart("doughnut", rows))
    assert [m.fill.hex for m in marks(items)] == [PALETTE[0].hex, RED, RED, PALETTE[2].hex]
    assert swatches(items, 3) == [PALETTE[0].hex, RED, PALETTE[2].hex]
    assert warnings == ()
    rows[0]["data"][1]["color"] = BLUE  # two colours for one label: the legend can show one
    items, warnings = drawn(chart("doughnut", rows))
    assert [m.fill.hex for m in marks(items)][1:3] == [BLUE, RED]
    assert swatches(items, 3)[1] == BLUE
    assert warnings == (
        f"layer 'sales': label 'y' is given different colours in different pies; the legend shows the first ({BLUE})",
    )


def neighbours_differ(colours: list) -> bool:
    """No two slices side by side share a colour, the last and the first included."""
    return all(colours[i] != colours[i - 1] for i in range(len(colours)))


def test_the_palette_has_ten_colours_that_are_all_told_apart():
    assert len(PALETTE) >= 10 and len(set(PALETTE)) == len(PALETTE)
    assert OTHER not in PALETTE
    rows = [{"label": f"Slice {i}", "value": 1} for i in range(10)]
    fills = [m.fill for m in marks(drawn(chart("pie", rows))[0])]
    assert len(set(fills)) == 10


@pytest.mark.parametrize("count", [9, 10, 11, 12, 21, 30, 31])
def test_past_the_palette_colours_repeat_but_never_side_by_side(count):
    rows = [{"label": f"Slice {i}", "value": 1} for i in range(count)]
    fills = [m.fill for m in marks(drawn(chart("doughnut", rows, maxSlices=None))[0])]
    assert len(fills) == count and neighbours_differ(fills), [f.hex for f in fills]
    assert len(set(fills)) == min(count, len(PALETTE))
    series = [{"name": f"Series {i}", "data": POINTS} for i in range(count)]
    items, _ = drawn(chart("line", series, legend=False))
    strokes = [line.stroke for line in lines(items)]
    assert len(strokes) == count and all(a != b for a, b in zip(strokes, strokes[1:], strict=False))


def gridlines(items) -> list[float]:
    """The heights of a vertical value axis's gridlines and zero line, top to bottom."""
    return sorted({i.start[1] for i in items if isinstance(i, Line) and i.color in (GRID, AXIS)})


@pytest.mark.parametrize(
    ("height", "peak"),
    [(660, 1410), (660, 101), (300, 1410), (420, 48), (900, 7.5), (200, 30), (1200, 1410), (520, 2_600_000)],
)
def test_value_ticks_are_about_three_and_a_half_lines_apart(height, peak):
    """Chart.js steps by 200 on a 580 px axis up to 1,410 (its ticks come from the axis
    length and the font); ticks fall within a round step's reach of 3.5 lines apart."""
    rows = [{"label": m, "value": peak * f} for m, f in zip(("Jan", "Feb", "Mar"), (0.4, 1, 0.7), strict=True)]
    data = chart("bar", rows, width=800, height=height)
    items, _ = drawn(data)
    line = Metrics.of(800, height).line
    heights = gridlines(items)
    spacing = (heights[-1] - heights[0]) / (len(heights) - 1)
    assert 3.5 / 1.6 <= spacing / line <= 3.5 * 1.6, (spacing / line, texts(items))


@pytest.mark.parametrize("peak", [2, 3, 1.4])
def test_a_format_without_decimals_never_writes_two_ticks_alike(peak):
    """Counts up to 2 on a tall axis would step by 0.5; written with ``,.0f`` that reads
    0, 1, 1, 2, 2: the step grows until every tick reads apart."""
    rows = [{"label": m, "value": v} for m, v in (("Mon", peak), ("Tue", 1), ("Wed", 0))]
    items, _ = drawn(chart("bar", rows, width=600, height=600, valueFormat=",.0f"))
    numbers = [t for t in texts(items) if t[0].isdigit()]
    assert len(numbers) >= 2 and len(set(numbers)) == len(numbers), numbers
    assert len(gridlines(items)) == len(numbers)  # a line for each tick written


def test_a_580_px_axis_up_to_1410_steps_by_200():
    rows = [{"label": m, "value": v} for m, v in (("Jan", 620), ("Feb", 1410), ("Mar", 990))]
    items, _ = drawn(chart("bar", rows, width=800, height=620))
    heights = gridlines(items)
    assert heights[-1] - heights[0] == pytest.approx(580, abs=40)
    assert [t for t in texts(items) if t[0].isdigit()] == [
        "0",
        "200",
        "400",
        "600",
        "800",
        "1,000",
        "1,200",
        "1,400",
        "1,600",
    ]


def test_markers_shrink_then_go_when_points_are_closer_than_their_size():
    def line_chart(count: int, **fields) -> list:
        rows = [{"label": f"d{i}", "value": 10 + (i * 7) % 11} for i in range(count)]
        return drawn(chart("line", rows, width=300, height=200, **fields))[0]

    stroke = Metrics.of(300, 200).stroke
    few = markers_of(line_chart(6))
    assert len(few) == 6 and all(m.width == pytest.approx(3 * stroke) for m in few)  # three times the line's width
    for count in (12, 16, 20, 24, 60):
        dots = markers_of(line_chart(count))
        if dots:  # each dot (white ring included) keeps a dot's width of room to the next
            rings = sorted(
                (i for i in line_chart(count) if isinstance(i, Ellipse) and i.fill.hex == "#ffffff"), key=lambda e: e.x
            )
            assert all(b.x - (a.x + a.width) >= a.width - 1e-6 for a, b in zip(rings, rings[1:], strict=False))
            assert min(m.width for m in dots) >= 2 * stroke - 1e-6  # never smaller than twice the line's width
    assert markers_of(line_chart(60)) == []  # 4.7 px apart: the line alone
    highlighted = [{"label": f"d{i}", "value": 10, **({"color": RED} if i == 30 else {})} for i in range(60)]
    (own,) = markers_of(drawn(chart("line", highlighted, width=300, height=200))[0])
    assert own.fill.hex == RED and own.width == pytest.approx(2 * stroke)  # its own colour keeps a marker


def category_lines(items, below: float, left: float) -> dict[int, list[float]]:
    """The baselines of each category label under the plot, by the label's centre."""
    columns: dict[int, set[float]] = {}
    for run in items:
        if isinstance(run, GlyphRun) and run.y > below and run.x + run.width / 2 > left:
            columns.setdefault(round((run.x + run.width / 2) / 10), set()).add(round(run.y, 1))
    return {centre: sorted(ys) for centre, ys in sorted(columns.items())}


def test_a_row_of_category_labels_wraps_all_alike():
    names = ["Web shop", "Retail", "Wholesale partners", "Mobile app sales", "Phone", "Field sales team"]
    rows = [{"label": name, "value": 3 + i} for i, name in enumerate(names)]
    items, warnings = drawn(chart("bar", rows))
    bottom, left = max(m.bounds()[3] for m in marks(items)), min(m.bounds()[0] for m in marks(items))
    shown = category_lines(items, bottom, left)
    assert len(shown) == len(names)
    counts = [len(ys) for ys in shown.values()]
    firsts = {ys[0] for ys in shown.values()}
    assert len(firsts) == 1  # one top line for the row
    # every label of several words on two lines, the single words on one
    assert counts == [2 if " " in name else 1 for name in names], (counts, texts(items))
    assert {"Wholes…", "partners"} <= set(texts(items))  # a word too wide is cut, the rest still shown
    assert {"Field", "sales…"} <= set(texts(items))  # three words that two lines cannot hold
    assert warnings == (
        "layer 'sales': 2 category label(s) shortened to fit: 'Wholesale partners', 'Field sales team'",
    )
    assert_nothing_overlaps(items)
    short = [{"label": name, "value": 3} for name in ("Web", "Retail", "Mobile app")]
    items, _ = drawn(chart("bar", short))
    bottom, left = max(m.bounds()[3] for m in marks(items)), min(m.bounds()[0] for m in marks(items))
    assert [len(ys) for ys in category_lines(items, bottom, left).values()] == [1, 1, 1]  # all fit: none wraps


def test_a_long_category_label_is_balanced_with_few_measures(monkeypatch):
    """A label is balanced over two lines at the split of its words where both are
    narrowest, found by halving: measuring every split of a label of thousands of words
    (20,000 characters are allowed) took minutes."""
    calls = 0
    width_of = Canvas.width_of

    def counted(self: Canvas, text: str, style: object) -> float:
        nonlocal calls
        calls += 1
        return width_of(self, text, style)

    monkeypatch.setattr(Canvas, "width_of", counted)
    label = ("Lorem ipsum dolor sit amet " * 40).strip()  # 200 words
    chart_layer = layer("chart", "c", width=300, height=120, rows=[{"label": label, "value": 1}])
    rendered = tk.render_image(template(chart_layer))
    assert calls < 60, f"{calls} measures for one label of 200 words"
    assert rendered.warnings == ("layer 'c': 1 category label(s) shortened to fit: 'Lorem ipsum dolor sit amet Lo…'",)


@pytest.mark.parametrize("kind", ["bar", "horizontalBar", "line", "area", "scatter"])
@pytest.mark.parametrize(
    ("values", "label"),
    [
        ([1e-12, 2.5e-12, 3e-12], "3.0e-12"),  # scientific, as Chart.js writes such axes
        ([5e-324], "1.0"),  # nearer zero than any step: zero to the axis
        ([1, 1 + 1e-14], "1.0"),  # apart by float noise: one value
        ([4e14, 1e15], "1000T"),
    ],
)
def test_values_at_the_ends_of_the_range_get_an_axis_of_their_own(kind, values, label):
    rows = [{"label": f"p{index}", "value": value} for index, value in enumerate(values)]
    items, _ = drawn(chart(kind, rows))
    ticks = [text for text in texts(items) if not text.startswith("p")]
    assert len(ticks) >= 3 and len(set(ticks)) == len(ticks), ticks  # distinct labels, none all zeros
    assert label in ticks or label.replace(".0e", "e") in ticks, ticks
    decode(tk.render_image(chart(kind, rows)).data)


def test_a_value_beyond_a_thousand_trillion_is_refused_by_name():
    message = "rows[1].value: must be between -1e+15 and 1e+15 (got 1e+16)"
    with pytest.raises(tk.TemplateError, match=re.escape(message)):
        tk.load_template(chart(rows=[{"label": "a", "value": 1}, {"label": "b", "value": 1e16}]))
    with pytest.raises(tk.ModificationError, match=re.escape(message)):
        tk.render_image(chart(), {"sales": [{"label": "a", "value": 1}, {"label": "b", "value": 1e16}]})
