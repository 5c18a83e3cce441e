"""Soak: the server under sustained load loses nothing, bills each render once, and keeps
its memory flat.

Two load phases at the concurrency where throughput peaks (4 on 2 cores, see
benchmarks/http_server.py), each ``--seconds`` long, against ``templatekit serve`` started
as users start it:

- createImage of the social card, a new title per request;
- signed URLs of the social card: each client task asks for its own URLs, every other one
  a URL it asked for before (a cache hit), the rest new (a render).

During the createImage phase a hostile mix runs beside the load (``hostile.py``: a
template over the memory budget, an oversized image inside an SVG, SVG and JSON nested
thousands deep, huge numbers): every hostile request must be refused with a 4xx, and
the peak resident memory of every render worker (its VmHWM, sampled all along) must
stay under 1.5 GiB.

Every load answer must be 200 and a PNG. Afterwards the workspace's usage must equal the
renders that were answered: createImage answers plus distinct signed URLs (cache hits
and nothing else are free). Then the leak run: ``--renders`` createImage renders (10,000),
the resident memory of the server and its workers sampled every 500; memory is flat when
the last sample is within 10 % of the one taken after the first minute.

Last, two workspaces (``tenants.py``): a quiet one keeping 2 requests in flight, alone
and then beside a hostile one that keeps 8 heavy previews and 40 renders announced to a
webhook that never answers in flight; the quiet workspace's p99 beside it must be at
most 3x its p99 alone.

    python benchmarks/soak.py [--seconds 60] [--renders 10000] [--concurrency 4] [--json out.json]
    python benchmarks/soak.py --only tenants [--seconds 60]

Also ``nox -s soak``. Figures go to docs/reliability.md.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import hmac
import json
import os
import re
import sqlite3
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

import httpx
import tenants
from hostile import hostile_mix
from http_server import PNG_SIGNATURE, Server, admin, descendants, memory_mib, resident_mib, running_server

SAMPLE_EVERY = 500
FLAT = 1.10  # the last memory sample may be at most 10 % above the one after the first minute
WORKER_PEAK_MIB = 1536.0  # no process of the server may ever hold more (the budget is 1 GiB a render)


@dataclass
class Phase:
    name: str
    answers: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    renders: int = 0  # answers that were billable renders

    @property
    def total(self) -> int:
        return sum(self.answers.values())


def outcome(response: httpx.Response) -> str:
    if response.status_code != 200:
        return f"HTTP {response.status_code} {response.text[:80]}"
    if not response.content.startswith(PNG_SIGNATURE):
        return "not a PNG"
    return "ok"


def signed(key: str, params: dict[str, str]) -> str:
    """The query of a signed URL (the interface's rule: sorted, URLSearchParams encoding)."""
    params = {"apiKeyHashed": hashlib.sha256(key.encode()).hexdigest(), **params}

    def encode(text: str) -> str:
        return quote_plus(text, safe="*").replace("~", "%7E")

    text = "&".join(f"{encode(name)}={encode(value)}" for name, value in sorted(params.items()))
    sign = hmac.new(key.encode(), text.encode(), hashlib.sha256).hexdigest()
    return f"{text}&sign={sign}"


async def load(server: Server, phase: Phase, concurrency: int, seconds: float, signed_urls: bool) -> None:
    """``concurrency`` tasks in a closed loop for ``seconds``."""
    end = time.monotonic() + seconds
    started = time.monotonic()
    headers = {"Authorization": f"Bearer {server.key}"}

    async def task(number: int, client: httpx.AsyncClient) -> None:
        n = 0
        while time.monotonic() < end:
            if signed_urls:
                fresh = n % 2 == 0
                mods = json.dumps({"title": f"Signed {number}-{n // 2 if fresh else max(0, n // 2 - 1)}"})
                query = signed(server.key, {"templateId": "tpl_social_card", "modifications": mods})
                response = await client.get(f"/v1/templates/signedurl?{query}")
                phase.renders += fresh and response.status_code == 200
            else:
                body = {"templateId": "tpl_social_card", "modifications": {"title": f"Soak {number}-{n}"}}
                response = await client.post("/v1/templates/createImage", json=body, headers=headers)
                phase.renders += response.status_code == 200
            phase.answers[outcome(response)] += 1
            n += 1

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=server.base_url, limits=limits, timeout=120, trust_env=False) as client:
        await asyncio.gather(*(task(number, client) for number in range(concurrency)))
    phase.seconds = time.monotonic() - started


async def under_hostile_mix(server: Server, work: Any) -> tuple[Counter[str], dict[int, float]]:
    """Runs ``work`` (a coroutine) beside the hostile mix; the hostile answers, and the
    peak resident memory of every process of the server seen meanwhile (MiB by pid)."""
    stop = asyncio.Event()
    peaks: dict[int, float] = {}

    async def sample() -> None:
        while not stop.is_set():
            for pid in (server.pid, *descendants(server.pid)):
                peaks[pid] = max(peaks.get(pid, 0.0), memory_mib(pid, "VmHWM"))
            await asyncio.sleep(0.25)

    headers = {"Authorization": f"Bearer {server.key}"}
    async with httpx.AsyncClient(base_url=server.base_url, timeout=120, trust_env=False) as client:
        sampler = asyncio.create_task(sample())
        mix = asyncio.create_task(hostile_mix(client, headers, stop))
        try:
            await work
        finally:
            stop.set()
        tally = await mix
        await sampler
    return tally, peaks


async def leak_run(server: Server, renders: int, concurrency: int) -> tuple[Phase, list[tuple[int, float, float]]]:
    """``renders`` createImage renders; (renders done, seconds, MiB) every SAMPLE_EVERY."""
    phase = Phase("leak run: createImage")
    samples: list[tuple[int, float, float]] = []
    started = time.monotonic()
    headers = {"Authorization": f"Bearer {server.key}"}
    counter = iter(range(renders))

    async def task(client: httpx.AsyncClient) -> None:
        for n in counter:
            body = {"templateId": "tpl_social_card", "modifications": {"title": f"Leak {n}"}}
            response = await client.post("/v1/templates/createImage", json=body, headers=headers)
            phase.answers[outcome(response)] += 1
            phase.renders += response.status_code == 200
            if phase.total % SAMPLE_EVERY == 0:
                samples.append((phase.total, time.monotonic() - started, resident_mib(server.pid)))

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=server.base_url, limits=limits, timeout=120, trust_env=False) as client:
        await asyncio.gather(*(task(client) for _ in range(concurrency)))
    phase.seconds = time.monotonic() - started
    return phase, samples


def refused(answer: str) -> bool:
    """Whether a hostile answer ('<label>: <status> <code>') was a 4xx."""
    return re.search(r": 4\d\d\b", answer) is not None


def workspace_of(server: Server) -> tuple[Path, str]:
    """The server's data dir and the one workspace running_server() made in it."""
    data_dir = server.log.parent / "data"
    with sqlite3.connect(data_dir / "templatekit.db") as connection:
        return data_dir, str(connection.execute("SELECT id FROM workspaces").fetchone()[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="length of each load phase (default 60)")
    parser.add_argument("--renders", type=int, default=10_000, help="renders of the leak run (default 10,000)")
    parser.add_argument("--concurrency", type=int, default=4, help="requests in flight (default 4)")
    parser.add_argument("--json", type=Path, default=None, help="save the figures here")
    parser.add_argument("--only", choices=("tenants",), default=None, help="run this part alone")
    args = parser.parse_args(argv)

    if args.only == "tenants":
        return only_tenants(args.seconds, args.json)
    os.environ.setdefault("TEMPLATEKIT_FETCH_ALLOW", "127.0.0.1")  # the tenants' silent webhook target
    with running_server() as server:
        data_dir, workspace = workspace_of(server)
        phases = [Phase("createImage, beside the hostile mix"), Phase("signed URLs (half cache hits)")]
        print(f"{phases[0].name}: {args.seconds:g} s at concurrency {args.concurrency} ...", flush=True)
        hostile, peaks = asyncio.run(
            under_hostile_mix(server, load(server, phases[0], args.concurrency, args.seconds, False))
        )
        print(f"{phases[1].name}: {args.seconds:g} s at concurrency {args.concurrency} ...", flush=True)
        asyncio.run(load(server, phases[1], args.concurrency, args.seconds, True))
        billed_after_load = admin(data_dir, "usage", "--workspace", workspace)["day"]
        print(f"leak run: {args.renders:,} renders ...", flush=True)
        leak, samples = asyncio.run(leak_run(server, args.renders, args.concurrency))
        billed_after_leak = admin(data_dir, "usage", "--workspace", workspace)["day"]
        shared = tenants.run(server, data_dir, args.seconds)
        traces = server.log.read_text(errors="replace").count("Traceback")

    rows = [*phases, leak]
    print(f"\n{'phase':36} {'answers':>8} {'req/s':>7} {'errors':>7} {'renders':>8}")
    for phase in rows:
        errors = phase.total - phase.answers["ok"]
        print(f"{phase.name:36} {phase.total:>8,} {phase.total / phase.seconds:>7.1f} {errors:>7} {phase.renders:>8,}")
    for phase in rows:
        for what, count in phase.answers.items():
            if what != "ok":
                print(f"  {phase.name}: {count} x {what}")
    expected_load = sum(phase.renders for phase in phases)
    expected_all = expected_load + leak.renders
    print(f"\nbilled after the load phases: {billed_after_load:,} (renders answered: {expected_load:,})")
    print(f"billed after the leak run:    {billed_after_leak:,} (renders answered: {expected_all:,})")
    print("\nhostile requests (label: status code):")
    for label, count in sorted(hostile.items()):
        print(f"  {count:>5} x {label}")
    print("peak resident memory of each process of the server during the hostile mix (MiB):")
    for pid, mib in sorted(peaks.items()):
        print(f"  pid {pid:>7}  {mib:7.1f} MiB")
    print("\nmemory of the server and its workers (MiB):")
    for done, seconds, mib in samples:
        print(f"  {done:>6,} renders  {seconds:7.1f} s  {mib:7.1f} MiB")
    after_minute = next((mib for _, seconds, mib in samples if seconds >= 60), samples[0][2] if samples else 0.0)
    last = samples[-1][2] if samples else 0.0
    checks = {
        "no errors": all(phase.total == phase.answers["ok"] for phase in rows),
        "every render billed once": billed_after_load == expected_load and billed_after_leak == expected_all,
        f"memory flat after the first minute (last <= {FLAT:.2f}x)": bool(samples) and last <= after_minute * FLAT,
        "no stack trace in the server log": traces == 0,
        "every hostile request refused with a 4xx": bool(hostile) and all(refused(label) for label in hostile),
        f"every process's peak memory under {WORKER_PEAK_MIB:.0f} MiB": bool(peaks)
        and max(peaks.values()) < WORKER_PEAK_MIB,
        f"quiet workspace's p99 beside a hostile one <= {tenants.TARGET:g}x alone": shared["check"],
    }
    print()
    for label, passed in checks.items():
        print(f"{label:60} {'PASS' if passed else 'FAIL'}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        figures: dict[str, Any] = {
            "phases": [
                {"name": p.name, "answers": dict(p.answers), "seconds": p.seconds, "renders": p.renders} for p in rows
            ],
            "billed": {"after_load": billed_after_load, "after_leak": billed_after_leak},
            "memory_samples": samples,
            "hostile": dict(hostile),
            "peak_mib": peaks,
            "tenants": {**shared, "check": bool(shared["check"])},
            "checks": checks,
        }
        args.json.write_text(json.dumps(figures, indent=2))
    return 0 if all(checks.values()) else 1


def only_tenants(seconds: float, json_path: Path | None) -> int:
    """The two workspaces' part alone, on a server of its own."""
    os.environ.setdefault("TEMPLATEKIT_FETCH_ALLOW", "127.0.0.1")  # the silent webhook target
    with running_server() as server:
        data_dir, _ = workspace_of(server)
        figures = tenants.run(server, data_dir, seconds)
        log = server.log.read_text(errors="replace")
        traces = log.count("Traceback")
        if traces:
            start = log.index("Traceback")
            end = log.find("\n20", start)
            print(log[start : end if end > 0 else None][-2500:])
    print(f"\nno stack trace in the server log: {'PASS' if traces == 0 else 'FAIL'}")
    verdict = "PASS" if figures["check"] else "FAIL"
    print(f"quiet p99 beside a hostile workspace <= {tenants.TARGET:g}x alone: {verdict}")
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(figures, indent=2, default=lambda value: value.summary()))
    return 0 if figures["check"] and traces == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
