"""The promo video as MP4, WebM, animated WebP and GIF with templatekit, and the GIF as
FFmpeg's palettegen + paletteuse make it from the same frames.

Every templatekit contender renders examples/templates/promo-video.json to a file at its
format's defaults (GIF: 15 fps, 640 px wide; WebP: 30 fps, quality 80), painting included,
with a new title each render. The FFmpeg peer is given the GIF's frames ready (640×360 at
15 fps, painted once by templatekit and made smaller as its GIF writer does, untimed) on
its standard input as raw RGB, and makes the GIF as FFmpeg's documentation and every
"high-quality GIF" guide do: ``split[a][b];[a]palettegen[p];[b][p]paletteuse``, both at
their defaults (one palette for the video, Sierra dithering); its time is the process's.
A GIF's quality is its PSNR against those frames (every frame of each file decoded with
Pillow); the other formats are checked with ffprobe (codec, frames). Files go to
benchmarks/out/animated-*.

    python benchmarks/animated.py [--iterations 4] [--json out.json] [--skip ffmpeg]

Targets (docs/benchmarks.md): the GIF no slower than the FFmpeg peer and no larger, at a
PSNR no lower than the peer's less 2 dB (see templatekit/video/animated.py for the dither
this trades for); the WebP within 2× the MP4's render time, the WebM within 1.5×.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import common
import numpy as np
from common import OUT, ROOT, Column, Skipped, Timings
from PIL import Image

import templatekit as tk
from templatekit.options import RenderOptions
from templatekit.paint.resample import shrunk
from templatekit.pipeline import resolve
from templatekit.video.frames import FrameMaker

PROMO = ROOT / "examples" / "templates" / "promo-video.json"
TITLES = ["Autumn collection", "The everyday mug, reimagined", "New: stoneware in teal", "Warm mornings"]
GIF_SIZE, GIF_FPS, SECONDS = (640, 360), 15, 5.0
FORMATS = ("mp4", "webm", "webp", "gif")


@dataclass
class Figures(Timings):
    size_bytes: int = 0
    psnr: float | None = None
    checked: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


_frames: list[np.ndarray] = []


def gif_frames() -> list[np.ndarray]:
    """The GIF's 75 frames (first title) as RGB, painted by templatekit and made 640 wide
    as its GIF writer makes them; painted once, untimed."""
    if not _frames:
        template, ctx, _ = resolve(PROMO, {"title": TITLES[0]}, RenderOptions())
        maker = FrameMaker(template, ctx)
        try:
            for index in range(round(SECONDS * GIF_FPS)):
                frame = maker.compose(maker.looks(index / GIF_FPS))
                _frames.append(shrunk(np.ascontiguousarray(frame[:, :, :3]), GIF_SIZE))
        finally:
            maker.close()
    return _frames


def psnr_of(path: Path, reference: Sequence[np.ndarray]) -> float:
    """PSNR (dB) of every frame of an animation against ``reference``, read by Pillow."""
    with Image.open(path) as animation:
        decoded = []
        for index in range(animation.n_frames):
            animation.seek(index)
            decoded.append(np.asarray(animation.convert("RGB"), np.float32))
    if len(decoded) != len(reference):
        raise AssertionError(f"{path.name}: {len(decoded)} frames, expected {len(reference)}")
    error = np.mean((np.stack(decoded) - np.stack(reference).astype(np.float32)) ** 2)
    return float(10 * np.log10(255**2 / error))


def ffprobe_line(path: Path) -> str:
    done = subprocess.run(
        [
            "ffprobe",
            "-v",
            "error",
            "-count_frames",
            "-show_entries",
            "stream=codec_name,nb_read_frames",
            "-of",
            "csv=p=0",
            str(path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip().replace("\n", " ") or f"ffprobe: {done.stderr.strip()[:80]}"


def templatekit_bench(output: str) -> Callable[[int], Figures]:
    def bench(iterations: int) -> Figures:
        path = OUT / f"animated-templatekit.{output}"
        titles = list(common.cycled(TITLES, common.WARMUP + iterations))
        for title in titles[: common.WARMUP]:
            tk.render_video(PROMO, {"title": title}, path=path)
        times = []
        for title in titles[common.WARMUP :]:
            start = time.perf_counter()
            tk.render_video(PROMO, {"title": title}, path=path)
            times.append((time.perf_counter() - start) * 1000)
        figures = Figures(output, f"templatekit {output.upper()}", times, path.stat().st_size)
        if output == "gif":  # the quality of the last render's frames, against its own title's
            tk.render_video(PROMO, {"title": TITLES[0]}, path=path)
            figures.psnr = psnr_of(path, gif_frames())
            figures.size_bytes = path.stat().st_size
        figures.checked = ffprobe_line(path) if output != "webp" else _frames_of_webp(path)
        return figures

    return bench


def _frames_of_webp(path: Path) -> str:
    with Image.open(path) as webp:  # FFmpeg's WebP decoder reads no animation
        return f"webp,{webp.n_frames} frames (Pillow)"


def bench_ffmpeg(iterations: int) -> Figures:
    if shutil.which("ffmpeg") is None:
        raise Skipped("ffmpeg is not installed (Debian's ffmpeg package)")
    frames = gif_frames()
    raw = b"".join(frame.tobytes() for frame in frames)
    path = OUT / "animated-ffmpeg.gif"
    width, height = GIF_SIZE
    command = ["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{width}x{height}"]
    command += ["-r", str(GIF_FPS), "-i", "-", "-vf", "split[a][b];[a]palettegen[p];[b][p]paletteuse", str(path)]
    times = []
    for turn in range(common.WARMUP + iterations):
        start = time.perf_counter()
        subprocess.run(command, input=raw, capture_output=True, check=True)
        if turn >= common.WARMUP:
            times.append((time.perf_counter() - start) * 1000)
    version = subprocess.run(["ffmpeg", "-version"], capture_output=True, text=True).stdout.split("\n")[0]
    figures = Figures("ffmpeg", "FFmpeg palettegen + paletteuse", times, path.stat().st_size)
    figures.psnr, figures.checked, figures.extra = psnr_of(path, frames), ffprobe_line(path), {"version": version}
    return figures


def report(results: dict[str, Figures], skipped: dict[str, str]) -> list[dict[str, Any]]:
    columns: list[Column[Figures]] = [
        *common.timing_columns(),
        ("KB", 8, lambda figures: f"{figures.size_bytes / 1024:.0f}"),
        ("PSNR dB", 8, lambda figures: f"{figures.psnr:.2f}" if figures.psnr is not None else ""),
        ("read back", 34, lambda figures: figures.checked),
    ]
    common.print_table(results, skipped, 32, columns)
    targets = [
        ("GIF time / FFmpeg's", "gif", "ffmpeg", 1.0),
        ("WebP time / MP4's", "webp", "mp4", 2.0),
        ("WebM time / MP4's", "webm", "mp4", 1.5),
    ]
    outcomes = common.ratio_outcomes(results, targets, lambda figures: figures.median)
    if "gif" in results and "ffmpeg" in results:
        ours, peer = results["gif"], results["ffmpeg"]
        outcomes.append(common.outcome("GIF size / FFmpeg's", ours.size_bytes / peer.size_bytes, 1.0))
        assert ours.psnr is not None and peer.psnr is not None
        shortfall = peer.psnr - ours.psnr  # dB the GIF is below the peer's PSNR
        outcomes.append(
            {
                "target": "GIF PSNR below FFmpeg's (dB)",
                "ratio": round(shortfall, 2),
                "limit": 2.0,
                "result": common.verdict(shortfall <= 2.0),
            }
        )
    common.print_targets(outcomes, 32)
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = common.argument_parser(__doc__.split("\n\n")[0], ["ffmpeg", *FORMATS])
    for action in parser._actions:  # renders of seconds: fewer of them
        if action.dest == "iterations":
            action.default, action.help = 4, "timed renders of each contender (default 4)"
    args = common.parse_arguments(parser, argv)
    OUT.mkdir(exist_ok=True)
    info = common.machine({})
    print("machine: " + ", ".join(f"{key} {value}" for key, value in info.items()))
    results: dict[str, Figures] = {}
    skipped: dict[str, str] = {}
    contenders: list[tuple[str, Callable[[int], Figures]]] = [(name, templatekit_bench(name)) for name in FORMATS]
    contenders.append(("ffmpeg", bench_ffmpeg))
    common.run_contenders(contenders, args.iterations, args.skip, results, skipped, args.rounds)
    outcomes = report(results, skipped)
    if args.json is not None:
        payload = {
            "machine": info,
            "iterations": args.iterations,
            "targets": outcomes,
            "skipped": skipped,
            "contenders": {name: common.summary(figures, 1) for name, figures in results.items()},
        }
        common.save_json(args.json, json.loads(json.dumps(payload, default=str)))
        print(f"figures saved to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
