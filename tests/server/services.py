"""Real services for the tests, started from Debian's packages and PyPI as users run them:
Redis, moto's S3 server, PostgreSQL and nginx. Each runs in its own process on a free
port of 127.0.0.1 and is stopped when the test is done."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.server.conftest import free_port

START_TIMEOUT = 30.0


def _wait(ready: Callable[[], bool], process: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while not ready():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not start (exit code {process.poll()})")
        time.sleep(0.05)


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _needs(program: str, package: str) -> str:
    """The program's path; the test is skipped, saying what to install, without it."""
    found = shutil.which(program) or next(iter(glob.glob(program)), None)
    if found is None:
        pytest.skip(f"needs {program}: apt-get install {package} (.ci/run installs it)")
    return found


@dataclass
class Service:
    """A service's process, which a test may stop and start again (same port, same
    data) to see what an outage does; ``url`` is how clients reach it."""

    what: str
    url: str
    command: list[str]
    ready: Callable[[], bool]
    env: dict[str, str] | None = None
    log: Path | None = None
    stop_command: list[str] | None = None  # how the service is stopped, when not by SIGTERM
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> Service:
        output = self.log.open("ab") if self.log else subprocess.DEVNULL
        self.process = subprocess.Popen(self.command, stdout=output, stderr=output, env=self.env)
        _wait(self.ready, self.process, self.what)
        return self

    def stop(self) -> None:
        if self.process is None:
            return
        if self.stop_command:
            subprocess.run(self.stop_command, capture_output=True, check=False, timeout=30)
        _stop(self.process)
        self.process = None


@contextlib.contextmanager
def running(service: Service) -> Iterator[Service]:
    try:
        yield service.start()
    finally:
        service.stop()


def redis(folder: Path) -> contextlib.AbstractContextManager[Service]:
    """A Redis server."""
    server = _needs("redis-server", "redis-server")
    port = free_port()
    command = [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(folder)]

    def ready() -> bool:
        done = subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True, check=False)
        return done.stdout.strip() == b"PONG"

    return running(Service("redis-server", f"redis://127.0.0.1:{port}", command, ready))


def moto_s3(folder: Path, unauthenticated_actions: int | None = None) -> contextlib.AbstractContextManager[Service]:
    """moto's S3 (and IAM) server in its own process (which keeps its buckets in memory:
    a restart empties it). With ``unauthenticated_actions``, requests after that many
    must be signed by a real IAM key."""
    port = free_port()
    env = dict(os.environ)
    if unauthenticated_actions is not None:
        env["INITIAL_NO_AUTH_ACTION_COUNT"] = str(unauthenticated_actions)
    command = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    endpoint = f"http://127.0.0.1:{port}"

    def ready() -> bool:
        try:
            httpx.get(f"{endpoint}/moto-api/", timeout=1)
        except httpx.TransportError:
            return False
        return True

    return running(Service("moto's server", endpoint, command, ready, env=env, log=folder / "moto.log"))


@contextlib.contextmanager
def postgres() -> Iterator[Service]:
    """A PostgreSQL server in a fresh cluster with a database ``templatekit``; its
    SQLAlchemy URL. As root, it runs as the ``postgres`` user (PostgreSQL refuses root)."""
    initdb = _needs("/usr/lib/postgresql/*/bin/initdb", "postgresql")
    binaries = Path(initdb).parent
    folder = Path(tempfile.mkdtemp(prefix="templatekit-pg-"))  # not under pytest's 0700 folders
    as_postgres: list[str] = []
    if os.geteuid() == 0:
        folder.chmod(0o755)
        shutil.chown(folder, "postgres", "postgres")
        as_postgres = ["runuser", "-u", "postgres", "--"]
    data, port = folder / "data", free_port()
    subprocess.run(
        [*as_postgres, initdb, "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"],
        check=True,
        capture_output=True,
    )
    settings = ["-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={folder}", "-c", "fsync=off"]
    command = [*as_postgres, str(binaries / "postgres"), "-D", str(data), "-p", str(port), *settings]

    def ready() -> bool:
        check = [str(binaries / "pg_isready"), "-h", "127.0.0.1", "-p", str(port)]
        return subprocess.run(check, capture_output=True, check=False).returncode == 0

    url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/templatekit"
    # a fast shutdown: the default waits for every client to disconnect
    stop = [*as_postgres, str(binaries / "pg_ctl"), "-D", str(data), "stop", "-m", "fast"]
    try:
        with running(Service("postgres", url, command, ready, stop_command=stop)) as service:
            createdb = [str(binaries / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "templatekit"]
            subprocess.run([*as_postgres, *createdb], check=True, capture_output=True)
            yield service
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def nginx(folder: Path, upstreams: list[str], port: int | None = None) -> Iterator[str]:
    """nginx on ``port`` (default: a free one) balancing ``upstreams`` (``host:port``)
    round-robin, as docs/deploy.md sets it up (keep-alive to the servers, event streams
    unbuffered); its URL. Start the upstreams first: nginx sets aside for a while a
    server that did not answer."""
    program = _needs("nginx", "nginx")
    port = port or free_port()
    for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (folder / name).mkdir(parents=True, exist_ok=True)
    servers = "".join(f"server {upstream};" for upstream in upstreams)
    config = folder / "nginx.conf"
    config.write_text(
        f"""
{"user root;" if os.geteuid() == 0 else ""}
worker_processes 1;
daemon off;
pid {folder}/nginx.pid;
error_log {folder}/error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    upstream templatekit {{ {servers} keepalive 32; }}
    server {{
        listen 127.0.0.1:{port};
        client_max_body_size 21m;
        location / {{
            proxy_pass http://templatekit;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host:$server_port;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_buffering off;
            proxy_read_timeout 600s;
        }}
    }}
}}
"""
    )
    process = subprocess.Popen([program, "-c", str(config), "-p", str(folder), "-e", str(folder / "error.log")])
    url = f"http://127.0.0.1:{port}"

    def ready() -> bool:
        try:
            httpx.get(url, timeout=1)
        except httpx.TransportError:
            return False
        return True

    try:
        _wait(ready, process, "nginx")
        yield url
    finally:
        _stop(process)
