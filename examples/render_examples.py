"""Render every example template into docs/images/ (the pictures in the README).

    python examples/render_examples.py
"""

from __future__ import annotations

from pathlib import Path

import templatekit as tk

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "examples" / "templates"
OUT = ROOT / "docs" / "images"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for path in sorted(TEMPLATES.glob("*.json")):
        result = tk.render_image(tk.load_template(path))
        target = result.save(OUT / f"{path.stem}.png")
        print(f"{target.relative_to(ROOT)}: {result.width}x{result.height}, {len(result.data):,} bytes")
        for warning in result.warnings:
            print(f"  warning: {warning}")


if __name__ == "__main__":
    main()
