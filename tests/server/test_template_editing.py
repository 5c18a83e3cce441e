"""Templates over HTTP: create, update to a new version (guarded by If-Match), read the
JSON and the versions back, revert, delete; keys carry scopes."""

from __future__ import annotations

import json
import subprocess
import sys

import httpx
import pytest

from templatekit_server import accounts
from tests.conftest import decode
from tests.server.conftest import Account, text_template

pytestmark = pytest.mark.slow


def writer_and_reader(live) -> tuple[Account, Account]:
    """A key with both scopes, and a render-only key of the same project."""
    writer = live.account()
    key_id, key = accounts.create_key(live.db, live.sealer, writer.project)  # the default: render only
    return writer, Account(writer.workspace, writer.project, key_id, key)


def render_fill(client, live, account, template_id: str) -> tuple[int, int, int]:
    answer = client.post(f"{live.api}/templates/createImage", json={"templateId": template_id}, headers=account.bearer)
    assert answer.status_code == 200, answer.text
    return decode(answer.content).convert("RGB").getpixel((120, 105))


def test_a_template_is_updated_read_back_reverted_and_deleted_over_http(client, live):
    writer, reader = writer_and_reader(live)
    api, headers = live.api, writer.bearer
    created = client.post(f"{api}/templates", json=text_template("edited"), headers=headers)
    assert created.status_code == 201 and created.json() == {"id": "edited"}
    assert render_fill(client, live, reader, "edited") == (255, 0, 0)

    blue = text_template("edited")
    blue["layers"][0]["fill"] = "#0000ff"
    updated = client.put(f"{api}/templates/edited", json=blue, headers={**headers, "If-Match": "1"})
    assert updated.status_code == 200 and updated.json() == {"id": "edited", "version": 2}
    assert render_fill(client, live, reader, "edited") == (0, 0, 255)  # renders use the new version at once

    stale = client.put(f"{api}/templates/edited", json=blue, headers={**headers, "If-Match": "1"})
    assert (stale.status_code, stale.json()["error"]["code"]) == (409, "CONFLICT")
    assert "is at version 2, not 1" in stale.json()["error"]["message"]

    source = client.get(f"{api}/templates/edited/source", headers=reader.bearer)
    assert json.loads(source.content)["layers"][0]["fill"] == "#0000ff"
    first = client.get(f"{api}/templates/edited/source", params={"version": 1}, headers=reader.bearer)
    assert json.loads(first.content)["layers"][0]["fill"] == "#ff0000"

    reverted = client.post(f"{api}/templates/edited/revert", json={"version": 1}, headers=headers)
    assert reverted.status_code == 200 and reverted.json() == {"id": "edited", "version": 3}
    assert render_fill(client, live, reader, "edited") == (255, 0, 0)
    listed = client.get(f"{api}/templates/edited/versions", headers=reader.bearer).json()
    assert [(v["version"], v["note"]) for v in listed] == [(3, "reverted to version 1"), (2, None), (1, None)]
    assert all(v["createdAt"].endswith("Z") for v in listed)

    deleted = client.delete(f"{api}/templates/edited", headers=headers)
    assert deleted.status_code == 204 and deleted.content == b""
    gone = client.post(f"{api}/templates/createImage", json={"templateId": "edited"}, headers=reader.bearer)
    assert (gone.status_code, gone.json()["error"]["code"]) == (404, "NOT_FOUND")
    assert "edited" not in [t["id"] for t in client.get(f"{api}/templates", headers=headers).json()]
    assert client.delete(f"{api}/templates/edited", headers=headers).status_code == 404

    again = client.post(f"{api}/templates", json=text_template("edited"), headers=headers)
    assert again.status_code == 201  # the id is free again; its versions go on from 3
    assert client.get(f"{api}/templates/edited/versions", headers=headers).json()[0]["version"] == 4


def test_a_render_key_cannot_change_templates(client, live):
    writer, reader = writer_and_reader(live)
    live.add_template(writer, text_template("guarded"))
    api = live.api
    for method, path, body in [
        ("POST", "/templates", text_template("other")),
        ("PUT", "/templates/guarded", text_template("guarded")),
        ("POST", "/templates/guarded/revert", {"version": 1}),
        ("DELETE", "/templates/guarded", None),
    ]:
        answer = client.request(method, f"{api}{path}", json=body, headers=reader.bearer)
        assert (answer.status_code, answer.json()["error"]["code"]) == (403, "FORBIDDEN"), (method, path)
        assert "lacks the templates:write scope" in answer.json()["error"]["message"]
    assert render_fill(client, live, reader, "guarded") == (255, 0, 0)  # it may render


def test_bad_updates_name_the_field(client, live):
    writer, _ = writer_and_reader(live)
    live.add_template(writer, text_template("strict"))
    api, headers = live.api, writer.bearer
    for method, path, body, extra, named in [
        ("PUT", "/templates/strict", text_template("elsewhere"), {}, "id: 'elsewhere' differs from the id in the path"),
        ("PUT", "/templates/strict", text_template("strict"), {"If-Match": "soon"}, "If-Match: must be a version"),
        ("PUT", "/templates/strict", text_template("strict"), {"If-Match": 'W/"1"'}, "If-Match: a weak tag cannot"),
        ("PUT", "/templates/missing", text_template("missing"), {}, "template missing does not exist"),
        ("POST", "/templates/strict/revert", {"version": "one"}, {}, "version: must be a version number"),
        ("POST", "/templates/strict/revert", {"version": 9}, {}, "version 9 does not exist"),
    ]:
        answer = client.request(method, f"{api}{path}", json=body, headers={**headers, **extra})
        assert answer.status_code in (400, 404), (path, answer.text)
        assert named in answer.json()["error"]["message"], answer.json()


def test_if_match_star_saves_over_any_version_and_the_etag_guards_an_edit(client, live):
    """``*`` asks only that the template exist (HTTP's meaning); the ETag a read gave back,
    quotes included, is what guards the next edit."""
    writer, _ = writer_and_reader(live)
    live.add_template(writer, text_template("starred"))
    api, headers = live.api, writer.bearer
    card = text_template("starred")
    star = client.put(f"{api}/templates/starred", json=card, headers={**headers, "If-Match": "*"})
    assert star.status_code == 200 and star.json() == {"id": "starred", "version": 2}
    etag = client.get(f"{api}/templates/starred/source", headers=headers).headers["etag"]
    assert etag == '"2"'
    guarded = client.put(f"{api}/templates/starred", json=card, headers={**headers, "If-Match": etag})
    assert guarded.status_code == 200 and guarded.json()["version"] == 3
    elsewhere = text_template("nowhere")
    missing = client.put(f"{api}/templates/nowhere", json=elsewhere, headers={**headers, "If-Match": "*"})
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "NOT_FOUND")


def test_admin_key_create_takes_scopes(tmp_path):
    def admin(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "templatekit.cli", "admin", "--data-dir", str(tmp_path), *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=60)

    workspace = json.loads(admin("workspace", "create", "--name", "Acme").stdout)["id"]
    project = json.loads(admin("project", "create", "--workspace", workspace, "--name", "Web").stdout)["id"]
    plain = json.loads(admin("key", "create", "--project", project).stdout)
    assert plain["scopes"] == ["render"]
    both = admin("key", "create", "--project", project, "--scope", "templates:write", "--scope", "render")
    assert json.loads(both.stdout)["scopes"] == ["render", "templates:write"]
    wrong = admin("key", "create", "--project", project, "--scope", "admin")
    assert wrong.returncode == 1 and "scope 'admin': must be one of render, templates:write" in wrong.stderr


def test_keys_made_before_scopes_keep_what_they_could_do(live, client):
    writer = live.account()
    key_id, key = accounts.create_key(live.db, live.sealer, writer.project)
    with live.db.write() as connection:  # as the migration leaves a key made before scopes
        connection.execute(accounts.api_keys.update().where(accounts.api_keys.c.id == key_id).values(scopes=None))
    old = Account(writer.workspace, writer.project, key_id, key)
    assert client.post(f"{live.api}/templates", json=text_template("old"), headers=old.bearer).status_code == 201
    assert httpx.get(f"{live.api}/templates/old/versions", headers=old.bearer).status_code == 200
