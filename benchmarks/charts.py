"""One bar chart (600x400, 12 bars, a title), its data new on every render, drawn to PNG
by templatekit and by the tools people use instead:

- templatekit: a template holding the chart layer, the rows given as a modification;
- Plotly + Kaleido: the same design as a Plotly figure, ``plotly.io.to_image`` with
  Kaleido's browser kept running;
- matplotlib (Agg): the same design drawn with matplotlib, the figure made once and the
  bars' heights set for each render, ``savefig`` to PNG;
- Chart.js: the same design in a canvas of a Chromium page kept open (Playwright), the
  data replaced and the canvas read back as PNG.

Besides the PNG timings, "templatekit: the chart's cost" is what the chart adds to a
render: the same render with the chart layer hidden is timed in turn, and the difference
pair by pair is the chart's layout and painting (the target: at most 5 ms). The social
card (1200x630, a new title each render) and templatekit's chart take turns render by
render; that pair and the other contenders take turns of several renders each (Chromium's
work after a render would fall on the next render of another), so that a slow spell of
the machine falls on all of them, and each turn of templatekit draws data of its own. A
chart with new data should take at most half the card's time, and at most half
Chart.js's.

    python benchmarks/charts.py [--iterations 60] [--json out.json] [--skip chartjs]

The last PNG of each contender is written to ``benchmarks/out/`` to be looked at.
"""

from __future__ import annotations

import base64
import functools
import io
import itertools
import random
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import common
from common import OUT, PEERS, WARMUP, Skipped, Timings
from social_card import TEMPLATE as CARD
from social_card import TITLES

import templatekit as tk
from templatekit.layout.charts.style import GRID, PALETTE, TEXT, TITLE
from templatekit.paint import canvas

WIDTH, HEIGHT = 600, 400
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
TITLE_TEXT = "Monthly revenue"
TARGET_MS = 5.0
TARGETS: list[common.Target] = [
    ("fresh-data chart <= 0.5x the social card", "templatekit", "card", 0.5),
    ("fresh-data chart <= 0.5x Chart.js", "templatekit", "chartjs", 0.5),
]


@dataclass
class Figures(Timings):
    png_bytes: int = 0


def inputs(count: int, seed: int = 17) -> list[list[float]]:
    """``count`` sets of twelve values, the same for every contender."""
    rng = random.Random(seed)
    return [[round(rng.uniform(100, 1000), 1) for _ in MONTHS] for _ in range(count)]


#: Seeds of templatekit's turns: data no other render of the process has drawn, in each
#: turn (a layer laid out before with the same data would be kept, not drawn again).
TURN_SEEDS = itertools.count(1_000)


def rows(values: list[float]) -> list[dict[str, Any]]:
    return [{"label": month, "value": value} for month, value in zip(MONTHS, values, strict=True)]


def template() -> tk.Template:
    layer = {"type": "chart", "name": "chart", "x": 0, "y": 0, "width": WIDTH, "height": HEIGHT}
    body = {"name": "chart", "width": WIDTH, "height": HEIGHT, "background": "#ffffff"}
    return tk.load_template({**body, "layers": [{**layer, "title": TITLE_TEXT, "rows": rows([1.0] * 12)}]})


def timed(name: str, label: str, render: Callable[[list[float]], bytes], data: list[list[float]]) -> Figures:
    for values in data[:WARMUP]:
        render(values)
    times, png = [], b""
    for values in data[WARMUP:]:
        start = time.perf_counter()
        png = render(values)
        times.append((time.perf_counter() - start) * 1000)
    (OUT / f"chart-{name}.png").write_bytes(png)
    return Figures(name, label, times, len(png))


@functools.cache
def loaded_templates() -> tuple[tk.Template, tk.Template]:
    """The chart's template and the social card's."""
    return template(), tk.load_template(CARD)


#: The card's titles, in turn from one call of ``chart_and_card`` to the next.
CARD_TITLES = itertools.cycle(TITLES)


def chart_and_card(data: list[list[float]], iterations: int) -> list[Figures]:
    """The chart by templatekit and the social card (a new title each render), render by
    render in turns, so that the machine's changes of speed fall on both alike; one turn
    of the rotation with the other contenders. The templates are loaded once, as an
    application keeps them."""
    chart, card = loaded_templates()
    renders: dict[str, Callable[[list[float]], bytes]] = {
        "templatekit": lambda values: tk.render_image(chart, {"chart": rows(values)}).data,
        "card": lambda _: tk.render_image(card, {"title": next(CARD_TITLES)}).data,
    }
    labels = {"templatekit": "templatekit", "card": "the social card, new title (templatekit)"}
    figures = []
    for name, (times, png) in common.in_turns(renders, data, iterations).items():
        (OUT / f"chart-{name}.png").write_bytes(png)
        figures.append(Figures(name, labels[name], times, len(png)))
    return figures


def chart_cost(data: list[list[float]]) -> Figures:
    """The chart's own cost, layout and painting: renders with and without it take turns
    (not encoded: the file format is paid once per image, not per chart); the times are
    the differences, pair by pair."""
    chart = template()
    hidden = {"chart": {"visible": False}}

    def drawn(modifications: dict[str, Any]) -> float:
        start = time.perf_counter()
        canvas.paint(tk.prepare(chart, modifications).scene)
        return time.perf_counter() - start

    for values in data[:WARMUP]:
        drawn({"chart": rows(values)})
        drawn(hidden)
    differences = [(drawn({"chart": rows(values)}) - drawn(hidden)) * 1000 for values in data[WARMUP:]]
    return Figures("templatekit-chart", "templatekit: the chart's cost", differences, 0)


def plotly_png(data: list[list[float]]) -> Figures:
    try:
        import kaleido
        import plotly.io
    except ImportError:
        raise Skipped('Plotly and Kaleido are not installed (pip install -e ".[bench]")') from None
    try:
        kaleido.start_sync_server()
    except Exception as exc:  # no browser: Kaleido's own errors
        raise Skipped(f"Kaleido could not start Chrome: {exc}") from None

    def render(values: list[float]) -> bytes:
        return plotly.io.to_image(plotly_figure(values), format="png", width=WIDTH, height=HEIGHT)

    try:
        return timed("plotly", "Plotly + Kaleido (warm)", render, data)
    finally:
        kaleido.stop_sync_server()


def plotly_figure(values: list[float]) -> dict[str, Any]:
    """The design in Plotly: bars in the palette's first colour, a semibold title at the
    left, light gridlines on the value axis only, no axis lines or ticks."""
    axis = {"ticks": "", "showline": False, "zeroline": False, "tickfont": {"color": TEXT.hex}}
    return {
        "data": [{"type": "bar", "x": MONTHS, "y": values, "marker": {"color": PALETTE[0].hex}}],
        "layout": {
            "width": WIDTH,
            "height": HEIGHT,
            "font": {"family": "Inter", "size": 13, "color": TEXT.hex},
            "title": {"text": TITLE_TEXT, "x": 0.02, "font": {"size": 17, "weight": 600, "color": TITLE.hex}},
            "paper_bgcolor": "#ffffff",
            "plot_bgcolor": "#ffffff",
            "margin": {"l": 48, "r": 16, "t": 56, "b": 40},
            "bargap": 0.3,
            "xaxis": {**axis, "showgrid": False},
            "yaxis": {**axis, "gridcolor": GRID.hex},
        },
    }


def matplotlib_png(data: list[list[float]]) -> Figures:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib import font_manager
    except ImportError:
        raise Skipped('matplotlib is not installed (pip install -e ".[bench]")') from None
    from templatekit.text.fonts import FONT_DIR

    for face in ("Inter-Regular.otf", "Inter-SemiBold.otf"):
        font_manager.fontManager.addfont(str(FONT_DIR / face))
    plt.rcParams.update({"font.family": "Inter", "font.size": 13, "text.color": TEXT.hex})
    figure, axes = plt.subplots(figsize=(WIDTH / 100, HEIGHT / 100), dpi=100, layout="tight")
    bars = axes.bar(MONTHS, [1.0] * len(MONTHS), color=PALETTE[0].hex, width=0.7)
    axes.set_title(TITLE_TEXT, loc="left", fontsize=17, fontweight="semibold", color=TITLE.hex)
    axes.grid(axis="y", color=GRID.hex)
    axes.set_axisbelow(True)
    for side in ("top", "right", "left"):
        axes.spines[side].set_visible(False)
    axes.tick_params(colors=TEXT.hex, length=0)

    def render(values: list[float]) -> bytes:
        """The figure made once; each render sets the bars' heights and the axis range,
        the fastest way matplotlib redraws a chart."""
        for bar, value in zip(bars, values, strict=True):
            bar.set_height(value)
        axes.relim()
        axes.autoscale_view()
        out = io.BytesIO()
        figure.savefig(out, format="png")
        return out.getvalue()

    try:
        return timed("matplotlib", "matplotlib (Agg)", render, data)
    finally:
        plt.close(figure)


CHARTJS_PAGE = f"""<!doctype html><html><body style="margin:0;background:#fff">
<canvas id="c" width="{WIDTH}" height="{HEIGHT}"></canvas></body></html>"""

CHARTJS_SETUP = f"""() => {{
  Chart.defaults.font.family = 'Inter';
  Chart.defaults.color = '{TEXT.hex}';
  window.chart = new Chart(document.getElementById('c'), {{
    type: 'bar',
    data: {{labels: {MONTHS!r}, datasets: [{{data: [], backgroundColor: '{PALETTE[0].hex}', borderRadius: 4}}]}},
    options: {{animation: false, responsive: false, devicePixelRatio: 1,
      plugins: {{legend: {{display: false}}, title: {{display: true, text: '{TITLE_TEXT}', align: 'start',
        color: '{TITLE.hex}', font: {{size: 17, weight: '600'}}}}}},
      scales: {{x: {{grid: {{display: false}}}}, y: {{grid: {{color: '{GRID.hex}'}}, border: {{display: false}}}}}}}}
  }});
}}"""

CHARTJS_DRAW = """(values) => {
  window.chart.data.datasets[0].data = values;
  window.chart.update('none');
  return document.getElementById('c').toDataURL('image/png');
}"""


@contextmanager
def chartjs_page() -> Iterator[Any]:
    script = PEERS / "node_modules" / "chart.js" / "dist" / "chart.umd.js"
    if not script.exists():
        raise Skipped("Chart.js is not installed (cd benchmarks/peers && npm install)")
    with common.chromium() as browser:
        page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        page.set_content(CHARTJS_PAGE)
        page.add_script_tag(path=str(script))
        page.evaluate(CHARTJS_SETUP)
        yield page


def chartjs_png(data: list[list[float]]) -> Figures:
    with chartjs_page() as page:

        def render(values: list[float]) -> bytes:
            url = page.evaluate(CHARTJS_DRAW, values)
            return base64.b64decode(url.partition(",")[2])

        return timed("chartjs", "Chart.js (warm Chromium page)", render, data)


def main(argv: list[str] | None = None) -> int:
    contenders = {"plotly": plotly_png, "matplotlib": matplotlib_png, "chartjs": chartjs_png}
    parser = common.argument_parser(__doc__.split("\n\n")[0], list(contenders))
    args = common.parse_arguments(parser, argv)
    OUT.mkdir(exist_ok=True)
    data = inputs(args.iterations + WARMUP)
    versions = {
        "templatekit": common.package_version("templatekit"),
        "plotly": common.package_version("plotly"),
        "kaleido": common.package_version("kaleido"),
        "matplotlib": common.package_version("matplotlib"),
        "chromium": common.chromium_version(),
    }
    info = common.machine(versions)
    common.print_setup(info, args.iterations, [str(v) for v in data], "data sets")
    results: dict[str, Figures] = {}
    skipped: dict[str, str] = {}
    benches: list[tuple[str, Callable[[int], Figures | list[Figures]]]] = [
        ("templatekit", lambda n: chart_and_card(inputs(n + WARMUP, next(TURN_SEEDS)), n)),
        ("templatekit-chart", lambda n: chart_cost(inputs(n + WARMUP, next(TURN_SEEDS)))),
        *((name, lambda n, bench=bench: bench(data[: n + WARMUP])) for name, bench in contenders.items()),
    ]
    common.run_contenders(benches, args.iterations, set(args.skip), results, skipped, args.rounds)
    columns = [*common.timing_columns(), ("PNG bytes", 10, lambda f: f"{f.png_bytes:,}" if f.png_bytes else "")]
    common.print_table(results, skipped, 34, columns)
    base = results.get("templatekit")
    if base is not None:
        print()
        for name, figures in results.items():
            if name.startswith("templatekit"):
                continue
            print(f"{figures.label:34} {figures.median / base.median:7.1f}x templatekit's time")
    outcomes = common.ratio_outcomes(results, TARGETS, lambda figures: figures.median)
    cost = results.get("templatekit-chart")
    if cost is not None:
        outcomes.append(
            common.outcome(f"the chart's cost in a render, share of {TARGET_MS:g} ms", cost.median / TARGET_MS, 1.0)
        )
    common.print_targets(outcomes, 52)
    if args.json:
        common.save_json(
            args.json,
            {
                "machine": info,
                "results": {n: common.summary(f, 2) for n, f in results.items()},
                "skipped": skipped,
                "targets": outcomes,
            },
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
