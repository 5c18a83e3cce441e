"""Video jobs over HTTP: waiting, polling, event streams, resuming a stream, billing, and a
server killed in the middle of a render."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Any

import av
import httpx
import pytest
from sqlalchemy import select

from templatekit_server import accounts, jobs
from templatekit_server.db import videos
from tests.conftest import without_modules
from tests.server.conftest import Account, LiveServer, text_template, video_template

pytestmark = pytest.mark.slow


@pytest.fixture
def account(live):
    account = live.account()
    live.add_template(account, video_template())
    return account


def records(lines: Iterator[str]) -> Iterator[tuple[str, Any]]:
    """(event, data) of an SSE stream; comment lines as ("comment", text)."""
    event, data = None, []
    for line in lines:
        if line.startswith(":"):
            yield "comment", line[1:].strip()
        elif line.startswith("event: "):
            event = line[len("event: ") :]
        elif line.startswith("data: "):
            data.append(line[len("data: ") :])
        elif line == "" and event is not None:
            yield event, json.loads("\n".join(data))
            event, data = None, []


def stream_until_done(response: httpx.Response) -> list[tuple[str, Any]]:
    return until_done(records(response.iter_lines()))


def until_done(events: Iterator[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The records up to the last one, ``done`` or ``error``."""
    seen = []
    for event, data in events:
        seen.append((event, data))
        if event in ("done", "error"):
            break
    return seen


def stream_video(
    client: httpx.Client, server: LiveServer, account: Account, template_id: str
) -> AbstractContextManager[httpx.Response]:
    """renderVideo with ?stream=true, as a context manager giving the response."""
    return client.stream(
        "POST",
        f"{server.api}/templates/renderVideo",
        params={"stream": "true"},
        json={"templateId": template_id},
        headers=account.bearer,
    )


def queue_video(client: httpx.Client, server: LiveServer, account: Account, template_id: str) -> str:
    """renderVideo with ?wait=false: the video's id."""
    answer = client.post(
        f"{server.api}/templates/renderVideo",
        params={"wait": "false"},
        json={"templateId": template_id},
        headers=account.bearer,
    )
    assert answer.status_code == 202, answer.text
    return str(answer.json()["id"])


def probe(data: bytes) -> tuple[str, int, int, int, float]:
    with av.open(io.BytesIO(data)) as container:
        stream = container.streams.video[0]
        frames = sum(1 for _ in container.decode(stream))
        return (
            stream.codec_context.name,
            stream.codec_context.width,
            stream.codec_context.height,
            frames,
            stream.average_rate,
        )


def wait_for(client, live, account, video_id, status=("done", "failed"), timeout=120.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = client.get(f"{live.api}/videos/{video_id}", headers=account.bearer).json()
        if answer["status"] in status:
            return answer
        time.sleep(0.2)
    raise AssertionError(f"video {video_id} is still {answer['status']}:\n{live.log()[-4000:]}")


def test_waiting_for_a_video_answers_its_url_and_the_mp4_is_right(client, live, account):
    answer = client.post(f"{live.api}/templates/renderVideo", json={"templateId": "clip"}, headers=account.bearer)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["id"].startswith("vid_") and "/files/videos/" in body["url"] and "expires" not in body["url"]
    video = client.get(body["url"])
    assert video.headers["content-type"] == "video/mp4"
    assert probe(video.content) == ("h264", 96, 96, 10, 10)
    assert live.used(account) == 1  # ceil(1 s)


def test_a_video_is_stored_in_the_format_asked_for_with_its_media_type(client, live, account):
    from PIL import Image

    for output, media_type in (("gif", "image/gif"), ("WebM", "video/webm"), ("webp", "image/webp")):
        body = {"templateId": "clip", "format": output}
        answer = client.post(f"{live.api}/templates/renderVideo", json=body, headers=account.bearer)
        assert answer.status_code == 200, answer.text
        url = answer.json()["url"]
        assert url.split("?")[0].endswith(f".{output.lower()}")
        video = client.get(url)
        assert video.headers["content-type"] == media_type
        if output == "WebM":
            assert probe(video.content) == ("vp9", 96, 96, 10, 10)
        else:
            with Image.open(io.BytesIO(video.content)) as animation:
                assert animation.format == output.upper() and animation.is_animated and animation.size == (96, 96)
    refused = client.post(
        f"{live.api}/templates/renderVideo", json={"templateId": "clip", "format": "avi"}, headers=account.bearer
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["message"] == "format: must be one of mp4, webm, gif, webp (got 'avi')"
    assert live.used(account) == 3


def test_wait_false_answers_at_once_and_the_video_can_be_polled(client, live, account):
    answer = client.post(
        f"{live.api}/templates/renderVideo",
        params={"wait": "false"},
        json={"templateId": "clip", "modifications": {"title": "Polled"}},
        headers=account.bearer,
    )
    assert answer.status_code == 202
    assert answer.json()["status"] == "queued"
    done = wait_for(client, live, account, answer.json()["id"])
    assert done["status"] == "done" and done["progress"] == 1.0 and done["createdAt"].endswith("Z")
    assert probe(client.get(done["url"]).content)[3] == 10


def test_a_stream_reports_created_progress_and_done(client, live, account):
    live.add_template(account, video_template("long", seconds=3, fps=20))
    with stream_video(client, live, account, "long") as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        seen = stream_until_done(response)
    kinds = [event for event, _ in seen]
    assert kinds[0] == "created" and kinds[-1] == "done"
    assert all(data["type"] == event for event, data in seen)
    progress = [data for event, data in seen if event == "progress"]
    shares = [data["progress"] for data in progress]
    assert shares == sorted(shares) and shares[-1] == 1.0
    assert all(data["totalFrames"] == 60 for data in progress)
    assert max(b - a for a, b in zip([0.0, *shares], shares, strict=False)) <= 0.1 + 1e-9  # at least every tenth
    assert probe(client.get(seen[-1][1]["url"]).content)[3] == 60
    assert live.used(account) == 3


def test_a_video_waits_in_line_and_says_how_many_are_ahead(client, live, account):
    live.add_template(account, video_template("slow", seconds=8, fps=30, size=720))
    first, second = (queue_video(client, live, account, "slow") for _ in range(2))
    with stream_video(client, live, account, "clip") as response:
        seen = stream_until_done(response)
    queued = [data["ahead"] for event, data in seen if event == "queued"]
    assert queued and queued[0] >= 1 and queued == sorted(queued, reverse=True)
    assert seen[-1][0] == "done"
    for video_id in (first, second):
        assert wait_for(client, live, account, video_id)["status"] == "done"


def test_a_dropped_stream_resumes_by_id_without_rendering_again(client, live, account):
    live.add_template(account, video_template("resume", seconds=3, fps=30, size=240))
    with stream_video(client, live, account, "resume") as response:
        events = records(response.iter_lines())
        event, created = next(events)
        assert event == "created"
        assert next(event for event, _ in events if event == "progress")
    video_id = created["id"]  # the connection is closed here, mid-render
    with client.stream(
        "GET", f"{live.api}/videos/{video_id}", params={"stream": "true"}, headers=account.bearer
    ) as response:
        seen = stream_until_done(response)
    assert seen[0][0] in ("progress", "done")  # the stream starts from the latest event
    assert seen[-1][0] == "done"
    assert live.used(account) == 3


def test_a_stream_ends_with_an_error_when_its_key_is_revoked(client, live):
    account = live.account()
    live.add_template(account, video_template("revoked", seconds=6, fps=30, size=480))
    with stream_video(client, live, account, "revoked") as response:
        events = records(response.iter_lines())
        assert next(events)[0] == "created"
        accounts.revoke_key(live.db, account.key_id)
        seen = until_done(events)
    event, data = seen[-1]
    assert (event, data["error"]["code"]) == ("error", "BAD_REQUEST"), seen  # renderVideo's word for such a key
    assert "revoked or expired while the stream was open" in data["error"]["message"]
    assert not any(event == "done" for event, _ in seen)


def test_modifications_that_do_not_apply_are_named_in_the_answers_warnings(client, live, account):
    asked = {"templateId": "clip", "modifications": {"nope": 1}, "fromat": "gif"}
    expected = json.dumps(
        [
            "request body: 'fromat': unknown field ignored (did you mean 'format'?)",
            "modifications[0]: no layer named 'nope'; ignored",
        ]
    )
    waited = client.post(f"{live.api}/templates/renderVideo", json=asked, headers=account.bearer)
    queued = client.post(f"{live.api}/templates/renderVideo?wait=false", json=asked, headers=account.bearer)
    assert (waited.status_code, queued.status_code) == (200, 202)
    assert waited.headers["X-Templatekit-Warnings"] == queued.headers["X-Templatekit-Warnings"] == expected
    wait_for(client, live, account, queued.json()["id"])


def test_videos_belong_to_their_project_and_other_workspaces_do_not_see_them(client, live, account):
    """Another project of the workspace is told the video is not its own; another
    workspace is answered as for a video that does not exist, so that an id tells a
    tenant nothing about another's."""
    video_id = queue_video(client, live, account, "clip")
    sibling = live.key_for(accounts.create_project(live.db, account.workspace, "sibling project"))
    forbidden = client.get(f"{live.api}/videos/{video_id}", headers=sibling.bearer)
    assert (forbidden.status_code, forbidden.json()["error"]["code"]) == (403, "FORBIDDEN")
    missing = client.get(f"{live.api}/videos/vid_nothing", headers=account.bearer)
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "NOT_FOUND")
    stranger = client.get(f"{live.api}/videos/{video_id}", headers=live.account().bearer)
    assert (stranger.status_code, stranger.json()["error"]["code"]) == (404, "NOT_FOUND")
    assert stranger.json()["error"]["message"] == f"video {video_id} does not exist"
    wait_for(client, live, account, video_id)


def test_billing_is_whole_seconds_doubled_above_30_fps(client, live, account):
    live.add_template(account, video_template("fast", seconds=1.5, fps=60, size=64))
    answer = client.post(f"{live.api}/templates/renderVideo", json={"templateId": "fast"}, headers=account.bearer)
    assert answer.status_code == 200
    assert live.used(account) == 4  # ceil(1.5) = 2 seconds, doubled at 60 fps


def test_bad_requests_are_answered_before_queuing(client, live, account):
    live.add_template(account, text_template("still"))
    not_video = client.post(f"{live.api}/templates/renderVideo", json={"templateId": "still"}, headers=account.bearer)
    assert not_video.status_code == 400 and "not a video template" in not_video.json()["error"]["message"]
    bad = client.post(
        f"{live.api}/templates/renderVideo",
        json={"templateId": "clip", "modifications": {"box": {"fill": "sparkly"}}},
        headers=account.bearer,
    )
    assert bad.status_code == 400 and "sparkly" in bad.json()["error"]["message"]
    live.add_template(account, video_template("wide", size=4500))  # over 4K: stored, listed, but no video
    too_large = client.post(f"{live.api}/templates/renderVideo", json={"templateId": "wide"}, headers=account.bearer)
    assert too_large.status_code == 400 and "a video is at most 4K" in too_large.json()["error"]["message"]
    listed = client.get(f"{live.api}/templates", params={"includeLayers": "true"}, headers=account.bearer)
    assert listed.status_code == 200 and "wide" in [entry["id"] for entry in listed.json()]
    assert live.used(account) == 0


def test_a_failed_video_reports_its_error_and_is_not_billed(client, live, account, web):
    template = video_template("broken")
    template["layers"].append(
        {"type": "video", "name": "clip", "x": 0, "y": 0, "width": 96, "height": 96, "src": web.url("/no-clip.mp4")}
    )
    live.add_template(account, template)
    with stream_video(client, live, account, "broken") as response:
        seen = stream_until_done(response)
    event, data = seen[-1]
    assert event == "error"
    assert data["error"]["code"] == "FETCH_IMAGE_ERROR" and "no-clip.mp4" in data["error"]["message"]
    assert set(data["error"]) == {"code", "docs", "message", "requestId"}
    waited = client.post(f"{live.api}/templates/renderVideo", json={"templateId": "broken"}, headers=account.bearer)
    assert (waited.status_code, waited.json()["error"]["code"]) == (400, "FETCH_IMAGE_ERROR")
    assert live.used(account) == 0


def test_an_idempotent_repeat_is_the_same_video(client, live, account):
    headers = {**account.bearer, "Idempotency-Key": "video-1"}
    first = client.post(f"{live.api}/templates/renderVideo", json={"templateId": "clip"}, headers=headers)
    again = client.post(f"{live.api}/templates/renderVideo", json={"templateId": "clip"}, headers=headers)
    assert first.json() == again.json()
    assert live.used(account) == 1


# ------------------------------------------------------------------ a server that is killed


@pytest.fixture
def restartable(tmp_path):
    server = LiveServer(
        tmp_path / "data",
        {
            "TEMPLATEKIT_JOB_HEARTBEAT_SECONDS": "0.3",
            # ten heartbeats: on a machine busy with the whole suite a runner's heartbeat
            # can lag a second or more, and a job still rendering must not be taken as lost
            "TEMPLATEKIT_JOB_STALE_SECONDS": "3",
            "TEMPLATEKIT_KEEP_ALIVE_SECONDS": "0.2",
            "TEMPLATEKIT_WORKERS": "1",
        },
    )
    server.data_dir.mkdir(parents=True)
    yield server.start()
    server.stop()


def test_a_server_killed_mid_video_finishes_it_after_a_restart_and_bills_it_once(client, restartable):
    server = restartable
    account = server.account()
    server.add_template(account, video_template("killed", seconds=20, fps=30, size=480))
    with stream_video(client, server, account, "killed") as response:
        events = records(response.iter_lines())
        video_id = next(events)[1]["id"]
        first = next(data for event, data in events if event == "progress")
        assert first["progress"] < 0.5
        server.stop(kill=True)  # SIGKILL, mid-render
    assert jobs.find(server.db, video_id).status == "rendering"  # it was killed before it finished
    server.start()
    done = wait_for(client, server, account, video_id)
    assert done["status"] == "done", server.log()
    assert probe(client.get(done["url"]).content)[3] == 600
    assert server.used(account) == 20
    assert "queued again" in server.log()


def test_keep_alive_comments_flow_while_a_video_waits(client, restartable):
    server = restartable
    account = server.account()
    server.add_template(account, video_template("busy", seconds=6, fps=30, size=720))
    server.add_template(account, video_template())
    queue_video(client, server, account, "busy")
    with stream_video(client, server, account, "clip") as response:
        seen = stream_until_done(response)
    assert ("comment", "keep-alive") in seen
    assert seen[-1][0] == "done"


def closed_streams(server: LiveServer, video_id: str) -> int:
    return server.log().count(f"event stream of {video_id} closed")


def test_with_one_video_worker_another_workspaces_video_goes_before_a_backlog(client, restartable):
    server = restartable
    busy, quiet = server.account(), server.account()
    for account in (busy, quiet):
        server.add_template(account, video_template("turns", seconds=2, fps=10, size=96))
    backlog = [queue_video(client, server, busy, "turns") for _ in range(6)]
    with stream_video(client, server, quiet, "turns") as response:
        seen = stream_until_done(response)
    assert seen[-1][0] == "done", seen
    mine = seen[0][1]["id"]
    ahead = [data["ahead"] for event, data in seen if event == "queued"]
    assert ahead in ([], [0]), ahead  # none of the backlog's waiting videos goes first
    for video_id in backlog:
        wait_for(client, server, busy, video_id)
    with server.db.read() as connection:
        finished = connection.execute(
            select(videos.c.id).where(videos.c.id.in_([*backlog, mine])).order_by(videos.c.finished_at)
        ).all()
    order = [row.id for row in finished]
    assert order.index(mine) <= 2, order  # after what was rendering when it came, and one more at most


def test_a_client_that_goes_away_leaves_no_stream_behind_and_the_video_goes_on(client, live, account):
    live.add_template(account, video_template("left", seconds=12, fps=30, size=480))
    with stream_video(client, live, account, "left") as response:
        events = records(response.iter_lines())
        video_id = next(events)[1]["id"]
        next(event for event, _ in events if event == "progress")
    deadline = time.monotonic() + 10
    while not closed_streams(live, video_id):  # the server noticed: the stream is gone
        assert time.monotonic() < deadline, "the event stream was not closed"
        time.sleep(0.1)
    assert client.get(f"{live.api}/videos/{video_id}", headers=account.bearer).json()["status"] == "rendering"
    assert wait_for(client, live, account, video_id)["status"] == "done"


def test_a_client_that_stops_reading_holds_nothing_once_the_video_is_done(client, live, account):
    live.add_template(account, video_template("stalled", seconds=3, fps=30, size=320))
    with stream_video(client, live, account, "stalled") as response:
        video_id = next(records(response.iter_lines()))[1]["id"]  # then read nothing more
        assert wait_for(client, live, account, video_id)["status"] == "done"
        deadline = time.monotonic() + 10
        while not closed_streams(live, video_id):
            assert time.monotonic() < deadline, "the stream of a finished video is still open"
            time.sleep(0.1)


def test_without_video_packages_render_video_is_refused_before_a_job_exists(client, tmp_path):
    """A server installed without PyAV or OpenCV answers BAD_REQUEST naming the package
    and the extra, never an accepted job that fails later; other renders still work."""
    server = LiveServer(tmp_path / "data", {**without_modules(tmp_path, "cv2"), "TEMPLATEKIT_WORKERS": "1"}).start()
    try:
        account = server.account()
        server.add_template(account, video_template())
        server.add_template(account, text_template())
        answer = client.post(f"{server.api}/templates/renderVideo", json={"templateId": "clip"}, headers=account.bearer)
        assert answer.status_code == 400
        assert answer.json()["error"] == {
            **answer.json()["error"],
            "code": "BAD_REQUEST",
            "message": "renderVideo: video rendering needs opencv-python-headless, which is not installed:"
            ' pip install "templatekit[video]"',
        }
        with server.db.read() as connection:
            assert connection.execute(jobs.videos.select()).all() == []
        assert server.used(account) == 0
        image = client.post(f"{server.api}/templates/createImage", json={"templateId": "card"}, headers=account.bearer)
        assert image.status_code == 200
    finally:
        server.stop()


def test_a_stopped_server_cancels_what_is_in_flight_after_its_grace_and_queues_the_video_again(client, tmp_path):
    """SIGTERM with a video streaming to a client: the server waits TEMPLATEKIT_SHUTDOWN_SECONDS
    for requests in flight, then cancels them and stops, well within the 30 s an
    orchestrator gives; the video goes back to the queue and is billed once when done.
    The video takes several times the grace to render (6 s here against 1 s), so that it
    cannot finish within it."""
    server = LiveServer(tmp_path / "data", {"TEMPLATEKIT_SHUTDOWN_SECONDS": "1", "TEMPLATEKIT_WORKERS": "1"})
    server.data_dir.mkdir(parents=True)
    server.start()
    account = server.account()
    server.add_template(account, video_template("long", seconds=60, fps=30, size=480))
    with stream_video(client, server, account, "long") as response:
        events = records(response.iter_lines())
        video_id = next(events)[1]["id"]
        next(data for event, data in events if event == "progress")
        assert server.process is not None
        started = time.monotonic()
        server.process.terminate()
        server.process.wait(timeout=30)
        stopped = time.monotonic() - started
    assert stopped < 10, stopped
    assert "Traceback" not in server.log(), server.log()
    assert jobs.find(server.db, video_id).status == "queued"
    server.process = None
    server.start()
    try:
        done = wait_for(client, server, account, video_id)
        assert done["status"] == "done", server.log()
        assert server.used(account) == 60
    finally:
        server.stop()
