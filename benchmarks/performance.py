"""Every performance target in one run: the social card against Pillow, Satori and
Chromium (identical, new-title and all-new renders, PNG size, cold start), what layer
effects add to it, a bar chart against the card and Chart.js, the dashboard against the
card, the invoice PDF
against ReportLab and WeasyPrint, the promo video against MoviePy and the x264 floor,
batches on every core, the server against the library's pool, and memory over renders
where nothing repeats.

Each benchmark runs in a process of its own, one after another (so that none shares the
cores with another), and saves its figures as JSON; this script then prints every target
in one table, saves them together, and draws them as a chart with templatekit itself.

    python benchmarks/performance.py [--quick] [--only social_card,batch] [--out DIR] [--docs]

``--quick`` runs each with fewer renders (a minute or two in all, for a look; the
figures in the docs come from a full run, about twenty minutes on 2 cores).
The logs, JSON and chart go to ``--out`` (default benchmarks/out/performance); ``--docs``
also writes the table into docs/benchmarks.md (between its ``TARGETS`` marks) and the
chart to docs/images/benchmark-targets.png.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import common

import templatekit as tk

HERE = Path(__file__).resolve().parent
DOCS = HERE.parent / "docs" / "benchmarks.md"
DOCS_CHART = HERE.parent / "docs" / "images" / "benchmark-targets.png"
#: The part of docs/benchmarks.md that ``--docs`` writes: the run's line and its table.
DOCS_PART = re.compile(
    r"(<!-- TARGETS: written by benchmarks/performance.py --docs -->\n).*?(<!-- TARGETS: end -->)", re.S
)
#: The load generator of the server's benchmark: wrk where it is installed (a few percent
#: of a core; the Python client takes a tenth of the cores the server renders on).
CLIENT = ["--client", "wrk"] if shutil.which("wrk") else []
#: (name, what it measures, full-run arguments, quick-run arguments)
SUITE: list[tuple[str, str, list[str], list[str]]] = [
    ("social_card", "social card, 1200x630 PNG", [], ["--iterations", "12", "--rounds", "2"]),
    ("effects", "social card with effects", [], ["--iterations", "12", "--rounds", "2"]),
    ("invoice_pdf", "invoice, vector PDF", [], ["--iterations", "8", "--rounds", "2"]),
    (
        "video_promo",
        "promo video, 5 s 720p MP4",
        [],
        ["--iterations", "2", "--moviepy-iterations", "2", "--rounds", "1"],
    ),
    (
        "charts",
        "bar chart, 600x400 PNG",
        [],
        ["--iterations", "12", "--rounds", "2", "--skip", "plotly", "--skip", "matplotlib"],
    ),
    ("dashboard", "dashboard, 1600x900 PNG", [], ["--iterations", "8"]),
    ("batch", "batches on every core", [], ["--rows", "300", "--rounds", "2"]),
    ("http_server", "server over HTTP", CLIENT, ["--seconds", "4", "--concurrency", "4,8", "--rounds", "1", *CLIENT]),
    ("memory", "memory, nothing repeats", [], ["--cards", "1000", "--dashboards", "200"]),
]
LABEL_WIDTH = 62


def run(name: str, arguments: list[str], out: Path) -> None:
    """Run one benchmark, its output to ``out/name.log`` and its figures to ``out/name.json``
    (none when it fails)."""
    figures = out / f"{name}.json"
    figures.unlink(missing_ok=True)
    command = [sys.executable, str(HERE / f"{name}.py"), *arguments, "--json", str(figures)]
    started = time.perf_counter()
    with (out / f"{name}.log").open("w", encoding="utf-8") as log:
        finished = subprocess.run(command, cwd=HERE, stdout=log, stderr=subprocess.STDOUT, check=False)
    seconds = time.perf_counter() - started
    if finished.returncode or not figures.exists():
        figures.unlink(missing_ok=True)
        print(f"  failed after {seconds:.0f} s (exit {finished.returncode}): see {out / f'{name}.log'}")
    else:
        print(f"  {seconds:.0f} s")


def at_least(target: dict[str, Any]) -> bool:
    """Whether a target is a floor (throughput) rather than a ceiling (time, size)."""
    return ">=" in target["target"]


def share_of_limit(target: dict[str, Any]) -> float | None:
    """How much of its limit a target uses: 1 is the limit, below 1 is met."""
    ratio, limit = target["ratio"], target["limit"]
    if ratio is None or not ratio or not limit:
        return None
    return float(limit / ratio if at_least(target) else ratio / limit)


def print_summary(found: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    print(f"\n{'target':<{LABEL_WIDTH}} {'measured':>9} {'limit':>7}  result")
    for name, description, _, _ in SUITE:
        if name not in found:
            continue
        print(f"-- {description}")
        for target in found[name].get("targets", []):
            ratio = "-" if target["ratio"] is None else f"{target['ratio']:.3f}x"
            sign = ">=" if at_least(target) else "<="
            print(f"{target['target']:<{LABEL_WIDTH}} {ratio:>9} {sign}{target['limit']:>5}  {target['result']}")
            rows.append({"benchmark": name, **target})
    missed = [row for row in rows if row["result"] == "MISS"]
    print(f"\n{len(rows) - len(missed)} of {len(rows)} targets met" + (f"; missed: {len(missed)}" if missed else ""))
    return rows


def chart(rows: list[dict[str, Any]], path: Path) -> None:
    """The targets as bars of the share of their limit each uses, drawn by templatekit."""
    points = []
    for row in rows:
        share = share_of_limit(row)
        if share is None:
            continue
        label = row["target"].replace("templatekit ", "").replace("<= ", "≤ ").replace(">= ", "≥ ")
        points.append({"label": label, "value": round(share, 3), "color": "#10b981" if share <= 1 else "#f43f5e"})
    height = 120 + 34 * len(points)
    template = {
        "name": "benchmark targets",
        "width": 1400,
        "height": height,
        "background": "#ffffff",
        "layers": [
            {
                "type": "chart",
                "name": "targets",
                "x": 24,
                "y": 16,
                "width": 1352,
                "height": height - 32,
                "chartType": "horizontalBar",
                "title": "Share of each target's limit used (below 1 is met; green met, red missed)",
                "legend": False,
                "valueLabels": True,
                "valueFormat": ".2f",
                "rows": points,
            }
        ],
    }
    tk.render_image(template, {}).save(path)


def docs_table(rows: list[dict[str, Any]], machine: dict[str, str], quick: bool) -> str:
    """The targets as the Markdown table of docs/benchmarks.md, after a line saying when,
    where and at which commit they were measured."""
    descriptions = {name: description for name, description, _, _ in SUITE}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    when = datetime.date.today().isoformat()
    lines = [
        f"Run on {when}{' (--quick)' if quick else ''} on {machine['nproc']} cores ({machine['cpu']}), Python "
        f"{machine['python']}, templatekit at commit `{commit.stdout.strip() or 'unknown'}`:",
        "",
        "| benchmark | target | measured | result |",
        "|---|---|---|---|",
    ]
    for row in rows:
        ratio = "-" if row["ratio"] is None else f"{row['ratio']:.3f}×"
        target = row["target"].replace("<=", "≤").replace(">=", "≥")
        lines.append(f"| {descriptions[row['benchmark']]} | {target} | {ratio} | {row['result']} |")
    return "\n".join(lines) + "\n"


def write_docs(table: str, chart_png: Path) -> None:
    text = DOCS.read_text(encoding="utf-8")
    if not DOCS_PART.search(text):
        raise SystemExit(f"{DOCS} has no TARGETS marks to write between")
    DOCS.write_text(DOCS_PART.sub(lambda found: found.group(1) + table + found.group(2), text), encoding="utf-8")
    shutil.copyfile(chart_png, DOCS_CHART)
    print(f"table written into {DOCS}, chart into {DOCS_CHART}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer renders per benchmark")
    parser.add_argument("--only", type=lambda text: text.split(","), help="comma-separated benchmark names")
    parser.add_argument("--out", type=Path, default=HERE / "out" / "performance", help="folder for logs, JSON, chart")
    parser.add_argument("--docs", action="store_true", help="write the table and chart into docs/benchmarks.md")
    args = parser.parse_args(argv)
    names = [name for name, *_ in SUITE]
    unknown = set(args.only or ()) - set(names)
    if unknown:
        parser.error(f"--only: no benchmark {', '.join(sorted(unknown))} (there are {', '.join(names)})")
    args.out.mkdir(parents=True, exist_ok=True)
    for name, description, full, quick in SUITE:
        if args.only and name not in args.only:
            continue
        print(f"{description} ({name}.py) ...", flush=True)
        run(name, quick if args.quick else full, args.out)
    # with --only, the others' figures are those of their last run into the same folder
    found = {
        name: json.loads(path.read_text(encoding="utf-8"))
        for name in names
        if (path := args.out / f"{name}.json").exists()
    }
    rows = print_summary(found)
    machine = common.machine({})
    common.save_json(args.out / "summary.json", {"machine": machine, "quick": args.quick, "targets": rows})
    chart(rows, args.out / "targets.png")
    if args.docs:
        write_docs(docs_table(rows, machine, args.quick), args.out / "targets.png")
    print(f"figures in {args.out}/ (summary.json, targets.png, and each benchmark's log and JSON)")
    return 0 if all(row["result"] != "MISS" for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
