"""A real server on a random port, in its own process, and helpers to make accounts and
templates in its database (the test process opens the same SQLite file)."""

from __future__ import annotations

import contextlib
import http.server
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from templatekit_server import accounts, catalog
from templatekit_server import db as db_tables
from templatekit_server.db import Database
from templatekit_server.plans import DEFAULT_PLANS
from templatekit_server.sealing import Sealer, server_secret

START_TIMEOUT = 60.0


@dataclass
class Account:
    workspace: str
    project: str
    key_id: str
    key: str

    @property
    def bearer(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LiveServer:
    """``templatekit serve`` as a user runs it, with its data directory."""

    data_dir: Path
    env: dict[str, str] = field(default_factory=dict)
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api(self) -> str:
        return f"{self.root}/v1"

    def start(self) -> LiveServer:
        self.log_path = self.data_dir.parent / f"{self.data_dir.name}-{self.port}.log"
        env = {**os.environ, "TEMPLATEKIT_FETCH_ALLOW": "127.0.0.1,localhost", **self.env}
        command = [sys.executable, "-m", "templatekit.cli", "serve", "--data-dir", str(self.data_dir)]
        command += ["--port", str(self.port), "--workers", env.get("TEMPLATEKIT_WORKERS", "2")]
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n{self.log()}")
            try:
                if httpx.get(f"{self.api}/liveness", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"the server did not answer within {START_TIMEOUT} s:\n{self.log()}")

    def stop(self, kill: bool = False) -> None:
        if self.process is None:
            return
        if kill:
            self.process.send_signal(signal.SIGKILL)
        else:
            self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path and self.log_path.exists() else ""

    @cached_property
    def db(self) -> Database:
        """The server's database: its own SQLite file, or the one shared by a cluster."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        return Database(self.env.get("TEMPLATEKIT_DATABASE_URL") or f"sqlite:///{self.data_dir / 'templatekit.db'}")

    @cached_property
    def sealer(self) -> Sealer:
        return Sealer(server_secret(self.env.get("TEMPLATEKIT_SECRET"), self.data_dir))

    def account(self, plan: str = "pro") -> Account:
        workspace = accounts.create_workspace(self.db, "test", plan, DEFAULT_PLANS)
        project = accounts.create_project(self.db, workspace, "test project")
        key_id, key = accounts.create_key(self.db, self.sealer, project, scopes=accounts.SCOPES)
        return Account(workspace, project, key_id, key)

    def key_for(self, project: str) -> Account:
        """Another key of a project."""
        workspace = accounts.project(self.db, project)["workspace_id"]  # type: ignore[index]
        key_id, key = accounts.create_key(self.db, self.sealer, project, scopes=accounts.SCOPES)
        return Account(workspace, project, key_id, key)

    def add_template(self, account: Account, body: dict[str, Any], overwrite: bool = False) -> str:
        template_id, _, _ = catalog.save(self.db, account.workspace, body, overwrite=overwrite)
        return template_id

    def used(self, account: Account) -> int:
        """Generations the workspace used, every day of it counted: a test that runs over
        midnight UTC bills on one day and would read the next day's zero."""
        with self.db.read() as connection:
            total = connection.execute(
                select(func.sum(db_tables.usage.c.count)).where(
                    db_tables.usage.c.workspace_id == account.workspace, func.length(db_tables.usage.c.period) == 10
                )
            ).scalar()
        return int(total or 0)


@contextlib.contextmanager
def hosts_sharing_a_database(folder: Path, **env: str) -> Iterator[list[LiveServer]]:
    """Two servers sharing PostgreSQL, Redis, a storage folder and a secret, as
    docs/deploy.md sets several hosts up, with ``env`` added to their settings."""
    from tests.server import services  # it starts servers of this module's

    with services.postgres() as pg, services.redis(folder) as rd:
        shared = {
            "TEMPLATEKIT_DATABASE_URL": pg.url,
            "TEMPLATEKIT_RATE_LIMIT_URL": rd.url,
            "TEMPLATEKIT_STORAGE_URL": (folder / "files").resolve().as_uri(),
            "TEMPLATEKIT_SECRET": secrets.token_urlsafe(32),
            "TEMPLATEKIT_WORKERS": "1",
            **env,
        }
        servers = [LiveServer(folder / f"host{n}", dict(shared)) for n in range(2)]
        for server in servers:
            server.data_dir.mkdir()
            server.start()
        try:
            yield servers
        finally:
            for server in servers:
                server.stop()


@pytest.fixture(scope="session")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server for the tests that do not stop it; each test makes its own account."""
    server = LiveServer(
        tmp_path_factory.mktemp("live") / "data",
        {"TEMPLATEKIT_JOB_HEARTBEAT_SECONDS": "0.5", "TEMPLATEKIT_JOB_STALE_SECONDS": "3"},
    )
    server.data_dir.mkdir(parents=True)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=120) as http:
        yield http


def burst(requests: list[tuple[str, str, dict[str, Any] | None]], headers: dict[str, str]) -> list[httpx.Response]:
    """(method, url, JSON body) requests all at once, each on its own connection."""

    def send(request: tuple[str, str, dict[str, Any] | None]) -> httpx.Response:
        method, url, body = request
        return httpx.request(method, url, json=body, headers=headers, timeout=120)

    with ThreadPoolExecutor(len(requests)) as pool:
        return list(pool.map(send, requests))


def codes(answers: list[httpx.Response]) -> Counter[str]:
    """How many answers succeeded ("OK"), and how many failed with each error code."""
    return Counter("OK" if answer.status_code == 200 else answer.json()["error"]["code"] for answer in answers)


# ------------------------------------------------------------------ templates


def text_template(template_id: str = "card", **fields: Any) -> dict[str, Any]:
    """A small card: a dark background, a white title, a red box."""
    return {
        "id": template_id,
        "name": "Card",
        "width": 240,
        "height": 120,
        "background": "#102030",
        "layers": [
            {"type": "shape", "name": "box", "x": 0, "y": 90, "width": 240, "height": 30, "fill": "#ff0000"},
            {
                "type": "text",
                "name": "title",
                "x": 10,
                "y": 10,
                "width": 220,
                "height": 70,
                "text": "Hello",
                "size": 28,
                "color": "#ffffff",
            },
        ],
        **fields,
    }


def image_template(src: str, template_id: str = "photo") -> dict[str, Any]:
    return {
        "id": template_id,
        "name": "Photo",
        "width": 100,
        "height": 100,
        "layers": [{"type": "image", "name": "photo", "x": 0, "y": 0, "width": 100, "height": 100, "src": src}],
    }


def video_template(template_id: str = "clip", seconds: float = 1.0, fps: int = 10, size: int = 96) -> dict[str, Any]:
    return {
        "id": template_id,
        "name": "Clip",
        "width": size,
        "height": size,
        "background": "#000000",
        "video": {"duration": seconds, "fps": fps},
        "layers": [
            {
                "type": "shape",
                "name": "box",
                "x": 0,
                "y": 0,
                "width": size,
                "height": size,
                "fill": "#ffffff",
                "animations": [{"preset": "fade-in", "duration": seconds}],
            },
            {"type": "text", "name": "title", "x": 4, "y": 4, "width": size - 8, "height": 30, "text": "Hi"},
        ],
    }


# ------------------------------------------------------------------ a web server for images


class Files(http.server.ThreadingHTTPServer):
    """Serves ``routes`` (path -> (status, body, seconds to wait before answering))."""

    daemon_threads = True

    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, bytes, float]] = {}
        self.requested: list[str] = []  # the paths asked for, in order
        super().__init__(("127.0.0.1", 0), _Handler)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{path}"


class _Handler(http.server.BaseHTTPRequestHandler):
    server: Files

    def do_GET(self) -> None:  # noqa: N802 - the http.server interface
        self.server.requested.append(self.path)
        status, body, delay = self.server.routes.get(self.path, (404, b"not here", 0.0))
        time.sleep(delay)
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def web() -> Iterator[Files]:
    server = Files()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
