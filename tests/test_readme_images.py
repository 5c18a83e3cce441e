"""The README's and the docs' pictures are what the examples render today, so they cannot
go stale: each docs/images/<example>.png is compared with a fresh render of its template,
and the promo video in docs/videos/ with a fresh render of its frames. When a change of
the engine changes an example's look on purpose, run ``python examples/render_examples.py``
and commit the pictures with the change."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

import templatekit as tk

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples" / "templates").glob("*.json"))
REFRESH = "stale: run python examples/render_examples.py and commit docs/images and docs/videos"
# A channel may differ by a level or two where a library rounds anti-aliasing another
# way; a changed mark, colour or position differs by far more.
LEVELS = 2


def test_every_example_has_its_picture():
    pictures = {path.stem for path in (ROOT / "docs" / "images").glob("*.png")}
    assert {path.stem for path in EXAMPLES} <= pictures


@pytest.mark.parametrize("path", EXAMPLES, ids=[path.stem for path in EXAMPLES])
def test_each_picture_is_its_example_rendered_now(path):
    with Image.open(ROOT / "docs" / "images" / f"{path.stem}.png") as shown:
        shown = shown.convert("RGBA")
    now = Image.open(io.BytesIO(tk.render_image(tk.load_template(path)).data)).convert("RGBA")
    assert now.size == shown.size, REFRESH
    worst = max(high for _, high in ImageChops.difference(now, shown).getextrema())
    assert worst <= LEVELS, f"{path.stem} differs by up to {worst} levels: {REFRESH}"


@pytest.mark.slow
def test_the_docs_video_is_the_promo_rendered_now(tmp_path):
    av = pytest.importorskip("av")
    path = ROOT / "examples" / "templates" / "promo-video.json"
    fresh = tmp_path / "promo.mp4"
    tk.render_video(tk.load_template(path), path=fresh)

    def frames(video: Path) -> list[Image.Image]:
        with av.open(str(video)) as container:
            return [frame.to_image() for frame in container.decode(video=0)]

    shown, now = frames(ROOT / "docs" / "videos" / "promo-video.mp4"), frames(fresh)
    assert len(now) == len(shown), REFRESH
    for index in range(0, len(now), max(1, len(now) // 6)):
        mean = max(ImageStat.Stat(ImageChops.difference(now[index], shown[index])).mean)
        assert mean <= 1.0, f"frame {index} differs by {mean:.2f} on average: {REFRESH}"
