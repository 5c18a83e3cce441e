"""Painting stays linear in the number of layers: one changed layer of a 500-layer
template against the same layer alone, and against painting everything afresh.

A grid of text layers (a seating plan, a price list) where one layer changes on every
render: the first one (everything above it could need painting again), or the last
one. Only painting is timed (``prepare`` lays out first, untimed); each figure is the
median of ``--iterations`` renders, a different text each time.

    python benchmarks/many_layers.py [--layers 500] [--iterations 40]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import templatekit as tk
from templatekit.paint import canvas
from templatekit.scene import Scene

COLUMNS = 25


def grid(count: int, rows: int) -> tk.Template:
    """``count`` text layers in a grid of ``rows`` rows (the canvas is the same size for
    any count, so that only the layers differ)."""
    layers = [
        {
            "type": "text",
            "name": f"seat{i}",
            "x": (i % COLUMNS) * 48,
            "y": (i // COLUMNS) * 30,
            "width": 46,
            "height": 28,
            "text": f"#{i}",
            "size": 12,
            "color": "#222222",
        }
        for i in range(count)
    ]
    height = rows * 30
    return tk.load_template(
        {"name": "grid", "width": 1200, "height": height, "background": "#ffffff", "layers": layers}
    )


def median_ms(template: tk.Template, layer: str, iterations: int, afresh: bool = False) -> float:
    scenes: list[Scene] = [tk.prepare(template, {layer: f"x{n}"}).scene for n in range(iterations + 3)]
    paint: Callable[[Scene], object] = canvas.paint
    for scene in scenes[:3]:
        paint(scene)
    times = []
    for scene in scenes[3:]:
        if afresh:
            canvas.forget()
        start = time.perf_counter()
        paint(scene)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=500)
    parser.add_argument("--iterations", type=int, default=40)
    args = parser.parse_args()
    rows = args.layers // COLUMNS + 1
    many, alone = grid(args.layers, rows), grid(1, rows)
    last = f"seat{args.layers - 1}"
    figures = {
        "the layer alone (a 1-layer template)": median_ms(alone, "seat0", args.iterations),
        f"first of {args.layers} layers changed": median_ms(many, "seat0", args.iterations),
        f"last of {args.layers} layers changed": median_ms(many, last, args.iterations),
        f"first of {args.layers} changed, nothing reused": median_ms(many, "seat0", args.iterations, afresh=True),
    }
    base = next(iter(figures.values()))
    print(f"{'paint (median ms)':<44}{'ms':>8}{'× alone':>10}")
    for label, value in figures.items():
        print(f"{label:<44}{value:>8.2f}{value / base:>10.1f}")


if __name__ == "__main__":
    main()
