"""Two workspaces on one server: how long a quiet workspace waits beside a hostile one.

The quiet workspace keeps 2 createImage requests of the social card in flight (a closed
loop, a new title each). Its latencies are measured alone, then beside the hostile
workspace, which keeps in flight, at the same time:

- 8 previews of a heavy design (full-page layers with wide blurs and shadows, each
  unlike the last so that no cache answers it), free and not billed;
- 40 createStoredImage thumbnails announced to a webhook URL that never answers (the
  sender gives up after its timeout), free and not billed;
- requests with lists far over their limits (a table of 500,000 columns), every few
  hundred milliseconds.

The hostile workspace's client runs in a process of its own (on the same cores), so
that its load does not hold up the quiet client's reading of answers. Both workspaces
are on the same plan (equal weights). The figure is the quiet
workspace's p99 beside the hostile one against its p99 alone, measured in the same run;
the target is at most 3x. The peak resident memory of the server and its workers is
sampled all along. Used by soak.py (``--only tenants`` runs this part alone).
"""

from __future__ import annotations

import asyncio
import http.server
import json
import multiprocessing
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from http_server import TEMPLATE, TEMPLATE_ID, Server, admin, descendants, key_options, resident_mib

QUIET_IN_FLIGHT = 2
PREVIEWS_IN_FLIGHT = 8
SLOW_WEBHOOK_RENDERS_IN_FLIGHT = 40
TARGET = 3.0  # the quiet p99 beside the hostile workspace, at most this many times its p99 alone


@dataclass
class Latencies:
    seconds: list[float] = field(default_factory=list)
    answers: Counter[str] = field(default_factory=Counter)

    def percentile(self, share: float) -> float:
        ordered = sorted(self.seconds)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")

    def summary(self) -> dict[str, Any]:
        return {
            "requests": len(self.seconds),
            "p50_ms": 1000 * statistics.median(self.seconds) if self.seconds else None,
            "p99_ms": 1000 * self.percentile(0.99),
            "answers": dict(self.answers),
        }


class Silent(http.server.ThreadingHTTPServer):
    """A webhook target that takes every connection and never answers."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Hold)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/hook"


class _Hold(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - the http.server interface
        time.sleep(600)

    def log_message(self, *_args: Any) -> None:
        pass


def heavy(n: int) -> dict[str, Any]:
    shadow = {"x": 8, "y": 8, "blur": 60, "spread": 12, "color": "#00000080"}
    layers = [
        {"type": "shape", "name": f"s{i}", "x": 0, "y": 0, "width": 2400, "height": 2400}
        | {"fill": f"#{(n * 7 + i) % 256:02x}6699", "blur": 60, "shadows": [shadow] * 4}
        for i in range(6)
    ]
    return {"name": "heavy", "width": 2400, "height": 2400, "layers": layers}


def label(what: str, response: httpx.Response) -> str:
    """``what`` and how it was answered: the status, and the error code of a failure."""
    if response.is_success:
        return f"{what} {response.status_code}"
    try:
        code = response.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        code = "?"
    return f"{what} {response.status_code} {code}"


def workspace(data_dir: Path, name: str) -> str:
    """A new workspace on the scale plan with the social card; its key. The plan's daily
    quota is above what this machine serves in a run: refused renders would be fast ones."""
    ws = admin(data_dir, "workspace", "create", "--name", name, "--plan", "scale")["id"]
    project = admin(data_dir, "project", "create", "--workspace", ws, "--name", name)["id"]
    admin(data_dir, "template", "add", "--workspace", ws, str(TEMPLATE))
    return str(admin(data_dir, "key", "create", "--project", project, *key_options())["key"])


async def quiet_load(server: Server, key: str, seconds: float) -> Latencies:
    measured = Latencies()
    end = time.monotonic() + seconds
    headers = {"Authorization": f"Bearer {key}"}

    async def task(number: int, client: httpx.AsyncClient) -> None:
        n = 0
        while time.monotonic() < end:
            body = {"templateId": TEMPLATE_ID, "modifications": {"title": f"Quiet {number}-{n}-{time.time()}"}}
            started = time.monotonic()
            response = await client.post("/v1/templates/createImage", json=body, headers=headers)
            measured.seconds.append(time.monotonic() - started)
            measured.answers[label("createImage", response)] += 1
            n += 1

    async with httpx.AsyncClient(base_url=server.base_url, timeout=300, trust_env=False) as client:
        await asyncio.gather(*(task(number, client) for number in range(QUIET_IN_FLIGHT)))
    return measured


class Plain:
    """One keep-alive HTTP/1.1 connection that posts JSON and reads the answer, and
    little else: the hostile workspace's client shares the cores with the server, and a
    full client's own work for 49 requests in flight (about half a core) would be taken
    from the server, which would not have to bear it were the client elsewhere."""

    def __init__(self, base_url: str, key: str) -> None:
        address = urlsplit(base_url)
        self.host, self.port = address.hostname or "127.0.0.1", address.port or 80
        self.head = f"Host: {self.host}\r\nAuthorization: Bearer {key}\r\nContent-Type: application/json\r\n"
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, bytes]:
        data = json.dumps(body).encode()
        if self.streams is None:
            self.streams = await asyncio.open_connection(self.host, self.port)
        reader, writer = self.streams
        writer.write(f"POST {path} HTTP/1.1\r\n{self.head}Content-Length: {len(data)}\r\n\r\n".encode() + data)
        await writer.drain()
        status = int((await reader.readline()).split()[1])
        length, closing = 0, False
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            length = int(value) if name.lower() == "content-length" else length
            closing = closing or (name.lower() == "connection" and "close" in value.lower())
        answer = await reader.readexactly(length)
        if closing:
            writer.close()
            self.streams = None
        return status, answer


def plain_label(what: str, status: int, answer: bytes) -> str:
    """``label`` for an answer that ``Plain`` read."""
    if status < 300:
        return f"{what} {status}"
    try:
        code = json.loads(answer)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        code = "?"
    return f"{what} {status} {code}"


async def hostile_load(base_url: str, key: str, target: str, stop: asyncio.Event) -> Counter[str]:
    answers: Counter[str] = Counter()
    counter = iter(range(10**9))

    async def previews() -> None:
        client = Plain(base_url, key)
        while not stop.is_set():
            status, answer = await client.post("/v1/templates/preview", {"template": heavy(next(counter))})
            answers[plain_label("preview", status, answer)] += 1

    async def slow_webhooks() -> None:
        client = Plain(base_url, key)
        while not stop.is_set():
            body = {"templateId": TEMPLATE_ID, "thumbnail": True, "webhookUrl": target}
            body["modifications"] = {"title": f"Hostile {next(counter)}"}
            status, answer = await client.post("/v1/templates/createStoredImage", body)
            answers[plain_label("stored thumbnail", status, answer)] += 1

    async def big_lists() -> None:
        client = Plain(base_url, key)
        table = {"type": "table", "name": "t", "x": 0, "y": 0, "width": 100, "height": 100, "columns": [0] * 500_000}
        while not stop.is_set():
            body = {"template": {"name": "big", "width": 100, "height": 100, "layers": [table]}}
            status, answer = await client.post("/v1/templates/preview", body)
            answers[plain_label("big list", status, answer)] += 1
            await asyncio.sleep(0.3)

    tasks = [previews() for _ in range(PREVIEWS_IN_FLIGHT)]
    tasks += [slow_webhooks() for _ in range(SLOW_WEBHOOK_RENDERS_IN_FLIGHT)]
    tasks.append(big_lists())
    running = [asyncio.create_task(work) for work in tasks]
    await stop.wait()
    for task in running:
        task.cancel()
    await asyncio.gather(*running, return_exceptions=True)
    return answers


async def peak_memory(server: Server, stop: asyncio.Event) -> float:
    """The largest resident memory of the server and its workers together, in MiB."""
    peak = 0.0
    while not stop.is_set():
        peak = max(peak, resident_mib(server.pid))
        await asyncio.sleep(0.25)
    return peak


def hostile_in_own_process(base_url: str, key: str, target: str, stop: Any, answers: Any) -> None:
    """``hostile_load`` until ``stop`` (a multiprocessing event) is set; its answers put
    in ``answers`` (a multiprocessing queue)."""

    async def load() -> Counter[str]:
        stopping = asyncio.Event()

        async def watch() -> None:
            while not stop.is_set():
                await asyncio.sleep(0.1)
            stopping.set()

        watcher = asyncio.create_task(watch())
        counted = await hostile_load(base_url, key, target, stopping)
        await watcher
        return counted

    answers.put(dict(asyncio.run(load())))


async def beside_hostile(server: Server, quiet: str, hostile: str, target: str, seconds: float) -> dict[str, Any]:
    """The quiet load beside the hostile one. The hostile workspace's client runs in a
    process of its own, as it would on a machine of its own: sharing this process's
    event loop, its 49 requests in flight held up the reading of the quiet workspace's
    answers, which added a third to the quiet p99 that the server never saw (the
    server's own log gave the quiet requests a p99 of 82 ms where this client measured
    116 ms). It still shares the cores with the server."""
    context = multiprocessing.get_context("spawn")
    stop, answers = context.Event(), context.Queue()
    mix = context.Process(
        target=hostile_in_own_process, args=(server.base_url, hostile, target, stop, answers), daemon=True
    )
    mix.start()
    halt = asyncio.Event()
    sampler = asyncio.create_task(peak_memory(server, halt))
    try:
        await asyncio.sleep(5)  # the hostile backlog builds up first
        measured = await quiet_load(server, quiet, seconds)
    finally:
        stop.set()
        halt.set()
    hostile_answers: Counter[str] = Counter(await asyncio.to_thread(answers.get, True, 60))
    await asyncio.to_thread(mix.join, 30)
    return {"quiet": measured, "hostile": hostile_answers, "peak_mib": await sampler}


def run(server: Server, data_dir: Path, seconds: float) -> dict[str, Any]:
    """The quiet workspace alone, then beside the hostile one; the figures and the check."""
    quiet, hostile = workspace(data_dir, "quiet"), workspace(data_dir, "hostile")
    silent = Silent()
    try:
        print(f"tenants: the quiet workspace alone, {seconds:g} s ...", flush=True)
        alone = asyncio.run(quiet_load(server, quiet, seconds))
        print(f"tenants: the quiet workspace beside the hostile one, {seconds:g} s ...", flush=True)
        mixed = asyncio.run(beside_hostile(server, quiet, hostile, silent.url, seconds))
    finally:
        silent.shutdown()
    ratio = mixed["quiet"].percentile(0.99) / alone.percentile(0.99)
    figures = {
        "alone": alone.summary(),
        "beside_hostile": mixed["quiet"].summary(),
        "p99_ratio": ratio,
        "hostile_answers": dict(mixed["hostile"]),
        "peak_mib": mixed["peak_mib"],
        "processes": 1 + len(descendants(server.pid)),
    }
    print(f"\n{'quiet workspace, 2 in flight':34} {'requests':>9} {'p50 ms':>8} {'p99 ms':>8}")
    for label, summary in (("alone", figures["alone"]), ("beside the hostile one", figures["beside_hostile"])):
        print(f"{label:34} {summary['requests']:>9} {summary['p50_ms']:>8.0f} {summary['p99_ms']:>8.0f}")
    print(f"p99 beside the hostile workspace / alone: {ratio:.2f}x (target <= {TARGET:g}x)")
    print(f"peak resident memory of the server and its workers: {mixed['peak_mib']:.0f} MiB")
    for label, count in sorted(mixed["hostile"].items()):
        print(f"  hostile: {count:>5} x {label}")
    figures["check"] = ratio <= TARGET and set(mixed["quiet"].answers) == {"createImage 200"}
    return figures
