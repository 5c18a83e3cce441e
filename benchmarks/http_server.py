"""Throughput of the server's createImage over real HTTP, next to the library's own on the same cores.

The server is started as users start it (``templatekit serve`` in a fresh data dir, a
workspace on the "scale" plan so that quotas never answer instead of a render), and a
closed-loop client keeps N requests in flight: each of N tasks sends its next
``POST /v1/templates/createImage`` when the previous answer arrives, over N keep-alive
HTTP/1.1 connections. The title changes on every request, so no render can be one made
before. Every answer must be 200 image/png; a sample is decoded to check it is 1200x630.

The baseline is measured in the same run: ``templatekit.render_many``, the library's
batch path, on its own pool of one worker per core; and one process's warm render
time. The pool and each concurrency take turns (``--rounds``), each turn after
``--warmup`` untimed seconds, so that a slow spell of a shared machine falls on all of
them; each gets ``--seconds`` timed in all. The client shares the cores with the server,
so its CPU share is printed too; ``--client wrk`` uses Debian's wrk, which costs less.

    python benchmarks/http_server.py [--seconds 10] [--concurrency 1,4,16] [--client httpx|wrk] [--json out.json]

Targets: the server's requests/s at its best concurrency >= 0.9x the library's renders/s
in the pool; p99 < 3x p50 at concurrency 4; p99 in the first 10 s after start (c=4, from the
moment it answers /v1/liveness) <= 2x the warm p99.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import itertools
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import common
import httpx
import PIL
from common import ROOT, Column, Timings
from PIL import Image

import templatekit as tk
from templatekit_server import catalog

TEMPLATE = ROOT / "examples" / "templates" / "social-card.json"
TEMPLATE_ID = "tpl_social_card"
SIZE = (1200, 630)
ENDPOINT = "/v1/templates/createImage"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Realistic length (two or three lines at 64 px, no shrink-to-fit), never twice the same, and
# as long for every contender: a render's time follows its text, and a title with four more
# digits took 1.6 ms (8%) more, so every number is written with nine digits.
TITLE = "Card {n:09d}: ship social cards for every post without a headless browser"
LEVELS = (1, 4, 16)
DECODE_EVERY = 100  # decode one answer in this many (and the first of each turn), after the turn
SINGLE_RENDERS = 30
FIRST_SECONDS = 10.0  # timed from the moment a new server answers /v1/liveness
SERVER_WARMUP = 3.0  # the render pool starts on the first request: warm it before any turn
KEY_RATE_LIMIT = 1_000_000  # requests a minute
START_TIMEOUT = 60.0
STOP_TIMEOUT = 20.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
CORES = len(os.sched_getaffinity(0))
NUMBERS = itertools.count(1)  # the title of every request and render of the run differs
WRK_TURNS = itertools.count(1)  # wrk numbers turn n's requests from 100,000,000 + n x 1,000,000


def title(n: int) -> str:
    return TITLE.format(n=n)


def request_body(n: int) -> dict[str, Any]:
    return {"templateId": TEMPLATE_ID, "modifications": {"title": title(n)}}


@dataclass
class Figures(Timings):
    """One row: latencies in ms (``times_ms``) of what completed in the timed windows, and
    the CPU seconds spent meanwhile, so that server overhead can be told from render work."""

    concurrency: int | None = None
    completed: int = 0
    seconds: float = 0.0
    errors: dict[str, int] = field(default_factory=dict)
    client_cpu_s: float | None = None  # the load generator (or the pool's parent)
    main_cpu_s: float | None = None  # the server's main process
    workers_cpu_s: float | None = None  # everything below it: the render workers (or the pool's)
    decoded: int = 0

    def merge(self, turn: Figures) -> None:
        """Add a later turn of the same contender."""
        self.times_ms += turn.times_ms
        self.completed += turn.completed
        self.seconds += turn.seconds
        self.errors = dict(Counter(self.errors) + Counter(turn.errors))
        self.client_cpu_s = _plus(self.client_cpu_s, turn.client_cpu_s)
        self.main_cpu_s = _plus(self.main_cpu_s, turn.main_cpu_s)
        self.workers_cpu_s = _plus(self.workers_cpu_s, turn.workers_cpu_s)
        self.decoded += turn.decoded

    @property
    def rate(self) -> float | None:
        return self.completed / self.seconds if self.seconds else None

    @property
    def p99(self) -> float:
        return statistics.quantiles(self.times_ms, n=100, method="inclusive")[-1]

    @property
    def client_share(self) -> float | None:
        """The client's CPU as a share of one core."""
        return None if self.client_cpu_s is None or not self.seconds else self.client_cpu_s / self.seconds

    def per_request_ms(self, cpu_s: float | None) -> float | None:
        return None if cpu_s is None or not self.completed else cpu_s * 1000 / self.completed


def _plus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


# ------------------------------------------------------------------ CPU time from /proc


def cpu_seconds(pid: int, *, reaped: bool = False) -> float:
    """User + system CPU time of one process (0 when it is gone), read from /proc so that
    the server's processes can be measured from outside while they run; with ``reaped``,
    also that of its children that have ended and been waited for (render workers the
    pool replaced, whose time the fork server that forked them holds)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    ticks = int(fields[11]) + int(fields[12])  # utime, stime
    if reaped:
        ticks += int(fields[13]) + int(fields[14])  # cutime, cstime
    return ticks / CLOCK_TICKS


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (for the server: the forkserver and the render workers)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                parent = int(stat.read().rpartition(")")[2].split()[1])
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry))
    found: list[int] = []
    stack = [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def memory_mib(pid: int, field: str = "VmRSS") -> float:
    """A process's resident memory (``VmRSS``) or its peak so far (``VmHWM``), in MiB."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    for line in status.splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def resident_mib(pid: int) -> float:
    """Resident memory of the server and every process below it, in MiB."""
    return sum(memory_mib(process) for process in (pid, *descendants(pid)))


@dataclass
class CpuSample:
    """CPU seconds at one moment: this process, a main process, and everything below that."""

    wall: float
    client: float
    main: float
    below: float

    @classmethod
    def take(cls, pid: int) -> CpuSample:
        below = sum(cpu_seconds(child, reaped=True) for child in descendants(pid))
        return cls(time.perf_counter(), time.process_time(), cpu_seconds(pid), below)


class Window:
    """The timed part of a turn, ``warmup`` seconds from now for ``seconds``; a thread takes
    CPU samples of ``pid`` (and below) at both ends, whatever the loop is busy with then."""

    def __init__(self, warmup: float, seconds: float, pid: int) -> None:
        self.start = time.perf_counter() + warmup
        self.end = self.start + seconds
        self.samples: list[CpuSample] = []
        self._thread = threading.Thread(target=self._sample, args=(pid,), daemon=True)
        self._thread.start()

    def _sample(self, pid: int) -> None:
        for moment in (self.start, self.end):
            time.sleep(max(0.0, moment - time.perf_counter()))
            self.samples.append(CpuSample.take(pid))

    def __contains__(self, moment: float) -> bool:
        return self.start <= moment <= self.end

    def cpu(self, figures: Figures, *, main: bool = True) -> None:
        """Fill the CPU seconds of ``figures`` from the samples (waits for the second)."""
        self._thread.join()
        before, after = self.samples
        figures.client_cpu_s = after.client - before.client
        figures.main_cpu_s = after.main - before.main if main else None
        figures.workers_cpu_s = after.below - before.below


# ------------------------------------------------------------------ the server


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def templatekit_command() -> list[str]:
    """The ``templatekit`` console script of this environment, as a user runs it."""
    script = Path(sys.executable).parent / "templatekit"
    return [str(script)] if script.exists() else [sys.executable, "-m", "templatekit.cli"]


def admin(data_dir: Path, *arguments: str) -> dict[str, Any]:
    """One ``templatekit admin`` command; its JSON answer."""
    command = [*templatekit_command(), "admin", "--data-dir", str(data_dir), *arguments]
    finished = subprocess.run(command, capture_output=True, text=True, check=False)
    if finished.returncode:
        raise RuntimeError(f"admin {' '.join(arguments)} failed: {finished.stderr.strip()}")
    return dict(json.loads(finished.stdout))


def key_options() -> list[str]:
    """Where keys have rate limits of their own (``key create --rate-limit``), one far above what
    this machine can serve: the plan's (3000 a minute on "scale") is reached within a minute of
    load, and a limiter's answer is not a render. Where keys have scopes, the key may also
    store templates (the soak uploads one)."""
    command = [*templatekit_command(), "admin", "key", "create", "--help"]
    usage = subprocess.run(command, capture_output=True, text=True, check=False).stdout
    options = ["--rate-limit", str(KEY_RATE_LIMIT)] if "--rate-limit" in usage else []
    return options + (["--scope", "render", "--scope", "templates:write"] if "--scope" in usage else [])


@dataclass
class Server:
    """A running ``templatekit serve``: where to reach it and the key to use."""

    process: subprocess.Popen[bytes]
    base_url: str
    key: str
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def log_tail(self, lines: int = 20) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
        return ""


def wait_until_live(server: Server) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    with httpx.Client(base_url=server.base_url, trust_env=False, timeout=2) as client:
        while time.monotonic() < deadline:
            if server.process.poll() is not None:
                raise RuntimeError(f"the server exited with {server.process.returncode}:\n{server.log_tail()}")
            with contextlib.suppress(httpx.TransportError):
                if client.get("/v1/liveness").status_code == 200:
                    return
            time.sleep(0.1)
    raise RuntimeError(f"the server did not answer /v1/liveness within {START_TIMEOUT:g} s:\n{server.log_tail()}")


def stop(process: subprocess.Popen[bytes]) -> None:
    """Ctrl-C as a user would (uvicorn shuts the render pools down); then, since the server
    runs in a process group of its own, kill whatever of that group is left."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            print(f"the server did not stop within {STOP_TIMEOUT:g} s; killing it", flush=True)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)


@contextlib.contextmanager
def running_server() -> Iterator[Server]:
    """A server on a free port in a temporary data dir, with a workspace, project, key and the
    social card; stopped on the way out, errors included."""
    with tempfile.TemporaryDirectory(prefix="templatekit-bench-") as scratch:
        data_dir = Path(scratch) / "data"
        workspace = admin(data_dir, "workspace", "create", "--name", "bench", "--plan", "scale")["id"]
        project = admin(data_dir, "project", "create", "--workspace", workspace, "--name", "bench")["id"]
        key = admin(data_dir, "key", "create", "--project", project, *key_options())["key"]
        admin(data_dir, "template", "add", "--workspace", workspace, str(TEMPLATE))
        port = free_port()
        log = Path(scratch) / "server.log"
        command = [*templatekit_command(), "serve", "--data-dir", str(data_dir), "--port", str(port)]
        with open(log, "wb") as output:
            process = subprocess.Popen(
                command, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
            )
        server = Server(process, f"http://127.0.0.1:{port}", key, log)
        try:
            wait_until_live(server)
            print(f"server: pid {server.pid}, {server.base_url}, data dir {data_dir}", flush=True)
            yield server
        finally:
            stop(process)


def problem(response: httpx.Response) -> str | None:
    """None for a good answer (200, image/png, a PNG); else what is wrong, short enough to count."""
    if response.status_code != 200:
        return f"HTTP {response.status_code}: {response.text[:120]}"
    media_type = response.headers.get("content-type", "")
    if media_type != "image/png":
        return f"content-type {media_type!r}"
    if not response.content.startswith(PNG_SIGNATURE):
        return "not a PNG"
    return None


def decoded(samples: list[bytes]) -> int:
    """Decode every sampled PNG in full (after the turn, so that it costs the client nothing then)."""
    for data in samples:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            if image.size != SIZE:
                raise RuntimeError(f"an answer is {image.size[0]}x{image.size[1]}, not {SIZE[0]}x{SIZE[1]}")
    return len(samples)


# ------------------------------------------------------------------ the httpx client


async def closed_loop(server: Server, concurrency: int, warmup: float, seconds: float) -> Figures:
    """``concurrency`` tasks, each sending its next request when its answer arrives, over as many
    keep-alive connections; answers that arrive within the window after ``warmup`` are timed."""
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    headers = {"Authorization": f"Bearer {server.key}"}
    window = Window(warmup, seconds, server.pid)
    times_ms: list[float] = []
    errors: Counter[str] = Counter()
    samples: list[bytes] = []
    answers = itertools.count()

    async def user(client: httpx.AsyncClient) -> None:
        while time.perf_counter() < window.end:
            began = time.perf_counter()
            try:
                response = await client.post(ENDPOINT, json=request_body(next(NUMBERS)))
                error, body = problem(response), response.content
            except httpx.HTTPError as exc:
                error, body = f"{type(exc).__name__}: {exc}"[:120], b""
            finished = time.perf_counter()
            if error is not None:
                errors[error] += 1
            elif next(answers) % DECODE_EVERY == 0:
                samples.append(body)
            if finished in window:
                times_ms.append((finished - began) * 1000)

    async with httpx.AsyncClient(
        base_url=server.base_url, headers=headers, limits=limits, timeout=120, trust_env=False
    ) as client:
        await asyncio.gather(*(user(client) for _ in range(concurrency)))
    figures = Figures(
        f"server-c{concurrency}",
        f"server createImage, c={concurrency}",
        times_ms,
        concurrency=concurrency,
        completed=len(times_ms),
        seconds=seconds,
        errors=dict(errors),
    )
    window.cpu(figures)
    figures.decoded = decoded(samples)
    return figures


def first_seconds(server: Server) -> Figures:
    """Load from the moment the server answers /v1/liveness, as a restarted server behind
    a load balancer gets it: c=4 for FIRST_SECONDS, all timed."""
    figures = asyncio.run(closed_loop(server, 4, 0.0, FIRST_SECONDS))
    figures.name, figures.label = "server-first", f"server c=4, first {FIRST_SECONDS:g} s after start"
    return figures


class HttpxLoad:
    """Turns of the httpx client at one concurrency."""

    def __init__(self, server: Server, concurrency: int, warmup: float) -> None:
        self.server, self.concurrency, self.warmup = server, concurrency, warmup

    def warm(self) -> None:
        """The render pool starts on the first request: load it before any turn."""
        figures = asyncio.run(closed_loop(self.server, 2 * CORES, SERVER_WARMUP, 0.0))
        if figures.errors:
            raise RuntimeError(f"errors while warming up: {figures.errors}\n{self.server.log_tail()}")

    def turn(self, seconds: float) -> Figures:
        return asyncio.run(closed_loop(self.server, self.concurrency, self.warmup, seconds))


# ------------------------------------------------------------------ the wrk client

WRK_QUANTILES = 1000
WRK_SCRIPT = """
local n = tonumber(os.getenv("WRK_FIRST"))
local QUANTILES = %(quantiles)d
bad_type = 0

request = function()
  n = n + 1
  local body = '{"templateId": "%(template)s", "modifications": {"title": "'
    .. string.format("%(title)s", n) .. '"}}'
  return wrk.format("POST", "%(endpoint)s", nil, body)
end

response = function(status, headers, body)
  local kind = headers["content-type"] or headers["Content-Type"] or ""
  if kind ~= "image/png" then bad_type = bad_type + 1 end
end

local threads = {}
setup = function(thread)
  table.insert(threads, thread)
end

done = function(summary, latency, requests)
  local out = io.open(os.getenv("WRK_REPORT"), "w")
  local errors = summary.errors
  local bad = 0
  for _, thread in ipairs(threads) do bad = bad + thread:get("bad_type") end
  out:write(string.format('{"requests": %%d, "duration_us": %%d, "socket_errors": %%d, "non_2xx": %%d, ',
    summary.requests, summary.duration, errors.connect + errors.read + errors.write + errors.timeout, errors.status))
  out:write(string.format('"bad_type": %%d, "quantiles_us": [', bad))
  for i = 1, QUANTILES do
    out:write(string.format('%%s%%d', i > 1 and ", " or "", latency:percentile((i - 0.5) * 100 / QUANTILES)))
  end
  out:write("]}")
  out:close()
end
"""


class WrkLoad:
    """Turns of Debian's wrk (C, one thread) at one concurrency. wrk's Lua sees no single
    latency, only percentiles: a turn's "latencies" are its 1000 evenly spaced quantiles, so
    that turns of the same length (and so about as many requests) can be pooled."""

    def __init__(self, server: Server, concurrency: int, warmup: float, scratch: Path) -> None:
        self.server, self.concurrency, self.warmup = server, concurrency, warmup
        self.script, self.report = scratch / "card.lua", scratch / "report.json"
        text = WRK_SCRIPT % {
            "template": TEMPLATE_ID,
            "title": TITLE.replace("{n:09d}", "%09d"),
            "endpoint": ENDPOINT,
            "quantiles": WRK_QUANTILES,
        }
        self.script.write_text(text, encoding="utf-8")

    @staticmethod
    def available() -> None:
        if shutil.which("wrk") is None:
            raise common.Skipped("wrk not found (apt-get install -y wrk)")

    def run(self, concurrency: int, seconds: float) -> dict[str, Any]:
        command = [
            "wrk",
            "--threads",
            "1",  # one thread keeps the client's share of the cores small; it is far from busy
            "--connections",
            str(concurrency),
            "--duration",
            f"{max(1, round(seconds))}s",
            "--timeout",
            "60s",
            "--script",
            str(self.script),
            "--header",
            f"Authorization: Bearer {self.server.key}",
            "--header",
            "Content-Type: application/json",
            self.server.base_url,
        ]
        first = 100_000_000 + next(WRK_TURNS) * 1_000_000  # wrk numbers its own requests from there
        environment = {**os.environ, "WRK_REPORT": str(self.report), "WRK_FIRST": str(first)}
        finished = subprocess.run(command, capture_output=True, text=True, check=False, env=environment)
        if finished.returncode:
            raise RuntimeError(f"wrk failed: {finished.stderr.strip() or finished.stdout.strip()}")
        return dict(json.loads(self.report.read_text(encoding="utf-8")))

    def warm(self) -> None:
        """The render pool starts on the first request: load it before any turn."""
        self.run(2 * CORES, SERVER_WARMUP)
        self.check_one()

    def check_one(self) -> int:
        """wrk checks status and content type only: decode one answer of the same request in full."""
        headers = {"Authorization": f"Bearer {self.server.key}"}
        with httpx.Client(base_url=self.server.base_url, headers=headers, timeout=60, trust_env=False) as client:
            response = client.post(ENDPOINT, json=request_body(next(NUMBERS)))
        error = problem(response)
        if error is not None:
            raise RuntimeError(f"a sample answer is wrong: {error}")
        return decoded([response.content])

    def turn(self, seconds: float) -> Figures:
        if self.warmup:
            self.run(self.concurrency, self.warmup)
        before, children_before = CpuSample.take(self.server.pid), os.times()
        raw = self.run(self.concurrency, seconds)
        after, children_after = CpuSample.take(self.server.pid), os.times()
        times_ms = [us / 1000 for us in raw["quantiles_us"]]
        errors = {
            name: raw[key]
            for name, key in (("socket errors", "socket_errors"), ("not 2xx", "non_2xx"), ("not image/png", "bad_type"))
            if raw[key]
        }
        figures = Figures(
            f"server-c{self.concurrency}",
            f"server createImage, c={self.concurrency} (wrk)",
            times_ms,
            concurrency=self.concurrency,
            completed=int(raw["requests"]),
            seconds=raw["duration_us"] / 1e6,
            errors=errors,
            main_cpu_s=after.main - before.main,
            workers_cpu_s=after.below - before.below,
            client_cpu_s=sum(children_after[2:4]) - sum(children_before[2:4]),  # wrk: a child, now waited for
        )
        figures.decoded = self.check_one()
        return figures


# ------------------------------------------------------------------ the library baseline


def stored_template() -> tk.Template:
    """The card as the server stores and renders it: ``admin template add`` inlines local files
    as data URIs (here the logo), and the library renders a file ``src`` a few ms slower."""
    body = json.loads(TEMPLATE.read_text(encoding="utf-8"))
    return tk.load_template(catalog.inline_local_files(body, TEMPLATE.parent))


def bench_single() -> Figures:
    """One process's warm render time, for reference (what one request cannot beat)."""
    template = stored_template()
    titles = [title(next(NUMBERS)) for _ in range(SINGLE_RENDERS)]
    times, _ = common.timed(lambda text: tk.render_image(template, {"title": text}), titles, SINGLE_RENDERS)
    return Figures("library-1", "library, 1 process (warm)", times)


class LibraryPool:
    """The library's batch path, ``render_many`` with its own pool of one worker per core
    (started in each turn's warm-up), fed a new title whenever it takes a row, until the
    window ends; a render's time runs from the moment its row was taken to its result."""

    def __init__(self, warmup: float) -> None:
        self.workers = os.cpu_count() or 1
        self.warmup = warmup
        self.template = stored_template()

    def turn(self, seconds: float) -> Figures:
        window = Window(self.warmup, seconds, os.getpid())
        taken: list[float] = []

        def rows() -> Iterator[dict[str, str]]:
            while time.perf_counter() < window.end:
                taken.append(time.perf_counter())
                yield {"title": title(next(NUMBERS))}

        times_ms: list[float] = []
        errors: Counter[str] = Counter()
        for item in tk.render_many(self.template, rows(), workers=self.workers):
            now = time.perf_counter()
            if not item.ok or not item.result or not item.result.data.startswith(PNG_SIGNATURE):
                errors[item.error or "not a PNG"] += 1
            elif now in window:
                times_ms.append((now - taken[item.index]) * 1000)
        figures = Figures(
            "library-pool",
            f"library, render_many ({self.workers} processes)",
            times_ms,
            concurrency=self.workers,
            completed=len(times_ms),
            seconds=seconds,
            errors=dict(errors),
        )
        window.cpu(figures, main=False)
        return figures


# ------------------------------------------------------------------ turns

Turn = Callable[[float], Figures]


def take_turns(contenders: list[tuple[str, Turn]], seconds: float, rounds: int, results: dict[str, Figures]) -> None:
    """Every contender in turn, ``rounds`` times, ``seconds / rounds`` timed each time."""
    for number in range(rounds):
        for announce, turn in contenders:
            print(f"{announce} ({number + 1}/{rounds}) ...", flush=True)
            figures = turn(seconds / rounds)
            if figures.name in results:
                results[figures.name].merge(figures)
            else:
                results[figures.name] = figures


def run(args: argparse.Namespace, results: dict[str, Figures], skipped: dict[str, str]) -> None:
    """The pool and the server at each concurrency, taking turns; the server is stopped at the
    end whatever happens, the pool too."""
    with contextlib.ExitStack() as stack:
        contenders: list[tuple[str, Turn]] = []
        if not args.skip_library:
            print("library, 1 process ...", flush=True)
            results["library-1"] = bench_single()
            pool = LibraryPool(args.warmup)
            contenders.append((f"library, render_many of {pool.workers}", pool.turn))
        if args.client == "wrk":
            try:
                WrkLoad.available()
            except common.Skipped as exc:
                print(f"  skipped: {exc}")
                skipped["server (wrk)"] = str(exc)
                take_turns(contenders, args.seconds, args.rounds, results)
                return
        server = stack.enter_context(running_server())
        print(f"the first {FIRST_SECONDS:g} s after start: c=4, no warm-up ...", flush=True)
        results["server-first"] = first_seconds(server)
        print(f"warming the server up: c={2 * CORES}, {SERVER_WARMUP:g} s ...", flush=True)
        loads: list[HttpxLoad | WrkLoad]
        if args.client == "wrk":
            scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="templatekit-wrk-")))
            loads = [WrkLoad(server, c, args.warmup, scratch) for c in args.concurrency]
        else:
            loads = [HttpxLoad(server, c, args.warmup) for c in args.concurrency]
        loads[0].warm()
        contenders += [(f"server c={load.concurrency} ({args.client})", load.turn) for load in loads]
        take_turns(contenders, args.seconds, args.rounds, results)


# ------------------------------------------------------------------ report


def commit() -> str:
    """The commit measured, "+changes" when src/ differs from it (read-only git commands)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    if head.returncode:
        return "unknown"
    changed = subprocess.run(["git", "--no-optional-locks", "diff", "--quiet", "HEAD", "--", "src"], cwd=ROOT)
    return head.stdout.strip() + ("+changes" if changed.returncode else "")


def machine(client: str) -> dict[str, str]:
    wrk = common.first_line(["wrk", "--version"]) if shutil.which("wrk") else "not installed"
    versions = {
        "commit": commit(),
        "templatekit": tk.__version__,
        "pillow": PIL.__version__,
        "client": f"httpx {httpx.__version__}" if client == "httpx" else wrk.split(" Copyright")[0],
    }
    for name in ("uvicorn", "starlette", "h11", "httptools", "uvloop", "sqlalchemy", "limits"):
        versions[name] = common.package_version(name)
    return common.machine(versions)


def cell(value: float | None, spec: str) -> str:
    return "" if value is None else format(value, spec)


def columns(library_rate: float | None) -> list[Column[Figures]]:
    def versus(figures: Figures) -> str:
        rate = figures.rate
        if rate is None or library_rate is None or figures.name == "library-pool":
            return ""
        return f"{rate / library_rate:.2f}x"

    def share(figures: Figures) -> str:
        value = figures.client_share
        return "" if value is None else f"{value * 100:.0f}%"

    return [
        ("req/s", 7, lambda f: cell(f.rate, ".1f")),
        ("p50 ms", 7, lambda f: cell(f.median, ".1f") if f.times_ms else ""),
        ("p90 ms", 7, lambda f: cell(f.p90, ".1f") if f.times_ms else ""),
        ("p99 ms", 7, lambda f: cell(f.p99, ".1f") if f.completed > 1 else ""),
        ("errors", 6, lambda f: str(sum(f.errors.values())) if f.concurrency is not None else ""),
        ("client CPU", 10, share),
        ("main ms/req", 11, lambda f: cell(f.per_request_ms(f.main_cpu_s), ".2f")),
        ("workers ms/req", 14, lambda f: cell(f.per_request_ms(f.workers_cpu_s), ".2f")),
        ("vs library", 10, versus),
    ]


def target(label: str, ratio: float | None, limit: float, passed: Callable[[float], bool]) -> dict[str, Any]:
    """A target as the other benchmarks' JSON has it; SKIP when a row it needs is missing."""
    if ratio is None:
        return {"target": label, "ratio": None, "limit": limit, "result": "SKIP"}
    return {"target": label, "ratio": round(ratio, 3), "limit": limit, "result": common.verdict(passed(ratio))}


def targets(results: dict[str, Figures]) -> list[dict[str, Any]]:
    # warm servers only: the first seconds after start have a target of their own
    servers = [
        figures
        for figures in results.values()
        if figures.name.startswith("server") and figures.name != "server-first" and figures.completed
    ]
    pool = results.get("library-pool")
    best = max(servers, key=lambda figures: figures.rate or 0.0, default=None)
    throughput = None
    if best is not None and pool is not None and best.rate and pool.rate:
        throughput = best.rate / pool.rate
    where = f"c={best.concurrency}" if best is not None else "best c"
    c4, first = results.get("server-c4"), results.get("server-first")
    tail = c4.p99 / c4.median if c4 is not None and c4.completed > 1 and c4.median else None
    early = first.p99 / c4.p99 if first is not None and c4 is not None and first.completed and c4.completed else None
    return [
        target(f"server req/s ({where}) >= 0.9x library pool renders/s", throughput, 0.9, lambda ratio: ratio >= 0.9),
        target("server p99 < 3x p50 at c=4", tail, 3.0, lambda ratio: ratio < 3.0),
        target(f"server p99 in its first {FIRST_SECONDS:g} s <= 2x warm p99 (c=4)", early, 2.0, lambda r: r <= 2.0),
    ]


def notes(results: dict[str, Figures], client: str) -> None:
    """What the table cannot show: errors by kind, the checked PNGs, the client's load."""
    for figures in results.values():
        for error, count in figures.errors.items():
            print(f"  {figures.label}: {count} x {error}")
    checked = sum(figures.decoded for figures in results.values())
    if checked:
        print(f"\n{checked} sampled answers decoded in full, all {SIZE[0]}x{SIZE[1]}; every answer checked image/png")
    shares = [f.client_share for f in results.values() if f.name.startswith("server") and f.client_share is not None]
    if shares:
        print(
            f"client ({client}) CPU: up to {max(shares) * 100:.0f}% of one core"
            f" = {max(shares) * 100 / CORES:.0f}% of the {CORES} cores the server also uses"
        )
    single, pool = results.get("library-1"), results.get("library-pool")
    if single is not None and pool is not None and pool.rate:
        print(
            f"the pool renders {pool.rate * single.median / 1000:.2f}x as many cards a second as one process"
            f" ({CORES} cores; near {CORES} where cores scale well, and then the server's own CPU weighs more)"
        )
    print(
        "CPU ms/req: main = the server's process (HTTP, auth, usage, dispatch); workers = its render processes"
        " (for the pool: its workers; client CPU = the pool's parent)"
    )


def row(figures: Figures) -> dict[str, Any]:
    """A row as JSON: the figures, the percentiles, the rate and the CPU per request."""
    payload = {key: value for key, value in asdict(figures).items() if key != "times_ms"}
    payload.update(
        {
            "rate": None if figures.rate is None else round(figures.rate, 2),
            "p50_ms": round(figures.median, 2) if figures.times_ms else None,
            "p90_ms": round(figures.p90, 2) if figures.times_ms else None,
            "p99_ms": round(figures.p99, 2) if len(figures.times_ms) > 1 else None,
            "client_cpu_share": figures.client_share,
            "main_cpu_ms_per_request": figures.per_request_ms(figures.main_cpu_s),
            "workers_cpu_ms_per_request": figures.per_request_ms(figures.workers_cpu_s),
            "times_ms": [round(value, 2) for value in figures.times_ms],
        }
    )
    return payload


def stopped(signum: int, _frame: Any) -> None:
    raise SystemExit(128 + signum)


def levels_argument(text: str) -> list[int]:
    try:
        levels = [int(part) for part in re.split(r"[,\s]+", text.strip()) if part]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of numbers: {text!r}") from None
    if not levels or min(levels) < 1:
        raise argparse.ArgumentTypeError("concurrency levels must be at least 1")
    return levels


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="timed seconds per contender (default 10)")
    parser.add_argument("--warmup", type=float, default=1.0, help="untimed seconds before each turn (default 1)")
    parser.add_argument("--rounds", type=int, default=2, help="turns per contender, in rotation (default 2)")
    parser.add_argument(
        "--concurrency", type=levels_argument, default=list(LEVELS), help="requests in flight (default 1,4,16)"
    )
    parser.add_argument("--client", choices=["httpx", "wrk"], default="httpx", help="load generator (default httpx)")
    parser.add_argument("--skip-library", action="store_true", help="leave the library baseline out")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also save the figures as JSON")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.warmup < 0 or args.rounds < 1:
        parser.error("--seconds must be positive, --warmup not negative, --rounds at least 1")
    if args.client == "wrk" and args.seconds / args.rounds < 1:
        parser.error("wrk runs whole seconds: --seconds / --rounds must be at least 1")

    info = machine(args.client)
    print("machine: " + ", ".join(f"{key} {value}" for key, value in info.items()))
    print(
        f"createImage of {TEMPLATE.relative_to(ROOT)}, a new title per request; closed loop at"
        f" c={','.join(map(str, args.concurrency))}; {args.seconds:g} s timed per contender in {args.rounds} turns,"
        f" each after {args.warmup:g} s untimed"
    )
    results: dict[str, Figures] = {}
    skipped: dict[str, str] = {}
    signal.signal(signal.SIGTERM, stopped)  # unwind, so that the server is stopped too
    try:
        run(args, results, skipped)
    except KeyboardInterrupt:
        print("interrupted; the server was stopped")
        return 130

    pool = results.get("library-pool")
    common.print_table(results, skipped, 34, columns(pool.rate if pool is not None else None))
    notes(results, args.client)
    outcomes = targets(results)
    common.print_targets(outcomes, 56)
    if args.json:
        payload = {
            "machine": info,
            "seconds": args.seconds,
            "warmup": args.warmup,
            "rounds": args.rounds,
            "concurrency": args.concurrency,
            "client": args.client,
            "latencies": "every request" if args.client == "httpx" else f"{WRK_QUANTILES} quantiles per turn (wrk)",
            "title": TITLE,
            "rows": {name: row(figures) for name, figures in results.items()},
            "skipped": skipped,
            "targets": outcomes,
        }
        common.save_json(args.json, payload)
        print(f"figures saved to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
