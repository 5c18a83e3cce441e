"""Hooks: another system renders through a secret URL, without a key; the hook's map
turns its JSON into modifications; signatures, rotation, billing and idempotency hold."""

from __future__ import annotations

import hashlib
import hmac
import json
import subprocess
import sys

import httpx
import pytest

from tests.conftest import decode
from tests.server.conftest import text_template, video_template


def admin(live, *args: str) -> dict:
    command = [sys.executable, "-m", "templatekit.cli", "admin", "--data-dir", str(live.data_dir), *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def account(live):
    account = live.account()
    live.add_template(account, text_template("hooked"))
    return account


def hook_path(made: dict) -> str:
    return "/v1/hooks/" + made["url"].rsplit("/", 1)[1]


def test_a_form_post_renders_through_the_map_and_is_billed_once_per_delivery(client, live, account):
    made = admin(
        live, "hook", "create", "--project", account.project, "--template", "hooked",
        "--map", json.dumps({"title": "$.answers.name", "box.fill": "$.answers.colour"}),
    )  # fmt: skip
    assert made["url"].startswith("http") and "secret" not in made
    before = live.used(account)
    form = {"answers": {"name": "Ada Lovelace", "colour": "#00ff00"}, "unused": [1, 2]}
    answer = client.post(f"{live.root}{hook_path(made)}", json=form, headers={"webhook-id": "msg_1"})
    assert answer.status_code == 200, answer.text
    image = decode(client.get(answer.json()["url"]).content).convert("RGB")
    assert image.getpixel((120, 105)) == (0, 255, 0)  # box.fill came from the form
    again = client.post(f"{live.root}{hook_path(made)}", json=form, headers={"webhook-id": "msg_1"})
    assert again.json() == answer.json() and again.headers["idempotent-replayed"] == "true"
    assert live.used(account) == before + 1  # the repeated delivery is not billed
    listed = admin(live, "hook", "list", "--project", account.project)
    assert [h["id"] for h in listed] == [made["id"]] and listed[0]["map"]["title"] == "$.answers.name"


def test_without_a_map_the_body_is_the_modifications_and_the_file_can_be_the_answer(client, live, account):
    made = admin(live, "hook", "create", "--project", account.project, "--template", "hooked", "--respond", "file")
    answer = client.post(f"{live.root}{hook_path(made)}", json={"box": {"fill": "#0000ff"}})
    assert answer.status_code == 200 and answer.headers["content-type"] == "image/png"
    assert decode(answer.content).convert("RGB").getpixel((120, 105)) == (0, 0, 255)


def test_a_signed_hook_needs_the_senders_signature(client, live, account):
    made = admin(
        live, "hook", "create", "--project", account.project, "--template", "hooked",
        "--secret-header", "X-Signature", "--respond", "file",
    )  # fmt: skip
    url = f"{live.root}{hook_path(made)}"
    raw = json.dumps({"title": "Signed"}).encode()
    good = "sha256=" + hmac.new(made["secret"].encode(), raw, hashlib.sha256).hexdigest()
    for headers, named in [({}, "X-Signature: missing"), ({"X-Signature": "sha256=00"}, "does not match")]:
        answer = client.post(url, content=raw, headers={"Content-Type": "application/json", **headers})
        assert (answer.status_code, answer.json()["error"]["code"]) == (401, "UNAUTHORIZED")
        assert named in answer.json()["error"]["message"]
    signed = client.post(url, content=raw, headers={"Content-Type": "application/json", "X-Signature": good})
    assert signed.status_code == 200 and decode(signed.content).size == (240, 120)


def test_rotated_and_deleted_hooks_are_not_found(client, live, account):
    made = admin(live, "hook", "create", "--project", account.project, "--template", "hooked")
    rotated = admin(live, "hook", "rotate", made["id"])
    old = client.post(f"{live.root}{hook_path(made)}", json={})
    assert (old.status_code, old.json()["error"]["code"]) == (404, "NOT_FOUND")
    assert client.post(f"{live.root}{hook_path(rotated)}", json={}).status_code == 200
    admin(live, "hook", "delete", made["id"])
    assert client.post(f"{live.root}{hook_path(rotated)}", json={}).status_code == 404
    assert httpx.post(f"{live.api}/hooks/" + "x" * 43, json={}).status_code == 404


def test_bad_hooks_are_refused_naming_the_option(live, account):
    command = [sys.executable, "-m", "templatekit.cli", "admin", "--data-dir", str(live.data_dir), "hook", "create"]
    command += ["--project", account.project, "--template", "hooked"]
    for extra, named in [
        (["--map", json.dumps({"title": "name"})], "map.title: 'name' is not a path"),
        (["--output", "gif"], "output 'gif': must be one of png, jpeg, webp, pdf, mp4"),
        (["--respond", "email"], "respond 'email': must be one of url, file"),
    ]:
        done = subprocess.run([*command, *extra], capture_output=True, text=True, timeout=60)
        assert done.returncode == 1 and named in done.stderr, done.stderr


def test_a_video_hook_queues_the_video(client, live, account):
    pytest.importorskip("av")
    live.add_template(account, video_template("hooked-clip", seconds=0.5))
    made = admin(live, "hook", "create", "--project", account.project, "--template", "hooked-clip", "--output", "mp4")
    queued = client.post(f"{live.root}{hook_path(made)}", json={})
    assert queued.status_code == 202 and queued.json()["status"] == "queued"
    video = client.get(f"{live.api}/videos/{queued.json()['id']}", params={"stream": "true"}, headers=account.bearer)
    assert "event: done" in video.text
