"""Render the example promo video with templatekit and with MoviePy, and time its encoder alone.

Every contender makes the same 5 s video of examples/templates/promo-video.json: 1280x720
at 30 fps (150 frames), H.264 by libx264 at templatekit's preset and CRF, no sound. The
title changes on every render, warm-ups included (each contender goes through the same
cycle of titles), so no contender can hand back a video it made before. Renders take
seconds, so each contender gets 1 warm-up render per turn, then its share of the timed
ones: ``--iterations`` for templatekit and the encoding floor (the floor encodes frames
templatekit painted beforehand), ``--moviepy-iterations`` for MoviePy. The last MP4 of
each, and a PNG of its frame at 2.5 s, are written to ``benchmarks/out/promo-*`` so that
a person can check that they show the same video; each MP4 is checked with PyAV.

    python benchmarks/video_promo.py [--iterations 8] [--moviepy-iterations 4] [--json out.json] [--skip moviepy]

MoviePy 2.2 needs pillow<12 and templatekit pillow>=12.1, so MoviePy runs in a virtual
environment of its own, benchmarks/.venv-moviepy, made on first use (pip install
"moviepy>=2,<3" numpy), as a subprocess that times its own renders
(benchmarks/peers/moviepy_promo.py). See docs/benchmarks.md for what is measured and the
targets.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import av
import common
import cv2
import numpy as np
import PIL
import resvg_py
from common import OUT, PEERS, ROOT, Column, Skipped, Timings

import templatekit as tk
from templatekit.options import RenderOptions
from templatekit.pipeline import resolve
from templatekit.video.encode import CRF, PRESET, Mp4Writer, yuv420p
from templatekit.video.frames import FrameMaker
from templatekit.video.movie import frame_count

PROMO = ROOT / "examples" / "templates" / "promo-video.json"
LOGO = ROOT / "examples" / "templates" / "assets" / "logo.svg"
VENV = Path(__file__).resolve().parent / ".venv-moviepy"
PEER = PEERS / "moviepy_promo.py"
MOVIEPY_REQUIREMENTS = ("moviepy>=2,<3", "numpy")
WARMUP = 1  # untimed renders per turn: a render takes seconds
WIDTH, HEIGHT, FRAMES, FPS = 1280, 720, 150, 30
SECONDS = FRAMES / FPS
STILL_AT = 2.5  # the frame saved as a PNG: the template's poster moment

# All fit the title box at 76 px in 2 lines, so no contender needs shrink-to-fit.
TITLES = [
    "The everyday mug, reimagined",
    "Stoneware for slow mornings",
    "Keeps your coffee warm for longer",
    "Hand-glazed, and dishwasher safe",
    "The last mug you will ever buy",
    "Designed in Oslo, fired in Porto",
    "A mug that fits every hand",
    "Now in six new glazes",
    "Fired twice, built to last",
    "Morning coffee, done right",
    "Free shipping on every mug",
    "Twelve ounces of calm",
]
_taken: dict[str, int] = {}


def next_titles(name: str, count: int) -> list[str]:
    """The next ``count`` titles of the cycle for contender ``name``: its renders, warm-ups
    and turns included, never show the title of the render before."""
    start = _taken.get(name, 0)
    _taken[name] = start + count
    return [TITLES[(start + index) % len(TITLES)] for index in range(count)]


@dataclass
class Figures(Timings):
    """Timings of one contender in ms, and what its last MP4 is like."""

    mp4_bytes: int = 0
    frames: int = 0
    size: str = ""
    codec: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def inspected(name: str, label: str, times: list[float], mp4: Path) -> Figures:
    """Keep the last MP4 and a PNG of its frame at 2.5 s; an MP4 that is not 150 frames
    of 1280x720 H.264 is an error, since its time would say nothing."""
    kept = OUT / f"promo-{name}.mp4"
    if mp4 != kept:
        shutil.copyfile(mp4, kept)
    frames = 0
    with av.open(str(kept)) as container:
        stream = container.streams.video[0]
        codec, width, height = stream.codec_context.name, stream.codec_context.width, stream.codec_context.height
        for frame in container.decode(stream):
            if frames == round(STILL_AT * FPS):
                frame.to_image().save(kept.with_suffix(".png"))
            frames += 1
    if (frames, width, height, codec) != (FRAMES, WIDTH, HEIGHT, "h264"):
        raise RuntimeError(
            f"{name}: the last MP4 has {frames} frames of {width}x{height} {codec},"
            f" not {FRAMES} of {WIDTH}x{HEIGHT} h264"
        )
    return Figures(name, label, times, kept.stat().st_size, frames, f"{width}x{height}", codec)


#: The CPU time (all threads of this process) of each timed render, by contender.
CPU_MS: dict[str, list[float]] = {}


def timed(name: str, render: Callable[[str], object], inputs: Sequence[str]) -> list[float]:
    """``common.timed`` with 1 warm-up instead of 3: ``render`` the first input untimed,
    then time it once per other input; its CPU time goes into ``CPU_MS[name]``."""
    for item in inputs[:WARMUP]:
        render(item)
    times: list[float] = []
    for item in inputs[WARMUP:]:
        start, start_cpu = time.perf_counter(), time.process_time()
        render(item)
        times.append((time.perf_counter() - start) * 1000)
        CPU_MS.setdefault(name, []).append((time.process_time() - start_cpu) * 1000)
    return times


# ------------------------------------------------------------------ contenders


def bench_templatekit(iterations: int) -> Figures:
    """``render_video`` to a file, in-process, as an application calls it."""
    template = tk.load_template(PROMO)
    with tempfile.TemporaryDirectory(prefix="promo-") as scratch:
        path = Path(scratch) / "promo.mp4"
        titles = next_titles("templatekit", WARMUP + iterations)
        times = timed("templatekit", lambda title: tk.render_video(template, {"title": title}, path=path), titles)
        return inspected("templatekit", "templatekit (in-process)", times, path)


_frames: list[np.ndarray] = []


def painted_frames() -> list[np.ndarray]:
    """The 150 frames of the promo (first title) as templatekit paints them, converted to
    yuv420p planes as ``render_video`` hands them to the encoder; painted once, untimed."""
    if not _frames:
        template, ctx, _ = resolve(PROMO, {"title": TITLES[0]}, RenderOptions())
        assert template.video is not None and frame_count(template, template.video.fps) == FRAMES
        maker = FrameMaker(template, ctx)
        try:
            _frames.extend(yuv420p(maker.compose(maker.looks(index / FPS))) for index in range(FRAMES))
        finally:
            maker.close()
    return _frames


def bench_floor(iterations: int) -> Figures:
    """The encoding floor: templatekit's own MP4 writer (same x264 settings and threads)
    given the 150 frames ready in memory; only ``Mp4Writer``, ``add`` and ``close`` are timed."""
    frames = painted_frames()
    with tempfile.TemporaryDirectory(prefix="promo-") as scratch:
        path = Path(scratch) / "promo.mp4"

        def encode(_: str) -> None:
            writer = Mp4Writer(path, WIDTH, HEIGHT, FPS)
            for planes in frames:
                writer.add(planes)
            writer.close()

        times = timed("floor", encode, ["frames"] * (WARMUP + iterations))
        return inspected("floor", "encoding floor (Mp4Writer)", times, path)


def moviepy_python() -> Path:
    """The MoviePy environment's Python, made the first time (or mended when MoviePy
    does not import in it); Skipped when it cannot be made."""
    python = VENV / "bin" / "python"
    check = [str(python), "-c", "import moviepy, numpy"]
    if python.exists() and subprocess.run(check, capture_output=True, check=False).returncode == 0:
        return python
    print(f"making {VENV}: pip install {' '.join(MOVIEPY_REQUIREMENTS)} ...", flush=True)
    steps = [
        [sys.executable, "-m", "venv", str(VENV)],
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *MOVIEPY_REQUIREMENTS],
    ]
    for step in steps:
        try:
            subprocess.run(step, capture_output=True, text=True, check=True, timeout=900)
        except subprocess.CalledProcessError as exc:
            error = " ".join((exc.stderr or exc.stdout or "no message").split())
            raise Skipped(f"{' '.join(step[:4])} failed: {error[-400:]}") from None
        except (subprocess.TimeoutExpired, OSError) as exc:
            raise Skipped(f"{' '.join(step[:4])} failed: {exc}") from None
    if subprocess.run(check, capture_output=True, check=False).returncode:
        raise Skipped(f"moviepy does not import in {VENV}")
    return python


_logo: list[Path] = []


def logo_png() -> Path:
    """The logo rasterised once, 72x72 as the template shows it, for the MoviePy peer."""
    if not _logo:
        path = OUT / "promo-logo.png"
        path.write_bytes(bytes(resvg_py.svg_to_bytes(svg_path=str(LOGO), width=72, height=72)))
        _logo.append(path)
    return _logo[0]


def moviepy_bench(total: int, rounds: int) -> Callable[[int], Figures]:
    """The MoviePy bench for ``common.run_contenders``: ``total`` timed renders spread
    over the turns (a turn may have none, since each MoviePy render takes many seconds);
    each turn that has some runs the peer once: start, 1 warm-up render, its timed renders."""
    shares = [total * (turn + 1) // rounds - total * turn // rounds for turn in range(rounds)]
    last: list[Figures] = []

    def bench(_count: int) -> Figures:
        share = shares.pop(0)
        if not share:
            print("  (no MoviePy render in this turn)")
            if last:
                return replace(last[0], times_ms=[])
            return Figures("moviepy", "MoviePy 2 (own venv)", [])
        python = moviepy_python()
        kept = OUT / "promo-moviepy.mp4"
        command = [str(python), str(PEER), "--logo", str(logo_png()), "--iterations", str(share), "--keep", str(kept)]
        for title in next_titles("moviepy", WARMUP + share):
            command += ["--title", title]
        finished = subprocess.run(command, capture_output=True, text=True, check=False)
        if finished.returncode:
            error = (finished.stderr.strip().splitlines() or ["no message"])[-1]
            raise Skipped(f"the MoviePy peer exited with {finished.returncode}: {error}")
        answer = json.loads(finished.stdout.strip().splitlines()[-1])
        figures = inspected("moviepy", "MoviePy 2 (own venv)", [float(ms) for ms in answer["times_ms"]], kept)
        figures.extra["versions"] = answer["versions"]
        last[:] = [figures]
        return figures

    return bench


# ------------------------------------------------------------------ report


def machine() -> dict[str, str]:
    codec = ".".join(map(str, av.library_versions["libavcodec"]))
    return common.machine(
        {
            "templatekit": tk.__version__,
            "pillow": PIL.__version__,
            "numpy": np.__version__,
            "opencv": cv2.__version__,
            "av": av.__version__,
            "libavcodec (PyAV)": codec,
            "resvg-py": common.package_version("resvg-py"),
            "x264": f"preset {PRESET}, crf {CRF}",
        }
    )


# (label, contender measured, contender compared with, highest allowed ratio)
TIME_TARGETS = [
    ("templatekit time <= 0.1x MoviePy", "templatekit", "moviepy", 0.1),
    ("templatekit time <= 1.2x the encoding floor", "templatekit", "floor", 1.2),
]
REAL_TIME = ("templatekit real-time factor (5 s / median) >= 3", 3.0)


def real_time(figures: Figures) -> float:
    return SECONDS * 1000 / figures.median


def report(results: dict[str, Figures], skipped: dict[str, str]) -> list[dict[str, Any]]:
    """Print the table, the targets and where the MP4s are; return the targets' outcome."""
    floor = results.get("floor")

    def versus_floor(figures: Figures) -> str:
        return f"{figures.median / floor.median:.2f}x" if floor is not None and figures.times_ms else ""

    def cpu(figures: Figures) -> str:
        return f"{statistics.median(CPU_MS[figures.name]):.0f}" if figures.name in CPU_MS else ""

    def cores(figures: Figures) -> str:
        return f"{statistics.median(CPU_MS[figures.name]) / figures.median:.2f}" if figures.name in CPU_MS else ""

    columns: list[Column[Figures]] = [
        *common.timing_columns(),
        ("runs", 5, lambda figures: str(len(figures.times_ms))),
        ("x real time", 12, lambda figures: f"{real_time(figures):.2f}" if figures.times_ms else ""),
        ("MP4 bytes", 10, lambda figures: f"{figures.mp4_bytes:,}"),
        ("frames", 7, lambda figures: str(figures.frames)),
        ("size", 9, lambda figures: figures.size),
        ("time vs floor", 14, versus_floor),
        ("CPU ms", 8, cpu),
        ("cores busy", 11, cores),
    ]
    common.print_table(results, skipped, 28, columns)
    if floor is not None and "templatekit" in results and {"templatekit", "floor"} <= CPU_MS.keys():
        # CPU time spread over every core is the least time a render can take
        processors = os.cpu_count() or 1
        least = statistics.median(CPU_MS["templatekit"]) / processors
        print(
            f"\ntemplatekit's CPU time over {processors} cores: at least {least:.0f} ms a render,"
            f" {least / floor.median:.2f}x the floor's median"
        )
    outcomes = common.ratio_outcomes(results, TIME_TARGETS, lambda figures: figures.median)
    label, lowest = REAL_TIME
    if "templatekit" in results:
        factor = real_time(results["templatekit"])
        outcomes.append(
            {"target": label, "ratio": round(factor, 3), "limit": lowest, "result": common.verdict(factor >= lowest)}
        )
    else:
        outcomes.append(common.outcome(label, None, lowest))
    common.print_targets(outcomes, 50)
    print(f"\nlast MP4 of each contender, and a PNG of its frame at {STILL_AT} s: {OUT.relative_to(ROOT)}/promo-*")
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = common.argument_parser(__doc__.split("\n\n")[0], ["moviepy", "floor"])
    for action in parser._actions:  # the shared option, with a default that suits renders of seconds
        if action.dest == "iterations":
            action.default, action.help = 8, "timed renders of templatekit and of the floor (default 8)"
    parser.add_argument(
        "--moviepy-iterations",
        type=int,
        default=4,
        metavar="N",
        help="timed MoviePy renders, about 10 s each (default 4)",
    )
    args = common.parse_arguments(parser, argv)
    if args.moviepy_iterations < 2:
        parser.error("--moviepy-iterations must be at least 2")

    OUT.mkdir(exist_ok=True)
    info = machine()
    print("machine: " + ", ".join(f"{key} {value}" for key, value in info.items()))
    print(
        f"{args.iterations} timed renders of templatekit and of the floor, {args.moviepy_iterations} of MoviePy,"
        f" in {args.rounds} turns of {WARMUP} warm-up each; {len(TITLES)} titles in turn"
    )

    results: dict[str, Figures] = {}
    skipped: dict[str, str] = {}
    contenders: list[tuple[str, Callable[[int], Figures]]] = [
        ("templatekit", bench_templatekit),
        ("floor", bench_floor),
        ("moviepy", moviepy_bench(args.moviepy_iterations, args.rounds)),
    ]
    common.run_contenders(contenders, args.iterations, args.skip, results, skipped, args.rounds)
    if "moviepy" in results:
        info.update(results["moviepy"].extra["versions"])

    outcomes = report(results, skipped)
    if args.json is not None:
        common.save_json(
            args.json,
            {
                "machine": info,
                "iterations": args.iterations,
                "moviepy_iterations": args.moviepy_iterations,
                "rounds": args.rounds,
                "warmup_per_turn": WARMUP,
                "titles": TITLES,
                "contenders": {name: common.summary(figures, 1) for name, figures in results.items()},
                "skipped": skipped,
                "targets": outcomes,
            },
        )
        print(f"figures saved to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
