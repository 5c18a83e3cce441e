"""``templatekit edit FILE.json``: the editor on one file, served on loopback with no
database, answering as the server does, tested as a user runs it (the command in a
process of its own, over HTTP and in Chromium)."""

from __future__ import annotations

import http.client
import json
import os
import re
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import url2pathname

import httpx
import pytest

from templatekit.assets.files import NOT_HERE
from templatekit.web import page_headers
from templatekit_server.bodies import PreviewRequest
from templatekit_server.errors import ApiError
from templatekit_server.inputs import read_as
from templatekit_server.openapi import document
from tests.conftest import decode, layer, template

pytestmark = pytest.mark.slow

CARD = template(
    layer("shape", "band", x=0, y=0, width=400, height=40, fill="#1d4ed8"),
    layer("text", "title", x=10, y=60, width=380, height=50, text="Local file", size=32),
)


class Editing:
    """``templatekit edit path *options``; with ``browser``, the command that opens the
    browser (else ``--no-browser``)."""

    def __init__(self, path: Path, *options: str, browser: Path | None = None) -> None:
        command = [sys.executable, "-m", "templatekit.cli", "edit", str(path), *options]
        command += [] if browser else ["--no-browser"]
        env = {**os.environ, "BROWSER": str(browser)} if browser else None
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
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
    assert (
        stale.status_code == 409
        and stale.json()["error"]["message"] == "template file is at version 2, not 1 (If-Match)"
    )
    assert stale.json()["error"]["requestId"] == stale.headers["x-request-id"]
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
    image = editing.api(
        "POST",
        "/templates/createImage",
        json={"templateId": "file", "modifications": {"title": "Tried"}, "format": "jpeg"},
    )
    assert image.headers["content-type"] == "image/jpeg" and decode(image.content).size == (400, 200)
    pdf = editing.api("POST", "/templates/createPdf", json={"templateId": "file"})
    assert pdf.content.startswith(b"%PDF-")


def test_saving_keeps_the_files_permissions_and_links(tmp_path):
    real = tmp_path / "real.json"
    real.write_text(json.dumps(CARD))
    real.chmod(0o644)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    editing = Editing(link)
    try:
        changed = {**CARD, "name": "Through the link"}
        assert editing.api("PUT", "/templates/file", json=changed).status_code == 200
        assert link.is_symlink() and json.loads(real.read_text())["name"] == "Through the link"
        assert oct(os.stat(real).st_mode & 0o777) == "0o644"
        # as on the server, the id is the path's: another is refused, the file's "file" is not written
        renamed = editing.api("PUT", "/templates/file", json={**changed, "id": "tpl_renamed"})
        assert renamed.status_code == 400 and "differs from the id in the path" in renamed.json()["error"]["message"]
        again = editing.api(
            "PUT", "/templates/file", json={**changed, "name": "Again", "id": "file"}, headers={"If-Match": '"2"'}
        )
        assert again.json() == {"id": "file", "version": 3}
        assert [v["version"] for v in editing.api("GET", "/templates/file/versions").json()] == [3, 2, 1]
        assert "id" not in json.loads(real.read_text())
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
        source = editing.api("GET", "/templates/file/source")
        blank = source.json()
        assert blank["layers"] == [] and blank["name"] == "new"
        assert not path.exists()
        # the blank design is not a version of the file: the first save is version 1
        assert source.headers["ETag"] == '"0"' and editing.api("GET", "/templates/file/versions").json() == []
        assert editing.api("PUT", "/templates/file", json=blank).json() == {"id": "file", "version": 1}
        assert json.loads(path.read_text()) == blank
        assert [v["version"] for v in editing.api("GET", "/templates/file/versions").json()] == [1]
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
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('saved: version 2')")
    assert json.loads(path.read_text())["layers"][1]["text"] == "Edited in the browser"


def test_the_browser_is_opened_on_a_file_only_this_user_can_read_never_on_the_token(edited, tmp_path, page):
    path, _ = edited
    recorded = tmp_path / "browser-arguments"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {recorded}.part && mv {recorded}.part {recorded}\n')
    browser.chmod(0o755)
    editing = Editing(path, browser=browser)
    try:
        deadline = time.monotonic() + 30
        while not recorded.exists():
            assert time.monotonic() < deadline and editing.process.poll() is None
            time.sleep(0.05)
        arguments = recorded.read_text().split()
        # what every user of the machine reads in /proc/PID/cmdline of the browser
        assert len(arguments) == 1 and editing.token not in arguments[0]
        opener = Path(url2pathname(urlsplit(arguments[0]).path))
        assert arguments[0] == opener.as_uri() and opener.name == "open.html"
        assert (stat.S_IMODE(opener.stat().st_mode), stat.S_IMODE(opener.parent.stat().st_mode)) == (0o600, 0o700)
        assert opener.stat().st_uid == os.getuid() == opener.parent.stat().st_uid
        page.goto(arguments[0])  # the file sends the browser on to the editor, signed in
        page.wait_for_selector("#canvas[data-current=true]")
        assert page.url.startswith(f"{editing.root}/editor/#key=") and page.is_hidden("#connect")
    finally:
        editing.stop()
    assert not opener.parent.exists()  # gone with the editor


def test_images_are_read_from_the_files_folder_and_the_folders_allowed_only(tmp_path):
    from PIL import Image

    for folder in ("work", "outside", "shared"):
        (tmp_path / folder).mkdir()
    secret = tmp_path / "outside" / "secret.png"
    Image.new("RGB", (20, 20), "#ff0000").save(secret)
    secret.chmod(0o600)
    Image.new("RGB", (20, 20), "#00ff00").save(tmp_path / "shared" / "photo.png")
    path = tmp_path / "work" / "card.json"
    path.write_text(json.dumps(CARD))

    def preview(editing: Editing, src: str) -> httpx.Response:
        image = layer("image", "photo", x=0, y=0, width=40, height=40, src=src)
        return editing.api("POST", "/templates/preview", json={"template": template(image)})

    editing = Editing(path)
    try:
        for src in ("../outside/secret.png", str(secret), secret.as_uri(), "../outside/missing.png", "/dev/zero"):
            refused = preview(editing, src)
            assert refused.status_code == 400, src
            assert refused.json()["error"]["message"] == f"layer 'photo': cannot fetch {src}: {NOT_HERE}"
        assert preview(editing, "../shared/photo.png").status_code == 400
        for src in ("a\x00b.png", "file:///tmp/a%00b.png"):
            refused = preview(editing, src)
            assert refused.status_code == 400 and "NUL" in refused.json()["error"]["message"]
        connection = http.client.HTTPConnection(urlsplit(editing.root).netloc, timeout=10)
        connection.request("GET", "/editor/a%00b.js")
        assert connection.getresponse().status == 400
        connection.close()
    finally:
        editing.stop()
    allowed = Editing(path, "--allow-files", str(tmp_path / "shared"))
    try:
        drawn = preview(allowed, "../shared/photo.png")
        assert drawn.status_code == 200 and decode(drawn.content).convert("RGB").getpixel((20, 20)) == (0, 255, 0)
        assert preview(allowed, "../outside/secret.png").status_code == 400
    finally:
        allowed.stop()


def test_every_answer_carries_the_pages_security_headers(edited):
    _, editing = edited
    for path, status in (("/editor/", 200), ("/editor/main.js", 200), ("/common/api.js", 200), ("/editor/x.js", 404)):
        answer = httpx.get(f"{editing.root}{path}")
        assert answer.status_code == status
        assert {name: answer.headers.get(name) for name in page_headers()} == page_headers(), path
    api = editing.api("GET", "/templates")
    assert {name: api.headers.get(name) for name in page_headers()} == page_headers()


def test_its_openapi_document_is_the_servers(edited):
    _, editing = edited
    assert editing.api("GET", "/openapi.json").json() == json.loads(json.dumps(document()))


@pytest.mark.parametrize("wrong", [{"format": "tiff"}, {"thumbnail": "yes"}, {"scale": "big"}])
def test_previews_are_read_as_the_server_reads_them(edited, wrong):
    _, editing = edited
    body = {"template": CARD, **wrong}
    with pytest.raises(ApiError) as refused_here:
        read_as(PreviewRequest, body, 20_000)
    refused = editing.api("POST", "/templates/preview", json=body)
    error = refused.json()["error"]
    assert refused.status_code == 400 and error["code"] == "BAD_REQUEST"
    assert error["message"] == refused_here.value.message
    assert error["requestId"].startswith("req_") and error["requestId"] == refused.headers["x-request-id"]


def test_an_upload_is_kept_beside_the_file_and_rendered_without_a_server(edited, tmp_path):
    path, editing = edited
    from PIL import Image

    picture = tmp_path / "source.png"
    Image.new("RGB", (30, 20), (20, 120, 220)).save(picture)
    uploaded = editing.api("POST", "/assets", content=picture.read_bytes(), headers={"Content-Type": "image/png"})
    assert uploaded.status_code == 201, uploaded.text
    asset = uploaded.json()
    assert asset["src"] == f"assets/{asset['id']}.png" and (asset["width"], asset["height"]) == (30, 20)
    assert (path.parent / asset["src"]).read_bytes() == picture.read_bytes()  # a file beside the template
    body = json.loads(path.read_text())
    body["layers"].append(layer("image", "photo", x=0, y=0, width=30, height=20, src=asset["src"]))
    assert editing.api("PUT", "/templates/file", json=body).status_code == 200
    out = tmp_path / "out.png"
    done = subprocess.run([sys.executable, "-m", "templatekit.cli", "render", str(path), "-o", str(out)], check=False)
    assert done.returncode == 0 and decode(out.read_bytes()).convert("RGB").getpixel((15, 10)) == (20, 120, 220)
    refused = editing.api("POST", "/assets", content=b"not a picture at all", headers={"Content-Type": "image/png"})
    assert refused.status_code == 400 and "it is text" in refused.json()["error"]["message"]
