"""Render every example template into docs/images/ (the pictures in the README), and
every video template also into docs/videos/ as MP4 (its image is its poster frame).

    python examples/render_examples.py
"""

from __future__ import annotations

from pathlib import Path

import templatekit as tk

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "examples" / "templates"
OUT = ROOT / "docs" / "images"
VIDEOS = ROOT / "docs" / "videos"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for path in sorted(TEMPLATES.glob("*.json")):
        result = tk.render_image(tk.load_template(path))
        target = result.save(OUT / f"{path.stem}.png")
        print(f"{target.relative_to(ROOT)}: {result.width}x{result.height}, {len(result.data):,} bytes")
        for warning in result.warnings:
            print(f"  warning: {warning}")
        template = tk.load_template(path)
        if template.video is not None:
            VIDEOS.mkdir(parents=True, exist_ok=True)
            movie = tk.render_video(template, path=VIDEOS / f"{path.stem}.mp4")
            assert movie.path is not None
            print(f"{movie.path.relative_to(ROOT)}: {movie.width}x{movie.height}, {movie.size:,} bytes")


if __name__ == "__main__":
    main()
