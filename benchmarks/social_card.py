"""Render the example social card with templatekit and with the tools people use instead.

Every contender draws the same 1200x630 design with the same Inter font files, and the
title changes on every render (the same cycle of titles for everyone), so no contender
can hand back an image it made before. Each contender gets 3 warm-up renders, then
``--iterations`` timed ones; the last PNG of each is written to ``benchmarks/out/`` so
that a person can check that they all show the same card.

    python benchmarks/social_card.py [--iterations 60] [--json out.json] [--skip chromium]

See docs/benchmarks.md for what is measured and the targets.
"""

from __future__ import annotations

import argparse
import base64
import importlib.metadata
import importlib.util
import io
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import PIL
import segno
from PIL import Image

import templatekit as tk

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "examples" / "templates" / "social-card.json"
LOGO = ROOT / "examples" / "templates" / "assets" / "logo.svg"
PEERS = Path(__file__).resolve().parent / "peers"
OUT = Path(__file__).resolve().parent / "out"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WARMUP = 3
COLD_RUNS = 5

# All fit the title box at 64 px in at most 3 lines, so no contender needs shrink-to-fit.
TITLES = [
    "Render beautiful images from templates, at the speed of Pillow",
    "Ship social cards for every blog post without a headless browser",
    "Ten lessons from a year of generating marketing images",
    "How we cut our image pipeline from seconds to milliseconds",
    "Dynamic Open Graph images in one JSON file",
    "Designing templates that survive long titles",
    "A practical guide to QR codes on printed tickets",
    "Why your thumbnails look blurry and how to fix them",
    "Release notes: gradients, ellipses and better text fitting",
    "From Figma mock-up to production template in an afternoon",
    "Batch-rendering ten thousand product cards overnight",
    "Typography tips for cards that are read at a glance",
    "What we learned replacing Puppeteer in our stack",
    "Automating badges for a conference of 5,000",
    "The anatomy of a good Open Graph image",
    "Localising templates: right-to-left, CJK and emoji",
    "Keeping brand colours consistent across every channel",
    "Benchmarks, honestly: measuring render time on two cores",
    "Migrating a legacy image service without downtime",
    "Announcing templatekit 0.1",
]

# (label, contender measured, contender compared with, highest allowed ratio)
TIME_TARGETS = [
    ("templatekit time <= 0.6x Pillow", "templatekit", "pillow", 0.6),
    ("templatekit time <= 0.3x Chromium", "templatekit", "chromium", 0.3),
    ("templatekit time <= 0.5x Satori", "templatekit", "satori", 0.5),
    ("cold templatekit render <= 2x cold Pillow script", "cold-templatekit", "cold-pillow", 2.0),
]
PNG_TARGET = 1.25


@dataclass
class Figures:
    """Timings of one contender in ms, and the size of its last PNG."""

    name: str
    label: str
    times_ms: list[float]
    png_bytes: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def median(self) -> float:
        return statistics.median(self.times_ms)

    @property
    def p90(self) -> float:
        return statistics.quantiles(self.times_ms, n=10, method="inclusive")[-1]


class Skipped(Exception):
    """A contender that cannot run on this machine; the message says why."""


def titles(count: int) -> Iterator[str]:
    for index in range(count):
        yield TITLES[index % len(TITLES)]


def timed(render: Callable[[str], int], iterations: int) -> tuple[list[float], int]:
    """Warm up, then time ``render`` (which returns the PNG size) once per title."""
    for title in titles(WARMUP):
        render(title)
    times: list[float] = []
    size = 0
    for title in titles(iterations):
        start = time.perf_counter()
        size = render(title)
        times.append((time.perf_counter() - start) * 1000)
    return times, size


def qr_png() -> tuple[bytes, int]:
    """The QR code PNG that every peer shows (the Pillow peer's), and its side in px."""
    data = load_pillow_card().qr_png()
    return data, Image.open(io.BytesIO(data)).width


def data_uri(media_type: str, data: bytes) -> str:
    return f"data:{media_type};base64,{base64.b64encode(data).decode()}"


# ------------------------------------------------------------------ contenders


def bench_templatekit(iterations: int) -> tuple[Figures, Figures]:
    """templatekit in-process, and the size Pillow's default PNG settings give its pixels."""
    template = tk.load_template(TEMPLATE)
    last = b""

    def render(title: str) -> int:
        nonlocal last
        last = tk.render_image(template, {"title": title}, format="png").data
        return len(last)

    times, size = timed(render, iterations)
    (OUT / "templatekit.png").write_bytes(last)
    reencoded = io.BytesIO()
    Image.open(io.BytesIO(last)).save(reencoded, "PNG")
    return (
        Figures("templatekit", "templatekit (in-process)", times, size),
        Figures("pillow-encoding", "  same pixels, Pillow default PNG", [], len(reencoded.getvalue())),
    )


def load_pillow_card() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pillow_card", PEERS / "pillow_card.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bench_pillow(iterations: int) -> Figures:
    card = load_pillow_card()
    assets = card.load_assets()
    last = b""

    def render(title: str) -> int:
        nonlocal last
        last = card.render_card(assets, title)
        return len(last)

    times, size = timed(render, iterations)
    (OUT / "pillow.png").write_bytes(last)
    return Figures("pillow", "Pillow + segno (by hand)", times, size)


def bench_chromium(iterations: int) -> Figures:
    """One browser and one page; per render only the title changes, then a screenshot."""
    if not Path(CHROMIUM).exists():
        raise Skipped(f"{CHROMIUM} not found (apt-get install chromium)")
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        raise Skipped('playwright is not installed (pip install -e ".[bench]")') from None
    qr, qr_side = qr_png()
    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        except Error as exc:
            raise Skipped(f"Chromium did not start: {str(exc).strip().splitlines()[0]}") from None
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 630}, device_scale_factor=1)
            page.goto((PEERS / "card.html").as_uri())
            page.evaluate(
                """async ([logo, qr, side]) => {
                    document.getElementById("logo").src = logo;
                    const code = document.getElementById("qr");
                    code.src = qr;
                    code.width = code.height = side;
                    await Promise.all([...document.images].map((image) => image.decode()));
                    await document.fonts.ready;
                }""",
                [data_uri("image/svg+xml", LOGO.read_bytes()), data_uri("image/png", qr), qr_side],
            )
            last = b""

            def render(title: str) -> int:
                nonlocal last
                page.evaluate("(title) => { document.getElementById('title').textContent = title; }", title)
                last = page.screenshot(type="png")
                return len(last)

            times, size = timed(render, iterations)
        finally:
            browser.close()
    (OUT / "chromium.png").write_bytes(last)
    return Figures("chromium", "Chromium + Playwright", times, size)


def npm_ready() -> None:
    """Install the Satori peer's packages from the lock file the first time."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise Skipped("node/npm not found (apt-get install nodejs npm)")
    if (PEERS / "node_modules" / "satori").exists() and (PEERS / "node_modules" / "@resvg" / "resvg-js").exists():
        return
    print("installing the Satori peer: npm ci in benchmarks/peers ...", flush=True)
    try:
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"], cwd=PEERS, check=True, capture_output=True, text=True, timeout=300
        )
    except subprocess.CalledProcessError as exc:
        raise Skipped(f"npm ci failed: {(exc.stderr or exc.stdout).strip()[-500:]}") from None
    except subprocess.TimeoutExpired:
        raise Skipped("npm ci took more than 5 minutes") from None


@contextmanager
def satori_process() -> Iterator[Callable[[dict[str, Any]], dict[str, Any]]]:
    """The long-running Node peer, and a function that sends it one request."""
    process = subprocess.Popen(
        ["node", str(PEERS / "satori_card.mjs")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    def ask(message: dict[str, Any]) -> dict[str, Any]:
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()
        answer = stdout.readline()
        if not answer:
            raise Skipped(f"the Node peer stopped (exit code {process.wait()})")
        return dict(json.loads(answer))

    try:
        yield ask
    finally:
        stdin.close()
        process.wait(timeout=30)


def bench_satori(iterations: int) -> Figures:
    """Per-render time as Node measures it (Satori + resvg-js), without the pipe hop;
    the round trip seen from Python is kept in the JSON output."""
    npm_ready()
    qr, qr_side = qr_png()
    node_times: list[float] = []
    with satori_process() as ask:
        ready = ask(
            {
                "logo": data_uri("image/svg+xml", LOGO.read_bytes()),
                "qr": {"uri": data_uri("image/png", qr), "side": qr_side},
            }
        )

        def render(title: str) -> int:
            answer = ask({"title": title})
            node_times.append(float(answer["ms"]))
            return int(answer["bytes"])

        round_trip, size = timed(render, iterations)
        ask({"title": TITLES[(iterations - 1) % len(TITLES)], "out": str(OUT / "satori.png")})
    return Figures(
        "satori",
        "Satori + resvg-js (in Node)",
        node_times[WARMUP:],
        size,
        {"versions": ready["versions"], "round_trip_median_ms": statistics.median(round_trip)},
    )


def bench_cold() -> tuple[Figures, Figures]:
    """Whole processes, as a person runs them: start, import, load fonts, render once,
    write the file. One untimed run of each first, so that files come from the page
    cache; then the two commands alternate."""
    cli = Path(sys.executable).parent / "templatekit"
    with tempfile.TemporaryDirectory() as scratch:
        commands = {
            "cold-templatekit": [str(cli), "render", str(TEMPLATE), "-o", f"{scratch}/x.png"],
            "cold-pillow": [sys.executable, str(PEERS / "pillow_card.py"), f"{scratch}/y.png"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for run in range(COLD_RUNS + 1):
            for name, command in commands.items():
                start = time.perf_counter()
                finished = subprocess.run(command, capture_output=True, text=True, check=False)
                if finished.returncode:
                    error = (finished.stderr.strip().splitlines() or ["no message"])[-1]
                    raise Skipped(f"{' '.join(command)} exited with {finished.returncode}: {error}")
                if run:
                    times[name].append((time.perf_counter() - start) * 1000)
    return (
        Figures("cold-templatekit", "cold: templatekit render (CLI)", times["cold-templatekit"]),
        Figures("cold-pillow", "cold: pillow_card.py", times["cold-pillow"]),
    )


# ------------------------------------------------------------------ report


def machine() -> dict[str, str]:
    cpu = "unknown"
    with open("/proc/cpuinfo", encoding="utf-8") as info:
        for line in info:
            if line.startswith("model name"):
                cpu = line.partition(":")[2].strip()
                break
    node = shutil.which("node")
    chromium = Path(CHROMIUM).exists()
    return {
        "nproc": str(len(os.sched_getaffinity(0))),
        "cpu": cpu,
        "os": platform.platform(),
        "python": platform.python_version(),
        "pillow": PIL.__version__,
        "segno": segno.__version__,
        "resvg-py": _package_version("resvg-py"),
        "playwright": _package_version("playwright"),
        "templatekit": tk.__version__,
        "chromium": _first_line([CHROMIUM, "--version"]) if chromium else "not installed",
        "node": _first_line(["node", "--version"]) if node else "not installed",
    }


def _package_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _first_line(command: list[str]) -> str:
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    return (result.stdout.strip().splitlines() or ["?"])[0]


def summary(figures: Figures) -> dict[str, Any]:
    """Figures as JSON; size-only rows have no timings."""
    has_times = bool(figures.times_ms)
    return {
        **asdict(figures),
        "median_ms": figures.median if has_times else None,
        "p90_ms": figures.p90 if has_times else None,
    }


def report(results: dict[str, Figures], skipped: dict[str, str]) -> list[dict[str, Any]]:
    """Print the table and the targets; return the targets' outcome."""
    pillow = results.get("pillow")
    print(f"\n{'contender':<36} {'median ms':>10} {'p90 ms':>9} {'PNG bytes':>10} {'time vs Pillow':>15}")
    for figures in results.values():
        timing = f"{figures.median:>10.1f} {figures.p90:>9.1f}" if figures.times_ms else f"{'':>10} {'':>9}"
        size = f"{figures.png_bytes:>10,}" if figures.png_bytes is not None else f"{'':>10}"
        ratio = ""
        if pillow is not None and figures.times_ms and not figures.name.startswith("cold"):
            ratio = f"{figures.median / pillow.median:.2f}x"
        print(f"{figures.label:<36} {timing} {size} {ratio:>15}")
    for name, reason in skipped.items():
        print(f"{name:<36} skipped: {reason}")

    outcomes: list[dict[str, Any]] = []
    for label, measured, baseline, limit in TIME_TARGETS:
        if measured in results and baseline in results:
            outcomes.append(_outcome(label, results[measured].median / results[baseline].median, limit))
        else:
            outcomes.append({"target": label, "ratio": None, "limit": limit, "result": "SKIP"})
    tk_png, reencoded = results["templatekit"].png_bytes, results["pillow-encoding"].png_bytes
    assert tk_png is not None and reencoded is not None
    outcomes.append(_outcome("templatekit PNG <= 1.25x Pillow default encoding", tk_png / reencoded, PNG_TARGET))

    print(f"\n{'target':<52} {'measured':>9}  result")
    for outcome in outcomes:
        ratio = f"{outcome['ratio']:.3f}x" if outcome["ratio"] is not None else "-"
        print(f"{outcome['target']:<52} {ratio:>9}  {outcome['result']}")
    return outcomes


def _outcome(label: str, ratio: float, limit: float) -> dict[str, Any]:
    return {"target": label, "ratio": round(ratio, 3), "limit": limit, "result": "PASS" if ratio <= limit else "MISS"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=60, help="timed renders per contender (default 60)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also save the figures as JSON")
    parser.add_argument(
        "--skip", action="append", default=[], choices=["chromium", "satori", "cold"], help="leave a contender out"
    )
    args = parser.parse_args(argv)
    if args.iterations < 2:
        parser.error("--iterations must be at least 2")

    OUT.mkdir(exist_ok=True)
    info = machine()
    print("machine: " + ", ".join(f"{key} {value}" for key, value in info.items()))
    print(f"{args.iterations} timed renders per contender after {WARMUP} warm-ups; {len(TITLES)} titles in turn")

    results: dict[str, Figures] = {}
    skipped: dict[str, str] = {}
    print("templatekit ...", flush=True)
    for figures in bench_templatekit(args.iterations):
        results[figures.name] = figures
    print("Pillow + segno ...", flush=True)
    results["pillow"] = bench_pillow(args.iterations)
    peers: list[tuple[str, Callable[[int], Figures]]] = [("satori", bench_satori), ("chromium", bench_chromium)]
    for name, bench in peers:
        if name in args.skip:
            continue
        print(f"{name} ...", flush=True)
        try:
            results[name] = bench(args.iterations)
        except Skipped as exc:
            print(f"  skipped: {exc}")
            skipped[name] = str(exc)
    if "cold" not in args.skip:
        print(f"cold start, {COLD_RUNS} runs each ...", flush=True)
        try:
            for figures in bench_cold():
                results[figures.name] = figures
        except Skipped as exc:
            print(f"  skipped: {exc}")
            skipped["cold start"] = str(exc)
    if "satori" in results:
        versions = results["satori"].extra["versions"]
        info.update(versions)
        print(f"Node peer: node {versions['node']}, satori {versions['satori']}, resvg-js {versions['resvg-js']}")

    outcomes = report(results, skipped)
    print(f"\nlast PNG of each contender: {OUT.relative_to(ROOT)}/")
    if args.json:
        payload = {
            "machine": info,
            "iterations": args.iterations,
            "warmup": WARMUP,
            "titles": TITLES,
            "contenders": {name: summary(figures) for name, figures in results.items()},
            "skipped": skipped,
            "targets": outcomes,
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        print(f"figures saved to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
