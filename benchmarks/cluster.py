"""Throughput of createImage as the deployment grows: one server process on its embedded
SQLite and local files, then one and three processes sharing PostgreSQL, Redis and an S3
bucket behind nginx (docs/deploy.md's reference setup), in the same run.

Every process runs as users run it (``templatekit serve``); PostgreSQL, Redis and nginx
come from Debian's packages and moto's S3 server from PyPI, each started here on
127.0.0.1 (tests/server/services.py). The load is benchmarks/http_server.py's closed
loop: ``--concurrency`` requests in flight (default 16), a new title each, every answer
checked to be a 1200x630 PNG.

    python benchmarks/cluster.py [--seconds 20] [--concurrency 16] [--json out.json]

On one machine all processes share its cores, so the figures show what the shared
services cost per request and that three processes lose nothing to each other; on N
hosts the render capacity is N times one host's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import boto3
from common import ROOT
from http_server import Figures, Server, closed_loop

sys.path.insert(0, str(ROOT))
from tests.server import services  # noqa: E402
from tests.server.conftest import LiveServer, free_port  # noqa: E402

from templatekit_server import accounts, catalog  # noqa: E402

CARD = ROOT / "examples" / "templates" / "social-card.json"
CORES = os.cpu_count() or 1


@contextlib.contextmanager
def shared_services(folder: Path) -> Iterator[dict[str, str]]:
    """PostgreSQL, Redis and an S3 bucket: the environment of every server process."""
    with services.postgres() as database, services.redis(folder) as redis, services.moto_s3(folder) as s3:
        credentials = {"aws_access_key_id": "bench", "aws_secret_access_key": "bench", "region_name": "us-east-1"}
        boto3.client("s3", endpoint_url=s3, **credentials).create_bucket(Bucket="bench")
        yield {
            "TEMPLATEKIT_DATABASE_URL": database,
            "TEMPLATEKIT_RATE_LIMIT_URL": redis,
            "TEMPLATEKIT_STORAGE_URL": "s3://bench/files",
            "TEMPLATEKIT_SECRET": secrets.token_urlsafe(32),
            "AWS_ENDPOINT_URL": s3,
            "AWS_ACCESS_KEY_ID": credentials["aws_access_key_id"],
            "AWS_SECRET_ACCESS_KEY": credentials["aws_secret_access_key"],
            "AWS_DEFAULT_REGION": credentials["region_name"],
        }


@contextlib.contextmanager
def deployment(folder: Path, processes: int, env: dict[str, str], front: bool) -> Iterator[Server]:
    """``processes`` servers (render workers split between them), behind nginx when
    ``front``; a key of a scale workspace and the social card stored."""
    workers = max(1, CORES // processes)
    front_port = free_port()
    shared = {**env, "TEMPLATEKIT_WORKERS": str(workers), "TEMPLATEKIT_PUBLIC_URL": f"http://127.0.0.1:{front_port}"}
    servers = [LiveServer(folder / f"host{n}", dict(shared)) for n in range(processes)]
    threads = []
    for server in servers:
        server.data_dir.mkdir(parents=True)
        threads.append(threading.Thread(target=server.start))
        threads[-1].start()
    for thread in threads:
        thread.join()
    try:
        admin = servers[0]
        account = admin.account("scale")
        accounts.set_rate_limit(admin.db, account.key_id, 10_000_000)
        body = catalog.inline_local_files(json.loads(CARD.read_text()), CARD.parent)
        catalog.save(admin.db, account.workspace, body)
        assert admin.process is not None
        if front:
            upstreams = [f"127.0.0.1:{server.port}" for server in servers]
            with services.nginx(folder / "nginx", upstreams, front_port) as url:
                yield Server(admin.process, url, account.key, admin.log_path or Path(os.devnull))
        else:
            yield Server(admin.process, admin.root, account.key, admin.log_path or Path(os.devnull))
    finally:
        for server in servers:
            server.stop()


def measure(server: Server, concurrency: int, seconds: float) -> Figures:
    asyncio.run(closed_loop(server, concurrency, 2.0, 0.0))  # start the render workers
    return asyncio.run(closed_loop(server, concurrency, 1.0, seconds))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="timed seconds per setup (default 20)")
    parser.add_argument("--concurrency", type=int, default=16, help="requests in flight (default 16)")
    parser.add_argument("--json", type=Path, default=None, help="save the figures here")
    args = parser.parse_args(argv)

    rows: list[tuple[str, Figures]] = []
    with tempfile.TemporaryDirectory(prefix="templatekit-cluster-") as scratch:
        folder = Path(scratch)
        print("1 process, SQLite and local files ...", flush=True)
        with deployment(folder / "alone", 1, {}, front=False) as server:
            rows.append(("1 process, SQLite + local files", measure(server, args.concurrency, args.seconds)))
        with shared_services(folder) as env:
            for processes in (1, 3):
                print(f"{processes} process(es) behind nginx, PostgreSQL + Redis + S3 ...", flush=True)
                with deployment(folder / f"shared{processes}", processes, env, front=True) as server:
                    label = f"{processes} process{'es' if processes > 1 else ''}, PostgreSQL + Redis + S3, nginx"
                    rows.append((label, measure(server, args.concurrency, args.seconds)))

    print(f"\n{'setup':50} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'errors':>7}")
    for label, figures in rows:
        rate = figures.rate or 0.0
        errors = sum(figures.errors.values())
        print(f"{label:50} {rate:7.1f} {figures.median:7.1f} {figures.p99:7.1f} {errors:7}")
    base = rows[0][1].rate or 1.0
    for label, figures in rows[1:]:
        print(f"{label}: {(figures.rate or 0) / base:.2f}x the single process on SQLite")
    if args.json is not None:
        figures_out = [
            {"setup": label, "rate": figures.rate, "p50": figures.median, "p99": figures.p99, "errors": figures.errors}
            for label, figures in rows
        ]
        args.json.write_text(json.dumps({"cores": CORES, "concurrency": args.concurrency, "rows": figures_out}))
    return 0 if all(not figures.errors for _, figures in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
