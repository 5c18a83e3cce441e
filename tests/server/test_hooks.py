"""Hooks: another system renders through a secret URL, without a key; the hook's map
turns its JSON into modifications; signatures, rotation, billing and idempotency hold;
a request signed as Standard Webhooks sign cannot be replayed to be billed again; a map
cannot fan a small body out into a million rows."""

from __future__ import annotations

import hashlib
import hmac
import json
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import select, update
from standardwebhooks import Webhook

from templatekit.model.checks import MAX_ROWS
from templatekit_server import hooks, idempotency
from templatekit_server.db import MIGRATIONS, Database, _hook_signatures
from templatekit_server.db import hooks as hooks_table
from templatekit_server.db import idempotency as idempotency_table
from templatekit_server.errors import ApiError
from tests.conftest import decode
from tests.server.conftest import text_template, video_template

pytestmark = pytest.mark.slow


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
    assert made["url"].startswith("http") and "secret" not in made and "warning" not in made
    before = live.used(account)
    form = {"answers": {"name": "Ada Lovelace", "colour": "#00ff00"}, "unused": [1, 2]}
    answer = client.post(f"{live.root}{hook_path(made)}", json=form, headers={"webhook-id": "msg_1"})
    assert answer.status_code == 200, answer.text
    image = decode(client.get(answer.json()["url"]).content).convert("RGB")
    assert image.getpixel((120, 105)) == (0, 255, 0)  # box.fill came from the form
    again = client.post(f"{live.root}{hook_path(made)}", json=form, headers={"webhook-id": "msg_1"})
    assert again.json() == answer.json() and again.headers["idempotent-replayed"] == "true"
    too_long = client.post(f"{live.root}{hook_path(made)}", json=form, headers={"webhook-id": "m" * 300})
    assert too_long.status_code == 400 and too_long.json()["error"]["message"].startswith("webhook-id: 1 to 255")
    assert live.used(account) == before + 1  # the repeated delivery is not billed
    listed = admin(live, "hook", "list", "--project", account.project)
    assert [h["id"] for h in listed] == [made["id"]] and listed[0]["map"]["title"] == "$.answers.name"
    early = admin(live, "hook", "create", "--project", account.project, "--template", "tpl_not_yet")
    assert early["warning"] == "template tpl_not_yet does not exist yet: the hook answers NOT_FOUND until it is stored"


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
        (["--output", "avi"], "output 'avi': must be one of png, jpeg, webp, pdf, mp4, webm, gif"),
        (["--respond", "email"], "respond 'email': must be one of url, file"),
        (["--output", "mp4"], "output 'mp4': template hooked is not a video template (it has no video field); its"),
        (["--output", "gif"], "output 'gif': template hooked is not a video template"),
        (["--map", "{bad"], "--map: not valid JSON (Expecting property name enclosed in double quotes"),
    ]:
        done = subprocess.run([*command, *extra], capture_output=True, text=True, timeout=60)
        assert done.returncode == 1 and named in done.stderr, done.stderr


def test_a_video_hook_of_a_template_not_stored_yet_is_made_with_a_warning(live, account):
    other = live.account()
    live.add_template(other, text_template("elsewhere"))  # a still template, of another workspace
    made = admin(live, "hook", "create", "--project", account.project, "--template", "elsewhere", "--output", "mp4")
    assert made["output"] == "mp4"
    assert made["warning"] == ("template elsewhere does not exist yet: the hook answers NOT_FOUND until it is stored")


def test_a_video_hook_queues_the_video(client, live, account):
    pytest.importorskip("av")
    live.add_template(account, video_template("hooked-clip", seconds=0.5))
    made = admin(live, "hook", "create", "--project", account.project, "--template", "hooked-clip", "--output", "mp4")
    queued = client.post(f"{live.root}{hook_path(made)}", json={})
    assert queued.status_code == 202 and queued.json()["status"] == "queued"
    video = client.get(f"{live.api}/videos/{queued.json()['id']}", params={"stream": "true"}, headers=account.bearer)
    assert "event: done" in video.text
    as_gif = admin(live, "hook", "create", "--project", account.project, "--template", "hooked-clip", "--output", "gif")
    queued = client.post(f"{live.root}{hook_path(as_gif)}", json={})
    streamed = client.get(f"{live.api}/videos/{queued.json()['id']}", params={"stream": "true"}, headers=account.bearer)
    url = json.loads(streamed.text.split("event: done\ndata: ", 1)[1].split("\n", 1)[0])["url"]
    assert client.get(url).headers["content-type"] == "image/gif"


def signed_as_standard_webhooks(secret: str, message_id: str, raw: bytes, at: datetime | None = None) -> dict:
    """The headers a Standard Webhooks sender sends, signed by the scheme's own library."""
    at = at or datetime.now(UTC)
    signature = Webhook(secret).sign(message_id, at, raw.decode())
    return {
        "Content-Type": "application/json",
        "webhook-id": message_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": signature,
    }


def standard_webhooks_hook(live, account, *extra: str) -> dict:
    made = admin(
        live, "hook", "create", "--project", account.project, "--template", "hooked",
        "--signature", "standard-webhooks", *extra,
    )  # fmt: skip
    assert made["signature"] == "standard-webhooks" and made["secret"].startswith("whsec_")
    return made


def refused(answer: httpx.Response, named: str) -> None:
    assert (answer.status_code, answer.json()["error"]["code"]) == (401, "UNAUTHORIZED"), answer.text
    assert named in answer.json()["error"]["message"]


def test_a_captured_standard_webhooks_request_is_answered_again_and_never_billed_again(client, live, account):
    made = standard_webhooks_hook(live, account)
    url = f"{live.root}{hook_path(made)}"
    raw = json.dumps({"title": "Order 1"}).encode()
    captured = signed_as_standard_webhooks(made["secret"], "msg_order_1", raw)
    before = live.used(account)
    first = client.post(url, content=raw, headers=captured)
    assert first.status_code == 200, first.text
    assert live.used(account) == before + 1
    for _ in range(3):  # the same request again, as captured
        again = client.post(url, content=raw, headers=captured)
        assert again.json() == first.json() and again.headers["idempotent-replayed"] == "true"
    # an unsigned Idempotency-Key does not make it a new request
    keyed = client.post(url, content=raw, headers={**captured, "Idempotency-Key": "fresh"})
    assert keyed.json() == first.json() and keyed.headers["idempotent-replayed"] == "true"
    # the sender retrying later signs the same id with a new timestamp: the same answer
    later = datetime.now(UTC) + timedelta(seconds=90)
    retried = client.post(
        url, content=raw, headers=signed_as_standard_webhooks(made["secret"], "msg_order_1", raw, later)
    )
    assert retried.json() == first.json() and retried.headers["idempotent-replayed"] == "true"
    # what an attacker can change is signed
    refused(client.post(url, content=raw, headers={**captured, "webhook-id": "msg_new"}), "webhook-signature")
    changed = json.dumps({"title": "Order 2"}).encode()
    refused(client.post(url, content=changed, headers=captured), "no v1 signature matches")
    stamped = {**captured, "webhook-timestamp": str(int(time.time()) + 1)}
    refused(client.post(url, content=raw, headers=stamped), "webhook-signature")
    assert live.used(account) == before + 1  # one render billed for seven requests


def test_a_standard_webhooks_timestamp_must_be_within_five_minutes(client, live, account):
    made = standard_webhooks_hook(live, account)
    url = f"{live.root}{hook_path(made)}"
    raw = json.dumps({"title": "Late"}).encode()
    before = live.used(account)
    now = datetime.now(UTC)
    for moved in (timedelta(minutes=-6), timedelta(minutes=6), timedelta(days=-2)):
        headers = signed_as_standard_webhooks(made["secret"], f"msg_{moved.total_seconds():.0f}", raw, now + moved)
        refused(client.post(url, content=raw, headers=headers), "more than the 5 minutes allowed")
    for headers, named in [
        ({"Content-Type": "application/json"}, "webhook-id, webhook-timestamp, webhook-signature: missing"),
        ({**signed_as_standard_webhooks(made["secret"], "msg_x", raw), "webhook-timestamp": "soon"}, "Unix seconds"),
    ]:
        refused(client.post(url, content=raw, headers=headers), named)
    assert live.used(account) == before


def test_a_standard_webhooks_sender_may_send_several_signatures_while_it_changes_secrets(client, live, account):
    made = standard_webhooks_hook(live, account, "--respond", "file")
    url = f"{live.root}{hook_path(made)}"
    raw = json.dumps({"title": "Two keys"}).encode()
    headers = signed_as_standard_webhooks(made["secret"], "msg_two", raw)
    other = Webhook("whsec_" + "QUJD" * 8).sign("msg_two", datetime.now(UTC), raw.decode())
    answer = client.post(
        url, content=raw, headers={**headers, "webhook-signature": f"{other} v1a,xyz {headers['webhook-signature']}"}
    )
    assert answer.status_code == 200 and decode(answer.content).size == (240, 120)
    refused(client.post(url, content=raw, headers={**headers, "webhook-signature": other}), "no v1 signature matches")


def test_signed_ids_are_remembered_a_day_and_then_forgotten_by_housekeeping(client, live, account):
    made = standard_webhooks_hook(live, account)
    raw = b"{}"
    answer = client.post(
        f"{live.root}{hook_path(made)}",
        content=raw,
        headers=signed_as_standard_webhooks(made["secret"], "msg_day", raw),
    )
    assert answer.status_code == 200, answer.text
    row = (idempotency_table.c.key_id == made["id"]) & (idempotency_table.c.idempotency_key == "msg_day")
    with live.db.read() as connection:
        assert connection.execute(select(idempotency_table.c.state).where(row)).scalar() == "done"
    idempotency.forget_expired(live.db)  # what housekeeping does
    with live.db.write() as connection:
        assert connection.execute(select(idempotency_table.c.state).where(row)).scalar() == "done"
        connection.execute(
            update(idempotency_table).where(row).values(created_at=time.time() - idempotency.LIFETIME - 1)
        )
    idempotency.forget_expired(live.db)
    with live.db.read() as connection:
        assert connection.execute(select(idempotency_table.c.state).where(row)).first() is None


def test_list_shows_how_a_hook_is_signed_and_rotate_gives_a_new_secret_of_the_same_kind(client, live, account):
    account = live.account()
    live.add_template(account, text_template("hooked"))
    standard = standard_webhooks_hook(live, account)
    body = admin(
        live, "hook", "create", "--project", account.project, "--template", "hooked", "--secret-header", "X-Signature"
    )
    plain = admin(live, "hook", "create", "--project", account.project, "--template", "hooked")
    listed = {hook["id"]: hook for hook in admin(live, "hook", "list", "--project", account.project)}
    assert [listed[made["id"]]["signature"] for made in (standard, body, plain)] == ["standard-webhooks", "body", None]
    assert listed[body["id"]]["secretHeader"] == "X-Signature" and "secret" not in listed[standard["id"]]
    rotated = admin(live, "hook", "rotate", standard["id"])
    assert rotated["secret"].startswith("whsec_") and rotated["secret"] != standard["secret"]
    assert not admin(live, "hook", "rotate", body["id"])["secret"].startswith("whsec_")
    assert "secret" not in admin(live, "hook", "rotate", plain["id"])
    raw = b"{}"
    url = f"{live.root}{hook_path(rotated)}"
    refused(
        client.post(url, content=raw, headers=signed_as_standard_webhooks(standard["secret"], "msg_r", raw)), "no v1"
    )
    assert (
        client.post(url, content=raw, headers=signed_as_standard_webhooks(rotated["secret"], "msg_r", raw)).status_code
        == 200
    )


def test_a_hook_is_signed_one_way(live, account):
    command = [sys.executable, "-m", "templatekit.cli", "admin", "--data-dir", str(live.data_dir), "hook", "create"]
    command += ["--project", account.project, "--template", "hooked", "--signature", "standard-webhooks"]
    done = subprocess.run([*command, "--secret-header", "X-Sig"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "either in a secret header or as Standard Webhooks sign" in done.stderr


def test_hooks_signed_before_the_signature_column_are_body_signed(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    Database(url).close()
    with sqlite3.connect(tmp_path / "old.db") as old:  # as the previous version left it
        old.execute("ALTER TABLE hooks DROP COLUMN signature")
        old.execute("INSERT INTO projects (id, workspace_id, name, created_at) VALUES ('p', 'w', 'p', 0)")
        for hook_id, header in [("signed", "'X-Sig'"), ("open", "NULL")]:
            old.execute(
                "INSERT INTO hooks (id, project_id, template_id, output, token_sha256, secret_header, respond,"
                f" created_at) VALUES ('{hook_id}', 'p', 't', 'png', '{hook_id}', {header}, 'url', 0)"
            )
        old.execute(f"UPDATE schema_version SET version = {MIGRATIONS.index(_hook_signatures)}")
    db = Database(url)
    try:
        with db.read() as connection:
            found = dict(connection.execute(select(hooks_table.c.id, hooks_table.c.signature)).all())
        assert found == {"signed": "body", "open": None}
    finally:
        db.close()


# ------------------------------------------------------------------ fan-out


def test_a_map_gives_at_most_a_tables_rows_counted_before_any_is_built():
    many = {"lines": [{"sku": n} for n in range(MAX_ROWS + 1)], "fit": [1] * MAX_ROWS}
    assert len(hooks.modifications(many, {"items": "$.fit[*]"})["items"]) == MAX_ROWS
    for path in ("$.lines[*]", "$.lines", "$.lines[*].sku"):
        with pytest.raises(ApiError) as refused:
            hooks.modifications(many, {"items": path})
        assert refused.value.message == f"map.items: {path} gives 10,001 rows, more than the 10,000 a table takes"
    sparse = {"lines": [{"sku": 1}] + [{}] * MAX_ROWS}  # only the items that have the path count
    assert hooks.modifications(sparse, {"items": "$.lines[*].sku"}) == {"items": [1]}


def test_a_hook_fanning_a_small_body_out_into_a_million_rows_is_refused_at_once(client, live, account):
    table = {"type": "table", "name": "items", "x": 0, "y": 0, "width": 200, "height": 60, "rows": [{"a": 1}]}
    template = text_template("hooked-table")
    template["layers"].append(table)
    live.add_template(account, template)
    made = admin(
        live, "hook", "create", "--project", account.project, "--template", "hooked-table",
        "--map", json.dumps({"items": "$.lines[*]"}),
    )  # fmt: skip
    raw = ('{"lines":[' + ",".join(["1"] * 200_000) + "]}").encode()  # 400 kB, within a body's 250,000 values
    before = live.used(account)
    started = time.monotonic()
    answer = client.post(f"{live.root}{hook_path(made)}", content=raw, headers={"Content-Type": "application/json"})
    took = time.monotonic() - started
    assert (answer.status_code, answer.json()["error"]["code"]) == (400, "BAD_REQUEST")
    expected = "map.items: $.lines[*] gives 200,000 rows, more than the 10,000 a table takes"
    assert answer.json()["error"]["message"] == expected
    assert len(answer.content) < 1_000 and took < 10, (len(answer.content), took)  # was 81.7 MB after 27 s
    assert live.used(account) == before
