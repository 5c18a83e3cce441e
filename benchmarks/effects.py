"""What effects cost: the social card as it is, and the same card with a shadowed title,
an outlined subtitle and a blurred glow behind them, each render with a new title,
subtitle and QR code (social_card.py's ``all_new``), taking turns.

    python benchmarks/effects.py [--iterations 60] [--rounds 4] [--json out.json]

Target: the card with effects takes at most 1.5x the time of the plain card (medians).
"""

from __future__ import annotations

import itertools
import json
import sys
from typing import Any

import common
from common import OUT, Timings
from social_card import TEMPLATE, TITLES, all_new

import templatekit as tk

LIMIT = 1.5
NUMBERS = itertools.count(2_000_000)


def with_effects(card: dict[str, Any]) -> dict[str, Any]:
    """The card's title shadowed, its subtitle outlined and its glow blurred."""
    changes = {
        "title": {"shadows": [{"x": 0, "y": 6, "blur": 18, "color": "#818cf8b0"}]},
        "subtitle": {"outline": {"width": 2, "color": "#000000"}},
        "glow": {"blur": 12},
    }
    layers = [{**layer, **changes.get(layer["name"], {})} for layer in card["layers"]]
    return {**card, "layers": layers}


def bench(template: tk.Template, name: str, label: str, iterations: int) -> Timings:
    def render(title: str) -> int:
        number = next(NUMBERS)
        new_title, subtitle, url = all_new(title, number)
        return len(tk.render_image(template, {"title": new_title, "subtitle": subtitle, "qr": url}).data)

    times, _ = common.timed(render, TITLES, iterations)
    return Timings(name, label, times)


def main(argv: list[str] | None = None) -> int:
    parser = common.argument_parser(__doc__.split("\n\n")[0], [])
    args = common.parse_arguments(parser, argv)
    card = json.loads(TEMPLATE.read_text(encoding="utf-8"))
    base = TEMPLATE.parent
    plain = tk.load_template(card, base_dir=base)
    styled = tk.load_template(with_effects(card), base_dir=base)
    OUT.mkdir(exist_ok=True)
    tk.render_image(styled, {}).save(OUT / "effects-card.png")
    benches = [
        ("plain", lambda n: bench(plain, "plain", "social card, all new", n)),
        ("effects", lambda n: bench(styled, "effects", "with shadow, outline and blur", n)),
    ]
    common.time_against_base(
        args, benches, ("effects card time <= 1.5x plain card", "effects", "plain", LIMIT), ("titles", TITLES)
    )
    print(f"the card with effects: {OUT / 'effects-card.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
