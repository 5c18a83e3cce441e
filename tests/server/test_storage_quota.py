"""A workspace stores at most its plan's ``storage_bytes``: every kept version of its
templates and its assets. A write that would pass it is BAD_REQUEST naming the quota,
what is stored and what was sent; other workspaces are not affected; concurrent writes
cannot pass it together; deleting an asset frees its bytes at once, deleting a template
frees its versions' when they are forgotten."""

from __future__ import annotations

import base64
import io
import json
import os
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image
from sqlalchemy import inspect, select

from templatekit import Store
from templatekit_server import accounts, assets, catalog, storage, usage
from templatekit_server.db import MIGRATIONS, Database, _version_sizes, template_versions
from templatekit_server.plans import DEFAULT_PLANS, ConfigError, load_plans
from tests.server.conftest import Account, LiveServer, burst, image_template

QUOTA = 1_000_000
PADDING = 180_000  # random bytes in each version's data URI: a version is about 240 KB


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server whose free plan stores 1 MB."""
    root = tmp_path_factory.mktemp("quota")
    config = root / "plans.toml"
    config.write_text(f"[plans.free]\nstorage_bytes = {QUOTA}\n", encoding="utf-8")
    live = LiveServer(root / "data", {"TEMPLATEKIT_CONFIG": str(config)})
    live.data_dir.mkdir(parents=True)
    live.start()
    yield live
    live.stop()


def big_template(template_id: str) -> dict[str, Any]:
    """A template of about 240 KB: a data URI of random bytes inside."""
    src = "data:image/png;base64," + base64.b64encode(os.urandom(PADDING)).decode("ascii")
    return image_template(src, template_id)


def noise_png(side: int) -> bytes:
    """A PNG of random pixels (it does not compress): about 3 * side² bytes."""
    out = io.BytesIO()
    Image.frombytes("RGB", (side, side), os.urandom(3 * side * side)).save(out, "PNG", compress_level=0)
    return out.getvalue()


def stored(server: LiveServer, account: Account) -> int:
    with server.db.read() as connection:
        return storage.used(connection, account.workspace)


def put(client: httpx.Client, server: LiveServer, account: Account, body: dict[str, Any]) -> httpx.Response:
    return client.put(f"{server.api}/templates/{body['id']}", json=body, headers=account.bearer)


def fill(client: httpx.Client, server: LiveServer, account: Account, template_id: str) -> int:
    """Store versions of ``template_id`` until the next would not fit; how many."""
    made = client.post(f"{server.api}/templates", json=big_template(template_id), headers=account.bearer)
    assert made.status_code == 201, made.text
    count = 1
    while stored(server, account) + 250_000 <= QUOTA and count < 10:
        answer = put(client, server, account, big_template(template_id))
        assert answer.status_code == 200, answer.text
        count += 1
    return count


def assert_over_quota(answer: httpx.Response, what: str) -> None:
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "BAD_REQUEST"
    message = error["message"]
    assert message.startswith("storage quota exceeded: the workspace stores ")
    assert f"of the 1.0 MB ({QUOTA:,} bytes) its free plan allows, and {what} is " in message
    assert "delete assets or templates to make room" in message


def sent_size(answer: httpx.Response, what: str) -> int:
    """The size of what was sent, as the refusal names it."""
    found = re.search(rf"{what} is [0-9.]+ [KMG]B \(([0-9,]+) bytes\)", answer.json()["error"]["message"])
    assert found, answer.text
    return int(found.group(1).replace(",", ""))


def test_a_workspace_at_its_quota_is_refused_every_write_and_another_workspace_is_not(server, client):
    full, other = server.account("free"), server.account("free")
    assert fill(client, server, full, "growth") == 4
    before = stored(server, full)

    sent = big_template("growth")
    answer = put(client, server, full, sent)
    assert_over_quota(answer, "this template version")
    assert f"the workspace stores {storage.shown(before)} of the" in answer.json()["error"]["message"]
    assert abs(sent_size(answer, "this template version") - len(json.dumps(sent))) < 500
    created = client.post(f"{server.api}/templates", json=big_template("another"), headers=full.bearer)
    assert_over_quota(created, "this template version")
    reverted = client.post(f"{server.api}/templates/growth/revert", json={"version": 1}, headers=full.bearer)
    assert_over_quota(reverted, "this template version")
    png = noise_png(120)
    upload = client.post(f"{server.api}/assets", content=png, headers={**full.bearer, "Content-Type": "image/png"})
    assert_over_quota(upload, "this asset")
    assert sent_size(upload, "this asset") == len(png)
    assert stored(server, full) == before  # nothing refused was kept
    assert not list((server.data_dir / "files" / "assets").glob(f"{full.workspace}/*"))  # nor its bytes
    versions = client.get(f"{server.api}/templates/growth/versions", headers=full.bearer).json()
    assert [entry["version"] for entry in versions] == [4, 3, 2, 1]
    small = put(client, server, full, image_template("https://example.com/a.png", "growth"))
    assert small.status_code == 200, small.text  # what still fits is stored

    # another workspace of the same plan stores as it would have
    assert fill(client, server, other, "growth") == 4
    png = noise_png(60)
    upload = client.post(f"{server.api}/assets", content=png, headers={**other.bearer, "Content-Type": "image/png"})
    assert upload.status_code == 201, upload.text
    plan = load_plans(Path(server.env["TEMPLATEKIT_CONFIG"]))["free"]
    assert usage.report(server.db, full.workspace, plan)["storage"] == {"used": stored(server, full), "quota": QUOTA}


def test_deleting_an_asset_frees_its_bytes_at_once_and_a_template_when_it_is_forgotten(server, client, monkeypatch):
    account = server.account("free")
    png = noise_png(300)  # about 270 KB
    upload = client.post(f"{server.api}/assets", content=png, headers={**account.bearer, "Content-Type": "image/png"})
    assert upload.status_code == 201, upload.text
    made = client.post(f"{server.api}/templates", json=big_template("first"), headers=account.bearer)
    assert made.status_code == 201, made.text
    assert put(client, server, account, big_template("first")).status_code == 200
    assert put(client, server, account, big_template("first")).status_code == 200
    assert_over_quota(put(client, server, account, big_template("first")), "this template version")

    gone = client.delete(f"{server.api}/assets/{upload.json()['id']}", headers=account.bearer)
    assert gone.status_code == 204
    assert put(client, server, account, big_template("first")).status_code == 200  # in the asset's room
    assert_over_quota(put(client, server, account, big_template("first")), "this template version")

    assert client.delete(f"{server.api}/templates/first", headers=account.bearer).status_code == 204
    second = client.post(f"{server.api}/templates", json=big_template("second"), headers=account.bearer)
    assert_over_quota(second, "this template version")  # its versions are kept for 30 days, and count

    clock = catalog.now()
    monkeypatch.setattr(catalog, "now", lambda: clock + catalog.KEEP_DELETED_SECONDS + 60)
    assert catalog.forget_deleted(server.db) == 1
    assert stored(server, account) == 0
    second = client.post(f"{server.api}/templates", json=big_template("second"), headers=account.bearer)
    assert second.status_code == 201, second.text


def test_concurrent_writes_cannot_pass_the_quota_together(server):
    account = server.account("free")
    body = big_template("burst")
    answers = burst([("POST", f"{server.api}/templates?overwrite=true", body)] * 12, account.bearer)
    with server.db.read() as connection:
        sizes = connection.execute(
            select(template_versions.c.size).where(template_versions.c.workspace_id == account.workspace)
        ).scalars()
        size = set(sizes)
        used = storage.used(connection, account.workspace)
    (one,) = size  # the same body each time
    assert used <= QUOTA
    assert [answer.status_code for answer in answers].count(201) == QUOTA // one == used // one
    for answer in answers:
        if answer.status_code != 201:
            assert_over_quota(answer, "this template version")


class ForgetfulStore(Store):
    """A store whose first put of each file is taken away at once, as a refused upload of
    the same bytes deletes them while another upload is about to list them."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.taken: set[str] = set()

    def put(self, key: str, data: bytes, content_type: str | None = None) -> None:
        super().put(key, data, content_type)
        if key not in self.taken:
            self.taken.add(key)
            self.delete(key)


def test_an_asset_listed_keeps_its_bytes_though_a_refused_upload_of_them_took_them_away(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'assets.db'}")
    files = ForgetfulStore(str(tmp_path / "files"))
    workspace = accounts.create_workspace(db, "studio", "pro", DEFAULT_PLANS)
    png = io.BytesIO()
    Image.new("RGB", (4, 4), "red").save(png, "PNG")
    asset = assets.store(db, files, workspace, png.getvalue(), "image/png", "tester", DEFAULT_PLANS)
    assert files.get(f"{assets.folder(workspace)}/{asset.id}") == png.getvalue()  # put again under the lock
    assets._forget_unlisted(db, files, workspace, asset.id, DEFAULT_PLANS)  # a refused upload of the same bytes
    assert files.exists(f"{assets.folder(workspace)}/{asset.id}")  # listed: kept


# ------------------------------------------------------------------ configuration and schema


def test_the_quota_is_a_plan_field_of_the_configuration(tmp_path):
    assert {name: plan.storage_bytes for name, plan in DEFAULT_PLANS.items()} == {
        "free": 100_000_000,
        "automate": 500_000_000,
        "pro": 5_000_000_000,
        "scale": 50_000_000_000,
    }
    config = tmp_path / "plans.toml"
    config.write_text(
        "[plans.pro]\nstorage_bytes = 1_000\n[plans.big]\nmonthly = 1\ndaily = 1\nrate_per_minute = 1\n"
        "s3_config = false\n",
        encoding="utf-8",
    )
    plans = load_plans(config)
    assert (plans["pro"].storage_bytes, plans["big"].storage_bytes, plans["pro"].daily) == (1_000, 100_000_000, 5_000)
    config.write_text("[plans.free]\nstorage_bytes = -1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"storage_bytes: must be a whole number of at least 0 \(got -1\)"):
        load_plans(config)


def test_versions_stored_before_sizes_were_kept_are_counted_in_bytes(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    made = Database(url)
    workspace = accounts.create_workspace(made, "studio", "free", DEFAULT_PLANS)
    catalog.save(made, workspace, image_template("https://example.com/" + "é" * 1_000 + ".png", "accents"))
    made.close()
    with sqlite3.connect(tmp_path / "old.db") as old:  # as the version before sizes left it
        body = old.execute("SELECT body FROM template_versions").fetchone()[0]
        old.execute("DROP INDEX ix_template_versions_size")
        old.execute("ALTER TABLE template_versions DROP COLUMN size")
        old.execute(f"UPDATE schema_version SET version = {MIGRATIONS.index(_version_sizes)}")
    db = Database(url)
    try:
        with db.read() as connection:
            assert storage.used(connection, workspace) == len(body.encode("utf-8")) > len(body)
        assert "ix_template_versions_size" in {
            index["name"] for index in inspect(db.engine).get_indexes("template_versions")
        }
    finally:
        db.close()
