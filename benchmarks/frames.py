"""What frames cost: the product card as it is (its badge and its details in frames:
auto layout, text that hugs) and the same card with every box at the fixed position the
frames gave it (no frames), each render with a new product name and badge, taking turns.

    python benchmarks/frames.py [--iterations 60] [--rounds 4] [--json out.json]

Target: the card with frames takes at most 1.2x the time of the fixed card (medians).
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import common
from common import Timings

import templatekit as tk
from templatekit.model.layers import FrameLayer, walk_layers
from templatekit.options import RenderOptions
from templatekit.pipeline import resolve
from templatekit.service import converter

LIMIT = 1.2
TEMPLATE = Path(__file__).resolve().parent.parent / "examples" / "templates" / "product-card.json"
NAMES = ["Teal Ceramic Mug", "Extra-Large Hand-Thrown Teal Ceramic Breakfast Mug", "Espresso Cup", "Travel Tumbler"]
NUMBERS = itertools.count(3_000_000)


def fixed(card: tk.Template) -> tk.Template:
    """The card with each layer in a frame at the box the frame gave it, and no frames:
    what a designer places by hand for one name."""
    arranged, _, _ = resolve(card, None, RenderOptions())
    flat = [layer for layer in walk_layers(arranged.layers) if not isinstance(layer, FrameLayer)]
    data = converter.unstructure(arranged)
    return tk.load_template(
        {**data, "layers": [converter.unstructure(layer) for layer in flat]}, base_dir=TEMPLATE.parent
    )


def bench(template: tk.Template, name: str, label: str, iterations: int) -> Timings:
    def render(product: str) -> int:
        number = next(NUMBERS)
        changes = {"name": f"{product} {number}", "badge": f"New {number % 100}"}
        return len(tk.render_image(template, changes).data)

    times, _ = common.timed(render, NAMES, iterations)
    return Timings(name, label, times)


def main(argv: list[str] | None = None) -> int:
    parser = common.argument_parser(__doc__.split("\n\n")[0], [])
    args = common.parse_arguments(parser, argv)
    framed = tk.load_template(TEMPLATE)
    flat = fixed(framed)
    benches = [
        ("fixed", lambda n: bench(flat, "fixed", "product card, fixed boxes", n)),
        ("frames", lambda n: bench(framed, "frames", "product card, frames", n)),
    ]
    common.time_against_base(
        args, benches, ("frames card time <= 1.2x fixed card", "frames", "fixed", LIMIT), ("names", NAMES)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
