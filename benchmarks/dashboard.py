"""What charts cost: the dashboard example (two charts, key figures, a table, an alert).

Four measurements, medians of ``--iterations`` renders after warm-ups:

- baseline: the dashboard with both chart layers hidden (everything else drawn);
- cached charts: charts unchanged, the title changes on every render;
- uncached charts: the data of both charts changes on every render;
- cold: ``templatekit render`` of the dashboard in a fresh process.

A cached chart costs (cached - baseline) / 2, an uncached one (uncached - baseline) / 2.
The social card (a new title each render) takes its turns with them. Targets: the
dashboard with fresh chart data in at most 3x the social card's time and at most 40 ms; a
cold ``templatekit render`` of it in at most 0.8 s.

    python benchmarks/dashboard.py [--iterations 20] [--json out.json]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import common
from common import OUT, ROOT, WARMUP
from social_card import TEMPLATE as CARD
from social_card import TITLES

import templatekit as tk

TEMPLATE = ROOT / "examples" / "templates" / "dashboard.json"
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep"]
COLD_RUNS = 3


def revenue(step: int) -> list[dict[str, Any]]:
    """Two series whose values differ at every step, so no render can reuse a chart."""
    return [
        {"name": year, "data": [{"label": m, "value": base + 7 * i + step} for i, m in enumerate(MONTHS)]}
        for year, base in (("2025", 300), ("2026", 340))
    ]


def channels(step: int) -> list[dict[str, Any]]:
    return [
        {"label": name, "value": share + step % 5} for name, share in (("Online", 52), ("Retail", 27), ("Other", 9))
    ]


def medians(variants: dict[str, Callable[[int], tk.RenderResult]], iterations: int) -> dict[str, float]:
    """Median ms of each variant; the variants take turns, so that warm caches and a busy
    machine affect them alike."""
    times: dict[str, list[float]] = {name: [] for name in variants}
    for step in range(-WARMUP, iterations):
        for name, render in variants.items():
            start = time.perf_counter()
            render(step)
            if step >= 0:
                times[name].append((time.perf_counter() - start) * 1000)
    return {name: statistics.median(values) for name, values in times.items()}


def cold_ms() -> float:
    """A fresh process each time, after one run that leaves Python's compiled bytecode."""
    command = [sys.executable, "-m", "templatekit.cli", "render", str(TEMPLATE), "-o", str(OUT / "dashboard-cold.png")]
    common.command_ms(command)
    return statistics.median(common.command_ms(command) for _ in range(COLD_RUNS))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    OUT.mkdir(exist_ok=True)
    template = tk.load_template(TEMPLATE)
    card = tk.load_template(CARD)

    def title(step: int) -> dict[str, Any]:
        return {"title": f"Q3 2026 sales overview #{step}"}

    hidden = {"revenue": {"visible": False}, "channels": {"visible": False}}
    results = medians(
        {
            "baseline": lambda s: tk.render_image(template, {**title(s), **hidden}),
            "cached": lambda s: tk.render_image(template, title(s)),
            "uncached": lambda s: tk.render_image(
                template, {**title(s), "revenue": revenue(s), "channels": channels(s)}
            ),
            "card": lambda s: tk.render_image(card, {"title": TITLES[s % len(TITLES)]}),
        },
        args.iterations,
    )
    baseline, cached, uncached, card_ms = (results[name] for name in ("baseline", "cached", "uncached", "card"))
    tk.render_image(template, {"revenue": revenue(0), "channels": channels(0)}).save(OUT / "dashboard.png")
    cold = cold_ms()
    cached_chart = (cached - baseline) / 2
    uncached_chart = (uncached - baseline) / 2
    figures = {
        "baseline_ms": baseline,
        "cached_ms": cached,
        "uncached_ms": uncached,
        "cold_ms": cold,
        "cached_chart_ms": cached_chart,
        "uncached_chart_ms": uncached_chart,
        "card_ms": card_ms,
        "targets": [
            common.outcome("dashboard, fresh chart data <= 3x the social card", uncached / card_ms, 3.0),
            common.outcome("dashboard, fresh chart data, share of 40 ms", uncached / 40, 1.0),
            common.outcome("cold templatekit render of it, share of 0.8 s", cold / 800, 1.0),
        ],
    }
    print(f"dashboard 1600x900, two charts; medians of {args.iterations} renders after {WARMUP} warm-ups")
    print(f"{'render':44}{'median ms':>10}")
    print(f"{'charts hidden (baseline)':44}{baseline:10.1f}")
    print(f"{'charts cached (title changes)':44}{cached:10.1f}")
    print(f"{'charts uncached (chart data changes)':44}{uncached:10.1f}")
    print(f"{'cold: templatekit render':44}{cold:10.1f}")
    print(f"{'the social card, new title':44}{card_ms:10.1f}")
    print()
    print(f"{'a cached chart adds':36} {cached_chart:8.1f} ms")
    print(f"{'an uncached chart adds':36} {uncached_chart:8.1f} ms")
    common.print_targets(figures["targets"], 52)
    if args.json:
        common.save_json(args.json, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
