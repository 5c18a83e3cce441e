"""What the benchmark scripts share, so that they time, describe and report alike.

The scripts run as ``python benchmarks/<name>.py``, which puts this folder first on
``sys.path``; they import this module as ``common``.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from playwright.sync_api import Browser

ROOT = Path(__file__).resolve().parent.parent
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
#: Seconds of rest before each contender's turn, for the machine to settle.
SETTLE = 1.0

T = TypeVar("T")
X = TypeVar("X")


@dataclass
class Timings:
    """One contender's timed renders in ms; the scripts add what their output is like."""

    name: str
    label: str
    times_ms: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.times_ms)

    @property
    def p90(self) -> float:
        return statistics.quantiles(self.times_ms, n=10, method="inclusive")[-1]


F = TypeVar("F", bound=Timings)

# (header, width, the cell's text) of one right-aligned column of the results table
Column = tuple[str, int, Callable[[F], str]]
# (label, contender measured, contender compared with, highest allowed ratio)
Target = tuple[str, str, str, float]


class Skipped(Exception):
    """A contender that cannot run on this machine; the message says why."""


# ------------------------------------------------------------------ running


def argument_parser(description: str, skip: Sequence[str]) -> argparse.ArgumentParser:
    """The options every contender benchmark takes; ``skip`` names the contenders that can be left out."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--iterations", type=int, default=60, help="timed renders per contender (default 60)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also save the figures as JSON")
    parser.add_argument("--skip", action="append", default=[], choices=skip, help="leave a contender out")
    parser.add_argument(
        "--rounds",
        type=int,
        default=4,
        help="split each contender's renders into this many turns, taken in rotation (default 4)",
    )
    return parser


def parse_arguments(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """Parse, refusing fewer than 2 timed renders: one render gives no p90."""
    args = parser.parse_args(argv)
    if args.iterations < 2:
        parser.error("--iterations must be at least 2")
    if not 1 <= args.rounds <= args.iterations:
        parser.error("--rounds must be between 1 and --iterations")
    return args


def cycled(inputs: Sequence[str], count: int) -> Iterator[str]:
    """``count`` inputs, the list over again as often as needed, so every contender gets the same ones."""
    for index in range(count):
        yield inputs[index % len(inputs)]


def last_input(inputs: Sequence[str], iterations: int) -> str:
    """The input of the last timed render, which the last output must show."""
    return inputs[(iterations - 1) % len(inputs)]


def timed(render: Callable[[str], T], inputs: Sequence[str], iterations: int) -> tuple[list[float], T]:
    """Warm up, then time ``render`` once per input; also return the last output.

    A different input every time means no contender can hand back something it made before."""
    for item in cycled(inputs, WARMUP):
        render(item)
    times: list[float] = []
    last: T | None = None
    for item in cycled(inputs, iterations):
        start = time.perf_counter()
        last = render(item)
        times.append((time.perf_counter() - start) * 1000)
    if last is None:
        raise ValueError("nothing was timed")
    return times, last


def in_turns(
    renders: Mapping[str, Callable[[X], T]], inputs: Sequence[X], iterations: int
) -> dict[str, tuple[list[float], T]]:
    """Time each of ``renders`` once per input, the contenders taking turns render by
    render (so that a slow spell of a shared machine falls on all of them alike), after
    ``WARMUP`` untimed turns; each one's times in ms and its last output."""
    times: dict[str, list[float]] = {name: [] for name in renders}
    last: dict[str, T] = {}
    for number in range(WARMUP + iterations):
        item = inputs[number % len(inputs)]
        for name, render in renders.items():
            start = time.perf_counter()
            last[name] = render(item)
            if number >= WARMUP:
                times[name].append((time.perf_counter() - start) * 1000)
    return {name: (times[name], last[name]) for name in renders}


def command_ms(command: Sequence[str]) -> float:
    """Run a whole process and return its wall time in ms; a failed run is Skipped (with its
    last error line), because the time of a process that failed says nothing. Python may
    keep compiled bytecode (as it does for users) even where the environment says not to."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    start = time.perf_counter()
    finished = subprocess.run(command, capture_output=True, text=True, check=False, env=environment)
    elapsed = (time.perf_counter() - start) * 1000
    if finished.returncode:
        error = (finished.stderr.strip().splitlines() or ["no message"])[-1]
        raise Skipped(f"{' '.join(command)} exited with {finished.returncode}: {error}")
    return elapsed


def attempt(name: str, announce: str, bench: Callable[[], T], skipped: dict[str, str]) -> T | None:
    """Print ``announce`` and run ``bench``; when it raises Skipped, note why under ``name``
    and return None, so that one missing tool does not stop the other contenders."""
    print(announce, flush=True)
    try:
        return bench()
    except Skipped as exc:
        print(f"  skipped: {exc}")
        skipped[name] = str(exc)
        return None


def run_contenders(
    benches: Sequence[tuple[str, Callable[[int], F | Sequence[F]]]],
    iterations: int,
    skip: Collection[str],
    results: dict[str, F],
    skipped: dict[str, str],
    rounds: int = 1,
) -> None:
    """Run each bench not in ``skip`` into ``results`` (or ``skipped``), in ``rounds``
    turns of about ``iterations / rounds`` renders each: contenders take turns, so a
    slow spell of a shared machine falls on all of them, not on the one that ran then.
    A contender's figures are those of its last turn, with the times of all turns. A
    bench that times several contenders in turns of its own (templatekit and a peer
    in the same process) gives the figures of each, kept under their own names. Each
    turn starts ``SETTLE`` seconds after the one before: renders right after Chromium
    closed took a third longer for about a second."""
    for turn in range(rounds):
        count = iterations // rounds + (turn < iterations % rounds)
        for name, bench in benches:
            if name in skip or name in skipped:
                continue
            time.sleep(SETTLE)
            made = attempt(name, f"{name} ({turn + 1}/{rounds}) ...", partial(bench, count), skipped)
            if made is None:
                results.pop(name, None)
                continue
            named = [(figures.name, figures) for figures in made] if isinstance(made, Sequence) else [(name, made)]
            for key, figures in named:
                if key in results:
                    figures.times_ms = results[key].times_ms + figures.times_ms
                results[key] = figures


def load_peer(filename: str) -> ModuleType:
    """Import a hand-written peer from ``peers/``, which is not a package."""
    name = Path(filename).stem
    spec = importlib.util.spec_from_file_location(name, PEERS / filename)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@contextmanager
def chromium() -> Iterator[Browser]:
    """Debian's headless Chromium through Playwright, with the same flags for every benchmark;
    Skipped when either is missing, so that the other contenders still run."""
    if not Path(CHROMIUM).exists():
        raise Skipped(f"{CHROMIUM} not found (apt-get install chromium)")
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        raise Skipped('playwright is not installed (pip install -e ".[bench]")') from None
    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        except Error as exc:
            raise Skipped(f"Chromium did not start: {str(exc).strip().splitlines()[0]}") from None
        try:
            yield browser
        finally:
            browser.close()


# ------------------------------------------------------------------ machine


def machine(versions: Mapping[str, str]) -> dict[str, str]:
    """The machine and the ``versions`` of what was measured, so that figures can be compared
    only with figures from a like setup."""
    cpu = "unknown"
    with open("/proc/cpuinfo", encoding="utf-8") as info:
        for line in info:
            if line.startswith("model name"):
                cpu = line.partition(":")[2].strip()
                break
    return {
        "nproc": str(len(os.sched_getaffinity(0))),
        "cpu": cpu,
        "os": platform.platform(),
        "python": platform.python_version(),
        **versions,
    }


def package_version(name: str) -> str:
    """An installed distribution's version; the report says "not installed" rather than failing."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def first_line(command: list[str]) -> str:
    """The first line a ``--version``-style command prints (some print it on stderr)."""
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    return ((result.stdout or result.stderr).strip().splitlines() or ["?"])[0]


def chromium_version() -> str:
    """Chromium's own version line: Playwright's version does not say which browser ran."""
    return first_line([CHROMIUM, "--version"]) if Path(CHROMIUM).exists() else "not installed"


def print_setup(info: Mapping[str, str], iterations: int, inputs: Sequence[str], noun: str) -> None:
    """The machine line and what every contender is given, ahead of the figures."""
    print("machine: " + ", ".join(f"{key} {value}" for key, value in info.items()))
    print(f"{iterations} timed renders per contender after {WARMUP} warm-ups; {len(inputs)} {noun} in turn")


# ------------------------------------------------------------------ report


def timing_columns() -> list[Column[Any]]:
    """The median and p90 columns, empty for rows that have no timings (sizes only)."""
    return [
        ("median ms", 10, lambda figures: f"{figures.median:.1f}" if figures.times_ms else ""),
        ("p90 ms", 9, lambda figures: f"{figures.p90:.1f}" if figures.times_ms else ""),
    ]


def print_table(
    results: Mapping[str, F], skipped: Mapping[str, str], label_width: int, columns: Sequence[Column[F]]
) -> None:
    """One row per contender, labels left and figures right-aligned; then the skipped ones."""
    print(f"\n{'contender':<{label_width}}" + "".join(f" {header:>{width}}" for header, width, _ in columns))
    for figures in results.values():
        print(f"{figures.label:<{label_width}}" + "".join(f" {cell(figures):>{width}}" for _, width, cell in columns))
    for name, reason in skipped.items():
        print(f"{name:<{label_width}} skipped: {reason}")


def verdict(passed: bool) -> str:
    """PASS or MISS, worded alike in every benchmark's report."""
    return "PASS" if passed else "MISS"


def outcome(label: str, ratio: float | None, limit: float) -> dict[str, Any]:
    """A target as the JSON has it; no ratio means a contender it needs did not run."""
    if ratio is None:
        return {"target": label, "ratio": None, "limit": limit, "result": "SKIP"}
    return {"target": label, "ratio": round(ratio, 3), "limit": limit, "result": verdict(ratio <= limit)}


def ratio_outcomes(
    results: Mapping[str, F], targets: Sequence[Target], value: Callable[[F], float]
) -> list[dict[str, Any]]:
    """Each target's ``value`` of the measured contender over that of the one compared with."""
    outcomes: list[dict[str, Any]] = []
    for label, measured, compared, limit in targets:
        if measured in results and compared in results:
            outcomes.append(outcome(label, value(results[measured]) / value(results[compared]), limit))
        else:
            outcomes.append(outcome(label, None, limit))
    return outcomes


def print_targets(outcomes: Sequence[Mapping[str, Any]], label_width: int) -> None:
    """Each target's measured ratio and PASS, MISS or SKIP (``-`` where there is no ratio)."""
    print(f"\n{'target':<{label_width}} {'measured':>9}  result")
    for target in outcomes:
        ratio = f"{target['ratio']:.3f}x" if target["ratio"] is not None else "-"
        print(f"{target['target']:<{label_width}} {ratio:>9}  {target['result']}")


def summary(figures: Timings, digits: int | None = None) -> dict[str, Any]:
    """Figures as JSON, with the median and p90 (None for rows that have no timings)."""
    if not figures.times_ms:
        return {**asdict(figures), "median_ms": None, "p90_ms": None}
    median, p90 = figures.median, figures.p90
    if digits is not None:
        median, p90 = round(median, digits), round(p90, digits)
    return {**asdict(figures), "median_ms": median, "p90_ms": p90}


def save_json(path: Path, payload: Any) -> None:
    """Indented, with a final newline, so that saved figures read and diff well."""
    path.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")


def save_run(
    path: Path | None,
    info: Mapping[str, str],
    iterations: int,
    inputs: tuple[str, Sequence[str]],
    results: Mapping[str, Timings],
    skipped: Mapping[str, str],
    targets: Sequence[Mapping[str, Any]],
    digits: int | None = None,
) -> None:
    """Save a contender benchmark's whole run as JSON when ``path`` is given (``--json``), with
    the machine and the ``inputs`` (their key, and the list) so that it can be compared and repeated."""
    if path is None:
        return
    key, values = inputs
    payload = {
        "machine": info,
        "iterations": iterations,
        "warmup": WARMUP,
        key: list(values),
        "contenders": {name: summary(figures, digits) for name, figures in results.items()},
        "skipped": skipped,
        "targets": targets,
    }
    save_json(path, payload)
    print(f"figures saved to {path}")


def time_against_base(
    args: argparse.Namespace,
    benches: Sequence[tuple[str, Callable[[int], Timings]]],
    target: Target,
    inputs: tuple[str, Sequence[str]],
) -> None:
    """A benchmark of one variant against its base, rendered in turns: the table of
    timings, the target on their medians, and the run saved where ``--json`` says."""
    results: dict[str, Timings] = {}
    skipped: dict[str, str] = {}
    run_contenders(benches, args.iterations, [], results, skipped, args.rounds)
    print_table(results, skipped, 32, timing_columns())
    outcomes = ratio_outcomes(results, [target], lambda figures: figures.median)
    print_targets(outcomes, 44)
    save_run(args.json, machine({}), args.iterations, inputs, results, skipped, outcomes)
