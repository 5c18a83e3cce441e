"""Batches on every core: renders per second of one process, of ``render_many``'s own
process pool and of ``templatekit batch`` on the same all-new social cards.

Every row has a title, subtitle and QR code that no other row has (social_card.py's
``all_new``), so no render can reuse another's work. The three take turns (``--rounds``),
each turn on ``--rows`` new rows (1,000 by default, a batch as people run them), so that a
slow spell of a shared machine falls on all of them:

- one process: ``render_image`` in a loop, after warm-up renders; and the same writing
  each PNG to a file;
- one independent process per core doing the same, started together and timed from
  their common start to the last one's end: the most these cores give (they share
  caches and memory bandwidth), for reference; and the same with
  each process writing its PNGs to files, as ``templatekit batch`` does: the ceiling the
  command is held to;
- ``render_many``: its default pool of one worker per core, timed from the call to the
  last result, pool start included, as a script that calls it pays it;
- ``templatekit batch``: the whole command on a CSV of the rows, from start to exit,
  files written.

    python benchmarks/batch.py [--rows 1000] [--rounds 3] [--json out.json]

Targets: render_many and templatekit batch >= 0.9 x cores x one process's renders/s, and
>= 0.95x what independent processes get (render_many against processes that keep their
images, the command against processes that write them to files, as it does, and so for
one process; where the cores themselves scale less than 0.9 x cores, the second says
whether the pool is what falls short).
"""

from __future__ import annotations

import argparse
import csv
import io
import itertools
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from multiprocessing.synchronize import Barrier
from pathlib import Path

import common
import PIL
from PIL import Image
from social_card import TEMPLATE, TITLES, all_new

import templatekit as tk

CORES = os.cpu_count() or 1
TARGET = 0.9
#: The pool against what the cores give with nothing shared: it should lose next to nothing.
CEILING_SHARE = 0.95
NUMBERS = itertools.count(1_000_000)
#: Seconds an independent process waits for the others to be warm (one that died is
#: not coming).
WAIT_FOR_OTHERS = 300


@dataclass
class Rate:
    """A contender's renders per second in each of its turns."""

    name: str
    label: str
    turns: list[float] = field(default_factory=list)

    @property
    def per_second(self) -> float:
        return statistics.median(self.turns)

    def ratio(self, base: Rate) -> float:
        """The median over rounds of this rate over ``base``'s in the same round: the
        machine's slow and fast spells fall on both sides of each ratio."""
        return statistics.median(mine / theirs for mine, theirs in zip(self.turns, base.turns, strict=True))


def new_rows(count: int) -> list[dict[str, str]]:
    rows = []
    for _ in range(count):
        number = next(NUMBERS)
        title, subtitle, url = all_new(TITLES[number % len(TITLES)], number)
        rows.append({"title": title, "subtitle": subtitle, "qr": url})
    return rows


def one_process(template: tk.Template, rows: list[dict[str, str]], folder: Path | None = None) -> float:
    """Seconds to render ``rows`` in a loop; with ``folder``, each PNG written to a file
    of its own there."""
    start = time.perf_counter()
    for number, row in enumerate(rows):
        result = tk.render_image(template, row)
        if folder is not None:
            (folder / f"{os.getpid()}-{number}.png").write_bytes(result.data)
    return time.perf_counter() - start


def independent(template: tk.Template, rows: list[dict[str, str]], folder: Path | None = None) -> float:
    """What the cores give with nothing shared: one process per core, each warmed up,
    then all starting at once and rendering an equal share in a loop (writing its files
    to ``folder``, if given); the seconds from their common start to the last one's end,
    as for ``len(rows)`` rows. (Their rates summed would overstate it: the process that
    finishes first leaves the other a core of its own.)"""
    share = len(rows) // CORES
    context = multiprocessing.get_context("fork")
    start_together = context.Barrier(CORES, timeout=WAIT_FOR_OTHERS)
    spans: multiprocessing.SimpleQueue[tuple[float, float]] = context.SimpleQueue()
    processes = [
        context.Process(
            target=_timed_share, args=(template, rows[n * share : (n + 1) * share], folder, start_together, spans)
        )
        for n in range(CORES)
    ]
    for process in processes:
        process.start()
    for process in processes:  # their spans are a few bytes each: the queue never fills
        process.join()
    if any(process.exitcode for process in processes):
        raise SystemExit(f"an independent process failed: exit codes {[p.exitcode for p in processes]}")
    times = [spans.get() for _ in processes]
    seconds = max(end for _, end in times) - min(start for start, _ in times)
    return seconds * len(rows) / (share * CORES)


def one_process_writing(template: tk.Template, rows: list[dict[str, str]]) -> float:
    with tempfile.TemporaryDirectory(prefix="templatekit-one-") as scratch:
        return one_process(template, rows, Path(scratch))


def independent_writing(template: tk.Template, rows: list[dict[str, str]]) -> float:
    with tempfile.TemporaryDirectory(prefix="templatekit-independent-") as scratch:
        return independent(template, rows, Path(scratch))


def _timed_share(
    template: tk.Template,
    rows: list[dict[str, str]],
    folder: Path | None,
    start_together: Barrier,
    spans: multiprocessing.SimpleQueue[tuple[float, float]],
) -> None:
    """One independent process: warm up, wait for the others, render ``rows``; its
    start and end on the clock all processes share."""
    try:
        one_process(template, new_rows(3))
        start_together.wait()
    except BaseException:
        start_together.abort()  # the others stop waiting for this one, and fail too
        raise
    started = time.clock_gettime(time.CLOCK_MONOTONIC)
    one_process(template, rows, folder)
    spans.put((started, time.clock_gettime(time.CLOCK_MONOTONIC)))


def pool(template: tk.Template, rows: list[dict[str, str]]) -> float:
    start = time.perf_counter()
    items = list(tk.render_many(template, rows))
    elapsed = time.perf_counter() - start
    failed = [item.error for item in items if not item.ok]
    if failed or len(items) != len(rows):
        raise SystemExit(f"render_many: {len(failed)} of {len(rows)} rows failed: {failed[:1]}")
    last = Image.open(io.BytesIO(items[-1].result.data))
    if last.size != (1200, 630):
        raise SystemExit(f"render_many gave a {last.size} image")
    return elapsed


def command(rows: list[dict[str, str]]) -> float:
    cli = Path(sys.executable).parent / "templatekit"
    with tempfile.TemporaryDirectory(prefix="templatekit-batch-") as scratch:
        table = Path(scratch) / "rows.csv"
        with table.open("w", newline="", encoding="utf-8") as file:
            writer = csv.DictWriter(file, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        output = Path(scratch) / "out"
        start = time.perf_counter()
        finished = subprocess.run(
            [str(cli), "batch", str(TEMPLATE), "--csv", str(table), "-o", str(output)],
            capture_output=True,
            text=True,
            check=False,
        )
        elapsed = time.perf_counter() - start
        written = len(list(output.glob("*.png")))
        if finished.returncode or written != len(rows):
            problem = finished.stderr[-400:]
            raise SystemExit(f"templatekit batch: exit {finished.returncode}, {written} files: {problem}")
    return elapsed


def _floor(label: str, ratio: float, limit: float) -> dict[str, object]:
    return {"target": label, "ratio": round(ratio, 3), "limit": limit, "result": common.verdict(ratio >= limit)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1000, help="new rows per turn of each contender (default 1000)")
    parser.add_argument("--rounds", type=int, default=3, help="turns each contender takes (default 3)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also save the figures as JSON")
    args = parser.parse_args(argv)
    if args.rows < CORES:
        parser.error(f"--rows: at least one row per core ({CORES})")
    info = common.machine({"pillow": PIL.__version__})
    print("machine: " + ", ".join(f"{key} {value}" for key, value in info.items()))
    print(f"{args.rows} all-new social cards per turn, {args.rounds} turns each, {CORES} cores")
    template = tk.load_template(TEMPLATE)
    one_process(template, new_rows(5))  # fonts loaded, first renders done
    single_rows = max(50, args.rows // CORES)
    rates = {
        "one": Rate("one", "one process, render_image loop"),
        "one-files": Rate("one-files", "one process, files written"),
        "independent": Rate("independent", f"{CORES} independent processes (ceiling)"),
        "independent-files": Rate("independent-files", f"{CORES} independent processes, files written"),
        "render_many": Rate("render_many", f"render_many, its pool of {CORES}"),
        "batch": Rate("batch", f"templatekit batch, {CORES} workers"),
    }
    contenders = [
        ("one", single_rows, lambda rows: one_process(template, rows)),
        ("one-files", single_rows, lambda rows: one_process_writing(template, rows)),
        ("independent", args.rows, lambda rows: independent(template, rows)),
        ("independent-files", args.rows, lambda rows: independent_writing(template, rows)),
        ("render_many", args.rows, lambda rows: pool(template, rows)),
        ("batch", args.rows, command),
    ]
    for turn in range(args.rounds):
        for name, count, run in contenders:
            print(f"{rates[name].label} ({turn + 1}/{args.rounds}) ...", flush=True)
            rows = new_rows(count)
            rates[name].turns.append(count / run(rows))

    base = rates["one"]
    print(f"\n{'contender':<42} {'renders/s':>10} {'x one process':>14}")
    for rate in rates.values():
        print(f"{rate.label:<42} {rate.per_second:>10.1f} {rate.ratio(base):>13.2f}x")
    print("(medians over the rounds; the ratio is the median of each round's)")
    outcomes = []
    # the command writes files: it is held to processes that write theirs
    peers = {"render_many": ("one", "independent", ""), "batch": ("one-files", "independent-files", " writing files")}
    for name, (one, _, writing) in peers.items():
        ratio = rates[name].ratio(rates[one]) / CORES
        outcomes.append(_floor(f"{name} >= {TARGET} x {CORES} cores x one process{writing}", ratio, TARGET))
    for name, (_, ceiling, writing) in peers.items():
        ratio = rates[name].ratio(rates[ceiling])
        outcomes.append(_floor(f"{name} >= {CEILING_SHARE} x independent processes{writing}", ratio, CEILING_SHARE))
    common.print_targets(outcomes, 54)
    if args.json:
        payload = {
            "machine": info,
            "rows": args.rows,
            "rounds": args.rounds,
            "cores": CORES,
            "contenders": {
                name: {"label": r.label, "per_second_by_round": r.turns, "per_second": r.per_second}
                for name, r in rates.items()
            },
            "targets": outcomes,
        }
        common.save_json(args.json, payload)
        print(f"figures saved to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
