"""Memory over many renders where nothing repeats: the resident memory of one process
after each step of all-new renders of the social card (title, subtitle and QR code new
each time) and of the dashboard (its chart and table data new each time).

A cache that keeps entries which can never be used again shows here as memory that
keeps growing; the target is that after 10,000 all-new cards the process holds at most
1.5× what it held after 100, and that the dashboard stays under 200 MB.

    python benchmarks/memory.py [--cards 10000] [--dashboards 1000] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import string
import subprocess
import sys
import time
from pathlib import Path

import common

import templatekit as tk
from templatekit.cache import cache_limit

CARD = common.ROOT / "examples" / "templates" / "social-card.json"
DASHBOARD = common.ROOT / "examples" / "templates" / "dashboard.json"
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep")


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def card_changes(number: int) -> dict[str, str]:
    rng = random.Random(number)
    word = lambda: "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 9)))  # noqa: E731
    return {
        "title": " ".join(word().capitalize() for _ in range(6)),
        "subtitle": " ".join(word() for _ in range(10)),
        "qr": f"https://example.com/{word()}/{number}",
    }


def dashboard_changes(number: int) -> list[dict[str, object]]:
    rng = random.Random(number)
    series = [
        {"name": year, "data": [{"label": m, "value": rng.randint(200, 600)} for m in MONTHS]}
        for year in ("2025", "2026")
    ]
    channels = [{"label": name, "value": rng.randint(5, 60)} for name in ("Online", "Retail", "Partners", "Other")]
    regions = [
        {"region": name, "revenue": f"${rng.uniform(0.2, 2):.2f}M", "growth": f"+{rng.randint(1, 30)}%"}
        for name in ("North America", "Europe", "Asia Pacific", "Latin America")
    ]
    return [
        {"name": "revenue", "rows": series},
        {"name": "channels", "rows": channels},
        {"name": "regions", "rows": regions},
        {"name": "subtitle", "text": f"All regions · run {number}"},
    ]


def run(name: str, template: tk.Template, changes: object, count: int, marks: list[int]) -> dict[str, float]:
    seen: dict[str, float] = {}
    started = time.perf_counter()
    for number in range(1, count + 1):
        tk.render_image(template, changes(number))  # type: ignore[operator]
        if number in marks:
            seen[str(number)] = round(rss_mb(), 1)
            print(f"{name}: {number:>6} renders  RSS {seen[str(number)]:7.1f} MB", flush=True)
    seen["ms_per_render"] = round((time.perf_counter() - started) / count * 1000, 1)
    return seen


WORKLOADS = {"card": (CARD, card_changes), "dashboard": (DASHBOARD, dashboard_changes)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--dashboards", type=int, default=1_000)
    parser.add_argument("--workload", choices=WORKLOADS, help="run one workload in this process (internal)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also save the figures as JSON")
    args = parser.parse_args(argv)
    counts = {"card": args.cards, "dashboard": args.dashboards}
    if args.workload:
        path, changes = WORKLOADS[args.workload]
        count = counts[args.workload]
        marks = sorted({m for m in (1, 10, 100, 1000, 2000, 5000, 10_000, 20_000) if m < count} | {count})
        print(f"{args.workload}: start RSS {rss_mb():.1f} MB", flush=True)
        print(json.dumps(run(args.workload, tk.load_template(path), changes, count, marks)))
        return
    found = {}
    for name in WORKLOADS:  # each in a process of its own, so that neither holds the other's memory
        command = [sys.executable, __file__, "--workload", name, "--cards", str(args.cards)]
        command += ["--dashboards", str(args.dashboards)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        print(done.stdout.rsplit("\n", 2)[0], flush=True)
        found[name] = json.loads(done.stdout.strip().splitlines()[-1])
    card, dashboard = found["card"], found["dashboard"]
    growth = card[str(args.cards)] / card["100"] if "100" in card else None
    last_dashboard = dashboard[str(args.dashboards)]
    targets = [
        common.outcome(f"card RSS after {args.cards:,} all-new <= 1.5x after 100", growth, 1.5),
        common.outcome(f"dashboard RSS after {args.dashboards:,} with new data <= 200 MB", last_dashboard / 200, 1.0),
    ]
    print()
    common.print_targets(targets, 58)
    print(f"(the dashboard's row is its RSS over 200 MB: {last_dashboard:.0f} MB)")
    if args.json:
        common.save_json(args.json, {"rss_mb": found, "cache_limit_mb": cache_limit() / 1e6, "targets": targets})
        print(f"figures saved to {args.json}")


if __name__ == "__main__":
    main()
