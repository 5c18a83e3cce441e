"""Three server processes behind nginx, sharing PostgreSQL, Redis and an S3 bucket, as
docs/deploy.md sets them up: quotas and rate limits hold across them, any process serves
any video's stream and files, and a process killed mid-video leaves its job to another."""

from __future__ import annotations

import io
import re
import secrets
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

pytestmark = pytest.mark.slow

pytest.importorskip("boto3")

import av
import boto3
import httpx
from PIL import Image

from templatekit_server import accounts, jobs, usage, webhooks
from templatekit_server.bodies import RenderDoneData
from templatekit_server.plans import DEFAULT_PLANS
from tests.conftest import decode
from tests.pdf_readers import rasterise
from tests.server import services
from tests.server.conftest import Account, LiveServer, burst, codes, free_port, text_template, video_template
from tests.server.test_signed_urls import signed_query
from tests.server.test_videos import probe, queue_video, stream_until_done, wait_for
from tests.server.test_webhooks import Receiver, settled

BUCKET = "cluster-files"
CONCURRENT = 50


@dataclass
class Cluster:
    front: str  # nginx
    servers: list[LiveServer]

    @property
    def api(self) -> str:
        return f"{self.front}/v1"

    @property
    def admin(self) -> LiveServer:
        """Any server's database handle: they all share one."""
        return self.servers[0]

    def answered_by(self, path: str) -> Counter[int]:
        """How many requests to ``path`` each server's access log has."""
        return Counter({n: server.log().count(f"templatekit.access: {path}") for n, server in enumerate(self.servers)})


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    folder = tmp_path_factory.mktemp("cluster")
    with services.postgres() as pg, services.redis(folder) as rd, services.moto_s3(folder) as s3_service:
        database, redis, s3 = pg.url, rd.url, s3_service.url
        credentials = {"aws_access_key_id": "cluster", "aws_secret_access_key": "cluster", "region_name": "us-east-1"}
        boto3.client("s3", endpoint_url=s3, **credentials).create_bucket(Bucket=BUCKET)
        env = {
            "TEMPLATEKIT_DATABASE_URL": database,
            "TEMPLATEKIT_RATE_LIMIT_URL": redis,
            "TEMPLATEKIT_STORAGE_URL": f"s3://{BUCKET}/files",
            "TEMPLATEKIT_SECRET": secrets.token_urlsafe(32),
            "TEMPLATEKIT_WORKERS": "1",
            "TEMPLATEKIT_JOB_HEARTBEAT_SECONDS": "0.3",
            "TEMPLATEKIT_JOB_STALE_SECONDS": "2",
            "AWS_ENDPOINT_URL": s3,
            "AWS_ACCESS_KEY_ID": credentials["aws_access_key_id"],
            "AWS_SECRET_ACCESS_KEY": credentials["aws_secret_access_key"],
            "AWS_DEFAULT_REGION": credentials["region_name"],
        }
        front_port = free_port()
        env["TEMPLATEKIT_PUBLIC_URL"] = f"http://127.0.0.1:{front_port}"
        servers = [LiveServer(folder / f"host{n}", dict(env)) for n in range(3)]
        starting = []
        for server in servers:
            server.data_dir.mkdir()
            starting.append(threading.Thread(target=server.start))  # all at once: their migrations race
            starting[-1].start()
        for thread in starting:
            thread.join()
        try:
            upstreams = [f"127.0.0.1:{server.port}" for server in servers]
            with services.nginx(folder / "nginx", upstreams, front_port) as front:
                yield Cluster(front, servers)
        finally:
            for server in servers:
                server.stop()


def account_in(cluster: Cluster, plan: str = "pro") -> Account:
    account = cluster.admin.account(plan)
    cluster.admin.add_template(account, text_template())
    return account


def test_all_three_started_together_on_one_schema(cluster):
    for server in cluster.servers:
        assert httpx.get(f"{server.api}/liveness").json() == {"status": "ok"}
    assert httpx.get(f"{cluster.api}/liveness").status_code == 200


def test_quotas_are_exact_with_the_load_spread_over_three_hosts(cluster):
    account = account_in(cluster)
    plan = DEFAULT_PLANS["pro"]
    usage.reserve(cluster.admin.db, account.workspace, plan, plan.daily - 10, "createImage")
    before = cluster.answered_by("POST /v1/templates/createImage")
    answers = burst(
        [("POST", f"{cluster.api}/templates/createImage", {"templateId": "card"})] * CONCURRENT, account.bearer
    )
    assert codes(answers) == {"OK": 10, "USAGE_EXCEEDED": 40}
    assert cluster.admin.used(account) == plan.daily
    spread = cluster.answered_by("POST /v1/templates/createImage") - before
    assert len(spread) == 3, spread  # every host answered some of them


def test_rate_limits_are_shared_through_redis(cluster):
    account = account_in(cluster)
    accounts.set_rate_limit(cluster.admin.db, account.key_id, 10)
    answers = burst([("GET", f"{cluster.api}/templates/card", None)] * CONCURRENT, account.bearer)
    assert codes(answers) == {"OK": 10, "RATE_LIMITED": 40}


def test_files_and_cached_signed_urls_are_shared(cluster, client):
    account = account_in(cluster)
    stored = client.post(
        f"{cluster.servers[0].api}/templates/createStoredImage", json={"templateId": "card"}, headers=account.bearer
    )
    url = stored.json()["url"]
    assert url.startswith(f"{cluster.api}/files/")
    for server in cluster.servers:  # any host serves the file from the bucket
        assert decode(client.get(url.replace(cluster.front, server.root)).content).size == (240, 120)
    query = signed_query(account.key, templateId="card", modifications='{"title": "Cached once"}')
    first = client.get(f"{cluster.servers[1].api}/templates/signedurl", params=query)
    again = client.get(f"{cluster.servers[2].api}/templates/signedurl", params=query)
    assert first.status_code == again.status_code == 200 and first.content == again.content
    assert cluster.admin.used(account) == 2  # the stored image and one signed-URL render


def test_a_video_started_on_one_host_is_streamed_from_another(cluster, client):
    account = account_in(cluster)
    cluster.admin.add_template(account, video_template("movie", seconds=3, fps=20, size=160))
    video_id = queue_video(client, cluster.servers[0], account, "movie")
    with client.stream(
        "GET", f"{cluster.servers[2].api}/videos/{video_id}", params={"stream": "true"}, headers=account.bearer
    ) as response:
        seen = stream_until_done(response)
    assert seen[-1][0] == "done", seen
    assert any(event == "progress" for event, _ in seen)  # written by the worker on host 0, read on host 2
    done = client.get(f"{cluster.servers[1].api}/videos/{video_id}", headers=account.bearer).json()
    assert probe(client.get(done["url"]).content)[3] == 60
    assert cluster.admin.used(account) == 3


def test_a_host_killed_mid_video_leaves_the_job_to_another_and_it_is_billed_once(cluster, client):
    account = account_in(cluster)
    cluster.admin.add_template(account, video_template("long", seconds=20, fps=30, size=480))
    video_id = queue_video(client, cluster.servers[1], account, "long")
    deadline = time.monotonic() + 60
    while (job := jobs.find(cluster.admin.db, video_id)).frame == 0:  # rendering, and some frames done
        assert time.monotonic() < deadline, job.status
        time.sleep(0.1)
    runners = {re.search(r"video runner (\S+) started", server.log()).group(1): server for server in cluster.servers}
    rendering = runners[job.worker]
    rendering.stop(kill=True)
    assert jobs.find(cluster.admin.db, video_id).status == "rendering"
    deadline = time.monotonic() + 120
    while (job := jobs.find(cluster.admin.db, video_id)).status != "done":
        assert job.status != "failed" and time.monotonic() < deadline, job.status
        time.sleep(0.2)
    assert job.worker != [runner for runner, server in runners.items() if server is rendering][0]
    assert any("queued again" in server.log() for server in cluster.servers if server is not rendering)
    assert cluster.admin.used(account) == 20
    answer = client.get(f"{cluster.api}/videos/{video_id}", headers=account.bearer).json()
    assert probe(client.get(answer["url"]).content)[3] == 600
    rendering.start()  # back for whatever runs next


def test_webhook_deliveries_are_shared_by_the_hosts_and_sent_once(cluster):
    account = account_in(cluster)
    admin = cluster.admin
    # Each answer takes 0.3 s and each delivery has a URL of its own (as a render's
    # webhookUrl), so targets have room for more than one host's senders: with one slow
    # endpoint its two slots in flight, not the hosts, would set the pace.
    with Receiver(answers=[-0.3] * 60) as endpoint:
        with admin.db.write() as connection:
            for n in range(60):
                data = RenderDoneData(url=f"https://example.com/{n}.png", template_id="card", format="png")
                own_url = f"{endpoint.url}&render={n}"
                webhooks.queue(admin.db, connection, admin.sealer, account.project, data, own_url)
        received = endpoint.wait_for(60)
        logged = settled(admin, account.project, 60)
    ids = [headers["webhook-id"] for headers, _ in received]
    assert len(ids) == len(set(ids)) == 60  # none twice
    assert {d["status"] for d in logged} == {"delivered"}
    senders = Counter(d["attempts"][0]["sender"] for d in logged)
    assert len(senders) >= 2, senders  # the hosts took their share


def test_an_asset_uploaded_through_one_host_renders_on_every_host_in_png_pdf_and_video(cluster, client):
    account = account_in(cluster)
    image = io.BytesIO()
    Image.new("RGB", (64, 48), (20, 120, 220)).save(image, "PNG")
    asset = client.post(f"{cluster.servers[0].api}/assets", content=image.getvalue(), headers=account.bearer).json()
    photo = {"type": "image", "name": "photo", "x": 0, "y": 0, "width": 64, "height": 48, "src": asset["src"]}
    still = {"id": "photo", "name": "Photo", "width": 64, "height": 48, "layers": [photo]}
    clip = {**still, "id": "clip", "video": {"duration": 0.5, "fps": 10}}
    for body in (still, clip):
        assert client.post(f"{cluster.api}/templates", json=body, headers=account.bearer).status_code == 201
    for server in cluster.servers:  # each host reads the asset from the bucket
        png = client.post(f"{server.api}/templates/createImage", json={"templateId": "photo"}, headers=account.bearer)
        assert decode(png.content).convert("RGB").getpixel((32, 24)) == (20, 120, 220)
    pdf = client.post(
        f"{cluster.servers[2].api}/templates/createPdf", json={"templateId": "photo"}, headers=account.bearer
    )
    assert rasterise(pdf.content, "pdfium")[0].getpixel((32, 24)) == (20, 120, 220)
    video_id = queue_video(client, cluster.servers[1], account, "clip")
    done = wait_for(client, cluster.servers[1], account, video_id)
    assert done["status"] == "done", done
    with av.open(io.BytesIO(client.get(done["url"]).content)) as movie:
        frame = next(movie.decode(video=0)).to_image().convert("RGB")
    assert all(abs(a - b) <= 12 for a, b in zip(frame.getpixel((32, 24)), (20, 120, 220), strict=True))
