"""The promo video made with MoviePy 2, as the MoviePy peer of benchmarks/video_promo.py.

It animates what examples/templates/promo-video.json animates, with the timing that
src/templatekit/video/timeline.py gives it: 1280x720 at 30 fps for 5 s (150 frames),
H.264 by libx264 with templatekit's preset and CRF, 2 encoder threads, no sound.

- the photo covers the frame, zoomed 1.0 -> 1.2 (linear, the whole 5 s) about a focus
  drifting from (0.45, 0.55) to (0.55, 0.45) of the frame: a ``VideoClip`` whose frame
  function crops and resizes the photo with Pillow (bilinear), once per frame;
- the dark gradient over it: a still RGBA image, made once at start-up;
- the logo (a PNG, rasterised by the caller) zooms in from half size about its centre
  and fades in over 0.6 s after 0.2 s;
- "Northwind" fades in over 0.6 s after 0.4 s;
- the title fades in over 0.9 s from 0.6 s;
- the subtitle slides in from the left, from 1.2 s over 0.8 s;
- the "Shop now" pill and its label fade in over 0.5 s from 2.2 s.

Every animation but the zoom of the photo eases out (CSS ``ease-out``), like the
template's presets; fades multiply the clip's mask, as MoviePy's ``CrossFadeIn`` does.

One render is what a MoviePy user's script does per video: make the text clips (the
title is the one input that changes), compose the clips, ``write_videofile``. It runs
one untimed render, then ``--iterations`` timed ones, each to the same temporary file,
the titles taken in turn (the untimed render has the first), and prints their times as
JSON on stdout:

    python moviepy_promo.py --logo logo.png --iterations 2 [--title T ...] [--keep last.mp4]

It runs in its own virtual environment (MoviePy 2.2 needs pillow<12), which
benchmarks/video_promo.py makes.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from moviepy import CompositeVideoClip, ImageClip, TextClip, VideoClip
from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[2]
FONTS = ROOT / "src" / "templatekit" / "fonts"
PHOTO = ROOT / "examples" / "templates" / "assets" / "product.jpg"

WIDTH, HEIGHT, FPS, DURATION = 1280, 720, 30, 5.0
CRF, PRESET, THREADS = 20, "veryfast", 2  # templatekit's (src/templatekit/video/encode.py)
BACKGROUND = (15, 23, 42)  # #0f172a
KEN_BURNS_ZOOM = 1.2
KEN_BURNS_FOCUS = ((0.45, 0.55), (0.55, 0.45))
ZOOM_IN_FROM = 0.5
EASE_OUT = (0.0, 0.0, 0.58, 1.0)  # the Bezier control points of CSS ease-out
DEFAULT_TITLE = "The everyday mug, reimagined"


def ease_out(x: float) -> float:
    """CSS ease-out at progress ``x`` (clamped to 0..1): the y of the curve where its x is ``x``."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    x1, y1, x2, y2 = EASE_OUT

    def coordinate(t: float, p1: float, p2: float) -> float:
        return 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t**2 * p2 + t**3

    low, high = 0.0, 1.0
    for _ in range(40):  # x grows with t: bisection
        middle = (low + high) / 2
        if coordinate(middle, x1, x2) < x:
            low = middle
        else:
            high = middle
    return coordinate((low + high) / 2, y1, y2)


def font(name: str) -> str:
    return str(FONTS / f"Inter-{name}.otf")


# ------------------------------------------------------------------ made once


def load_assets(logo: Path) -> dict[str, Any]:
    """What every render shares and a template keeps between renders too: the decoded
    photo, the logo's pixels, and the two still shapes (the shade and the pill)."""
    x = (np.arange(WIDTH, dtype=np.float32) + 0.5) / WIDTH  # the gradient runs left to right (angle 90)
    alpha = np.round((0xE6 + (0x33 - 0xE6) * x) * np.ones((HEIGHT, 1), np.float32)).astype(np.uint8)
    shade = np.dstack([np.full((HEIGHT, WIDTH), channel, np.uint8) for channel in BACKGROUND] + [alpha])
    pill = Image.new("RGBA", (360, 64), (0, 0, 0, 0))
    ImageDraw.Draw(pill).rounded_rectangle((0, 0, 359, 63), radius=32, fill=(0xFB, 0xBF, 0x24, 255))
    with Image.open(PHOTO) as photo:
        decoded = photo.convert("RGB")
    return {
        "photo": decoded,
        "logo": np.asarray(Image.open(logo).convert("RGBA")),
        "shade": shade,
        "pill": np.asarray(pill),
    }


# ------------------------------------------------------------------ one render


def covered(photo: Image.Image, scale: float) -> Image.Image:
    """The photo cropped and resized to cover the frame at ``scale`` times its size."""
    width, height = round(WIDTH * scale), round(HEIGHT * scale)
    ratio = max(width / photo.width, height / photo.height)
    crop_w, crop_h = width / ratio, height / ratio
    left, top = (photo.width - crop_w) / 2, (photo.height - crop_h) / 2
    return photo.resize((width, height), Image.Resampling.LANCZOS, box=(left, top, left + crop_w, top + crop_h))


def ken_burns(photo: Image.Image) -> VideoClip:
    """The photo covering the frame, enlarged about a drifting focus: each frame shows
    the part of it that the zoom leaves in the frame, resized to the frame."""
    sharp = covered(photo, KEN_BURNS_ZOOM)  # painted at the largest zoom, as templatekit does
    scale = sharp.width / WIDTH
    (fx0, fy0), (fx1, fy1) = KEN_BURNS_FOCUS

    def frame(t: float) -> np.ndarray:
        p = min(1.0, max(0.0, t / DURATION))
        zoom = 1 + (KEN_BURNS_ZOOM - 1) * p
        fx, fy = (fx0 + (fx1 - fx0) * p) * WIDTH, (fy0 + (fy1 - fy0) * p) * HEIGHT
        left, top = fx * (1 - 1 / zoom), fy * (1 - 1 / zoom)
        box = (left * scale, top * scale, (left + WIDTH / zoom) * scale, (top + HEIGHT / zoom) * scale)
        return np.asarray(sharp.resize((WIDTH, HEIGHT), Image.Resampling.BILINEAR, box=box))

    return VideoClip(frame, duration=DURATION)


def faded_in(clip: ImageClip, length: float) -> ImageClip:
    """The clip fading in over ``length`` s from its start, eased out: CrossFadeIn's mask
    multiply, with the template's easing."""
    return clip.with_mask(clip.mask.transform(lambda get_frame, t: get_frame(t) * ease_out(t / length)))


def text(words: str, weight: str, font_size: int, color: str, **options: Any) -> TextClip:
    """A TextClip with room under its last line: MoviePy 2.2 sizes text to the baseline
    of the last line, which cuts off descenders."""
    descent = ImageFont.truetype(font(weight), font_size).getmetrics()[1]
    return TextClip(
        font=font(weight), text=words, font_size=font_size, color=color, margin=(0, 0, 0, descent), **options
    )


def video(assets: dict[str, Any], title: str) -> CompositeVideoClip:
    """The promo with ``title``, as MoviePy clips."""
    background = ken_burns(assets["photo"])
    shade = ImageClip(assets["shade"], duration=DURATION)

    logo = faded_in(ImageClip(assets["logo"]).with_start(0.2).with_duration(DURATION - 0.2), 0.6)

    def logo_scale(t: float) -> float:
        return ZOOM_IN_FROM + (1 - ZOOM_IN_FROM) * ease_out(t / 0.6)

    logo = logo.resized(logo_scale)  # about its centre: the box is (80, 72) 72x72
    logo = logo.with_position(lambda t: (116 - int(72 * logo_scale(t)) / 2, 108 - int(72 * logo_scale(t)) / 2))

    brand = text("Northwind", "SemiBold", 34, "#e2e8f0")
    brand = faded_in(brand.with_start(0.4).with_duration(DURATION - 0.4), 0.6)
    brand = brand.with_position((168, 84 + (48 - brand.h) / 2))

    a_bottom = ImageFont.truetype(font("ExtraBold"), 76).getbbox("A")[3]
    headline = text(
        title,
        "ExtraBold",
        76,
        "#ffffff",
        size=(760, None),
        method="caption",
        horizontal_align="left",
        vertical_align="top",
        interline=round(76 * 1.08) - a_bottom,  # Pillow puts lines the bottom of "A" + interline apart
    )
    headline = faded_in(headline.with_start(0.6).with_duration(DURATION - 0.6), 0.9).with_position((80, 250))

    subtitle = text("Stoneware that keeps your coffee warm.", "Regular", 36, "#c7d2fe")
    subtitle = subtitle.with_start(1.2).with_duration(DURATION - 1.2)
    offscreen = -(80 + 760)  # slides in from just left of the frame
    subtitle = subtitle.with_position(lambda t: (80 + offscreen * (1 - ease_out(t / 0.8)), 470))

    pill = faded_in(ImageClip(assets["pill"]).with_start(2.2).with_duration(DURATION - 2.2), 0.5)
    pill = pill.with_position((80, 580))
    label = text("Shop now  \u2192", "Bold", 30, "#0f172a")
    label = faded_in(label.with_start(2.2).with_duration(DURATION - 2.2), 0.5)
    label = label.with_position((80 + (360 - label.w) / 2, 580 + (64 - label.h) / 2))

    layers = [background, shade, logo, brand, headline, subtitle, pill, label]
    return CompositeVideoClip(layers, size=(WIDTH, HEIGHT), bg_color=BACKGROUND).with_duration(DURATION)


def render(assets: dict[str, Any], title: str, path: Path) -> None:
    clip = video(assets, title)
    clip.write_videofile(
        str(path),
        fps=FPS,
        codec="libx264",
        preset=PRESET,
        threads=THREADS,
        audio=False,
        ffmpeg_params=["-crf", str(CRF), "-profile:v", "high", "-movflags", "+faststart"],
        logger=None,
    )
    clip.close()


# ------------------------------------------------------------------ timing


def timed(step: Callable[[str], None], titles: list[str], iterations: int) -> list[float]:
    """One untimed render, then ``iterations`` timed ones, the titles taken in turn."""
    step(titles[0])
    times = []
    for index in range(1, iterations + 1):
        start = time.perf_counter()
        step(titles[index % len(titles)])
        times.append((time.perf_counter() - start) * 1000)
    return times


def versions() -> dict[str, str]:
    import imageio_ffmpeg

    found = {name: importlib.metadata.version(name) for name in ("moviepy", "pillow", "numpy", "imageio-ffmpeg")}
    found["ffmpeg (MoviePy)"] = imageio_ffmpeg.get_ffmpeg_version()
    return {f"{name} (MoviePy venv)" if name in ("pillow", "numpy") else name: value for name, value in found.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--logo", type=Path, required=True, help="the logo as a 72x72 RGBA PNG")
    parser.add_argument("--iterations", type=int, default=2, help="timed renders (default 2)")
    parser.add_argument("--title", action="append", help="a title; several are taken in turn")
    parser.add_argument("--keep", type=Path, help="copy the last video here")
    args = parser.parse_args(argv)
    titles = args.title or [DEFAULT_TITLE]
    assets = load_assets(args.logo)
    with tempfile.TemporaryDirectory(prefix="moviepy-promo-") as scratch:
        path = Path(scratch) / "promo.mp4"
        times = timed(lambda title: render(assets, title, path), titles, args.iterations)
        if args.keep is not None:
            shutil.copyfile(path, args.keep)
    json.dump({"times_ms": times, "versions": versions()}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
