"""``templatekit edit FILE.json``: the editor on one file, served on loopback with no
database, tested as a user runs it (the command in a process of its own, over HTTP and
in Chromium)."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.conftest import decode, layer, template

CARD = template(
    layer("shape", "band", x=0, y=0, width=400, height=40, fill="#1d4ed8"),
    layer("text", "title", x=10, y=60, width=380, height=50, text="Local file", size=32),
)


class Editing:
    def __init__(self, path: Path) -> None:
        command = [sys.executable, "-m", "templatekit.cli", "edit", str(path), "--no-browser"]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+/editor/#\S+)", line)
        assert found, line + self.process.stderr.read() if self.process.poll() is not None else line
        self.page = found.group(1)
        parts = urlsplit(self.page)
        self.root = f"{parts.scheme}://{parts.netloc}"
        self.token = dict(item.split("=", 1) for item in parts.fragment.split("&"))["key"]
        self.bearer = {"Authorization": f"Bearer {self.token}"}

    def api(self, method: str, path: str, **kwargs: object) -> httpx.Response:
        headers = {**self.bearer, **kwargs.pop("headers", {})}  # type: ignore[dict-item]
        return httpx.request(method, f"{self.root}/v1{path}", headers=headers, timeout=60, **kwargs)  # type: ignore[arg-type]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


@pytest.fixture
def edited(tmp_path: Path) -> Iterator[tuple[Path, Editing]]:
    path = tmp_path / "card.json"
    path.write_text(json.dumps(CARD, indent=2))
    editing = Editing(path)
    yield path, editing
    editing.stop()


def test_saving_writes_the_file_and_keeps_the_session_versions(edited):
    path, editing = edited
    source = editing.api("GET", "/templates/file/source")
    assert source.json() == CARD and source.headers["etag"] == '"1"'
    changed = {**CARD, "name": "Renamed"}
    saved = editing.api("PUT", "/templates/file", json=changed, headers={"If-Match": '"1"'})
    assert saved.json() == {"id": "file", "version": 2}
    assert json.loads(path.read_text()) == changed
    stale = editing.api("PUT", "/templates/file", json=CARD, headers={"If-Match": '"1"'})
    assert stale.status_code == 409 and "not the current version" in stale.json()["error"]["message"]
    invalid = editing.api("PUT", "/templates/file", json={**CARD, "width": 0})
    assert invalid.status_code == 400 and invalid.json()["error"]["problems"][0].startswith("width: ")
    assert json.loads(path.read_text()) == changed  # an invalid template is never written
    reverted = editing.api("POST", "/templates/file/revert", json={"version": 1})
    assert reverted.json()["version"] == 3 and json.loads(path.read_text()) == CARD
    notes = [(v["version"], v["note"]) for v in editing.api("GET", "/templates/file/versions").json()]
    assert notes == [(3, "reverted to version 1"), (2, ""), (1, "as opened")]
    assert not list(path.parent.glob(".card.json.*"))  # no temporary file left behind


def test_try_it_renders_the_saved_file(edited):
    _, editing = edited
    image = editing.api("POST", "/templates/createImage", json={"modifications": {"title": "Tried"}, "format": "jpeg"})
    assert image.headers["content-type"] == "image/jpeg" and decode(image.content).size == (400, 200)
    pdf = editing.api("POST", "/templates/createPdf", json={})
    assert pdf.content.startswith(b"%PDF-")


def test_saving_keeps_the_files_permissions_and_links(tmp_path):
    real = tmp_path / "real.json"
    real.write_text(json.dumps(CARD))
    real.chmod(0o644)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    editing = Editing(link)
    try:
        changed = {**CARD, "name": "Through the link", "id": "tpl_renamed"}
        assert editing.api("PUT", "/templates/file", json=changed).status_code == 200
        assert link.is_symlink() and json.loads(real.read_text())["name"] == "Through the link"
        assert oct(os.stat(real).st_mode & 0o777) == "0o644"
        # the page keeps calling the template by the id it opened it with
        again = editing.api("PUT", "/templates/file", json={**changed, "name": "Again"}, headers={"If-Match": '"2"'})
        assert again.json() == {"id": "file", "version": 3}
        assert [v["version"] for v in editing.api("GET", "/templates/file/versions").json()] == [3, 2, 1]
    finally:
        editing.stop()


def test_a_change_made_on_disk_is_not_overwritten(edited):
    path, editing = edited
    path.write_text(json.dumps({**CARD, "name": "Edited by hand"}))
    refused = editing.api("PUT", "/templates/file", json=CARD)
    assert refused.status_code == 409 and "changed on disk" in refused.json()["error"]["message"]
    assert json.loads(path.read_text())["name"] == "Edited by hand"
    listed = editing.api("GET", "/templates/file/versions").json()
    assert listed[0] == {**listed[0], "version": 2, "note": "changed on disk"}
    reloaded = editing.api("GET", "/templates/file/source")  # a reload picks it up, as a version
    assert reloaded.json()["name"] == "Edited by hand" and reloaded.headers["etag"] == '"2"'
    assert editing.api("PUT", "/templates/file", json=CARD, headers={"If-Match": '"2"'}).status_code == 200


def test_only_the_page_with_the_token_on_loopback_may_call_it(edited):
    _, editing = edited
    no_key = httpx.get(f"{editing.root}/v1/templates")
    assert no_key.status_code == 401
    rebound = httpx.get(f"{editing.root}/v1/templates", headers={**editing.bearer, "Host": "attacker.example"})
    assert rebound.status_code == 403
    assert httpx.get(f"{editing.root}/editor/").status_code == 200  # the page itself holds nothing
    for path in (
        "/editor/../../editing/local.py",
        "/common/%2e%2e/__init__.py",
        "/editor/..%2F..%2F..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd",
        "/editor/%2Fetc%2Fhostname",
        "/editor/..%5C__init__.py",
    ):
        connection = http.client.HTTPConnection(urlsplit(editing.root).netloc, timeout=10)
        connection.request("GET", path)  # sent as written, not normalised by a client
        assert connection.getresponse().status == 404, path
        connection.close()


def test_previews_resolve_paths_next_to_the_file(tmp_path):
    logo = tmp_path / "logo.png"
    from PIL import Image

    Image.new("RGB", (20, 20), "#ff0000").save(logo)
    path = tmp_path / "with-image.json"
    path.write_text(json.dumps(template(layer("image", "logo", x=0, y=0, width=40, height=40, src="logo.png"))))
    editing = Editing(path)
    try:
        drawn = editing.api("POST", "/templates/preview", json={"template": json.loads(path.read_text())})
        assert drawn.status_code == 200
        assert decode(drawn.content).convert("RGB").getpixel((20, 20)) == (255, 0, 0)
    finally:
        editing.stop()


def test_a_new_file_is_made_on_the_first_save(tmp_path):
    path = tmp_path / "new.json"
    editing = Editing(path)
    try:
        blank = editing.api("GET", "/templates/file/source").json()
        assert blank["layers"] == [] and blank["name"] == "new"
        assert not path.exists()
        editing.api("PUT", "/templates/file", json=blank)
        assert json.loads(path.read_text()) == blank
    finally:
        editing.stop()


def test_edit_the_file_in_the_browser(edited, page):
    path, editing = edited
    page.goto(editing.page)
    page.wait_for_selector("#canvas[data-current=true]")
    assert page.is_hidden("#connect")  # connected with the token of the address
    page.click(".layer-row[data-name='title'] .layer-name")
    page.fill("#pane-layer [aria-label='text']", "Edited in the browser")
    page.wait_for_selector("#canvas[data-current=true]")
    page.click("#save")
    page.wait_for_function("document.getElementById('status').textContent.startsWith('saved: version 2')")
    assert json.loads(path.read_text())["layers"][1]["text"] == "Edited in the browser"
