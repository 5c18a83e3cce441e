"""``GET /templates?includeLayers=true`` of templates holding megabytes of data URIs: the
answer is as the contract says (each layer's ``suggestInput`` whole), but the server makes
it a chunk at a time in a thread and streams it, so that its memory does not grow with
the answer and its event loop never writes the JSON."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from templatekit_server import accounts, catalog
from templatekit_server.app import create_app
from templatekit_server.plans import DEFAULT_PLANS
from templatekit_server.sealing import Sealer, server_secret
from templatekit_server.settings import Settings
from tests.server.conftest import Account, LiveServer, text_template

FEW, MANY = 6, 24  # templates in two workspaces: answers of 24 and 96 MB
URI_BYTES = 3_000_000  # a data URI of 4 MB in each template


def heavy_template(template_id: str) -> dict[str, Any]:
    """A template with a 4 MB data URI in an image layer, and a few text layers."""
    src = "data:image/png;base64," + base64.b64encode(os.urandom(URI_BYTES)).decode("ascii")
    layers: list[dict[str, Any]] = [
        {"type": "image", "name": "photo", "x": 0, "y": 0, "width": 10, "height": 10, "src": src, "visible": False}
    ]
    layers += [
        {"type": "text", "name": f"line {n}", "x": 0, "y": n, "width": 100, "height": 10, "text": f"text {n}"}
        for n in range(20)
    ]
    return {"id": template_id, "name": template_id, "width": 100, "height": 100, "layers": layers}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("listing") / "data", {"TEMPLATEKIT_WORKERS": "1"})
    live.data_dir.mkdir(parents=True)
    live.start()
    yield live
    live.stop()


def memory(pid: int) -> dict[str, int]:
    """The process's resident and peak resident kB."""
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return {line.split(":")[0]: int(line.split()[1]) for line in lines if line.startswith(("VmRSS", "VmHWM"))}


def listed_with_peak(server: LiveServer, client: httpx.Client, account: Account) -> tuple[bytes, float]:
    """The answer of a listing with layers, and by how many MB the server's peak resident
    memory passed what it held before."""
    assert server.process is not None
    pid = server.process.pid
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # the peak, from now on
    before = memory(pid)["VmRSS"]
    received = bytearray()
    with client.stream("GET", f"{server.api}/templates?includeLayers=true", headers=account.bearer) as answer:
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "application/json"
        for chunk in answer.iter_bytes():
            received += chunk
    return bytes(received), (memory(pid)["VmHWM"] - before) / 1024


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux's peak-memory reset")
def test_a_listing_with_layers_of_large_templates_does_not_grow_the_server_with_its_size(server):
    few, many, light = server.account(), server.account(), server.account()
    sources = {}
    for account, count in ((few, FEW), (many, MANY)):
        for n in range(count):
            body = heavy_template(f"heavy{n}")
            sources[account.workspace, body["id"]] = body["layers"][0]["src"]
            server.add_template(account, body)
    server.add_template(light, text_template("card"))
    with httpx.Client(timeout=120) as client:
        warm = client.get(f"{server.api}/templates?includeLayers=true", headers=light.bearer)  # every path loaded
        assert warm.status_code == 200 and warm.json()[0]["id"] == "card"
        _, grown_few = listed_with_peak(server, client, few)
        received, grown_many = listed_with_peak(server, client, many)

    listed = json.loads(received)
    size_mb = len(received) / 1e6
    assert size_mb > 4 * MANY  # the answer is whole: every data URI, as GET /templates/{id} gives it
    assert [entry["id"] for entry in listed] == [f"heavy{n}" for n in range(MANY)]
    for entry in listed:
        assert set(entry) == {"id", "name", "width", "height", "kind", "layers"}
        assert (entry["width"], entry["height"], entry["kind"]) == (100, 100, "image")
        assert len(entry["layers"]) == 21
        assert entry["layers"][0]["suggestInput"] == sources[many.workspace, entry["id"]]
        assert entry["layers"][5]["suggestInput"] == "text 4"
    # the whole answer held at once (as a list, then as JSON text, then as bytes) takes
    # about three times its size; streamed, the server holds a few templates' worth at a
    # time: 18 more templates (72 MB more answer) add less than a third of their size
    more = (MANY - FEW) * 4
    assert grown_many < grown_few + more / 3, f"{FEW} templates: {grown_few:.0f} MB, {MANY}: {grown_many:.0f} MB"
    assert grown_many < size_mb, f"the server grew by {grown_many:.0f} MB for an answer of {size_mb:.0f} MB"


def test_the_listing_is_described_and_written_outside_the_event_loop(tmp_path, monkeypatch):
    """In the app itself: every template read, described and written as JSON, in a
    thread: the event loop only passes the chunks on."""
    settings = Settings(data_dir=tmp_path / "data", workers=1, dashboard=False)
    app = create_app(settings)
    db = app.state.server.db
    workspace = accounts.create_workspace(db, "studio", "pro", DEFAULT_PLANS)
    project = accounts.create_project(db, workspace, "p")
    sealer = Sealer(server_secret(None, settings.data_dir))
    _, key = accounts.create_key(db, sealer, project, scopes=accounts.SCOPES)
    marker = "data:image/png;base64," + "QUJD" * 50_000
    for n in range(5):
        body = text_template(f"card{n}")
        body["layers"].append(
            {"type": "image", "name": "photo", "x": 0, "y": 0, "width": 10, "height": 10, "src": marker}
        )
        catalog.save(db, workspace, body)

    on_loop: list[tuple[str, bool]] = []

    def in_event_loop() -> bool:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return False
        return True

    described = catalog.listed_with_layers

    def describing(*args: Any) -> Any:
        on_loop.append(("described", in_event_loop()))
        return described(*args)

    dumps = json.dumps

    def writing(value: Any, *args: Any, **kwargs: Any) -> str:
        text = dumps(value, *args, **kwargs)
        if marker in text:
            on_loop.append(("written", in_event_loop()))
        return text

    monkeypatch.setattr(catalog, described.__name__, describing)
    monkeypatch.setattr(json, "dumps", writing)

    async def listing() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.get("/v1/templates?includeLayers=true", headers={"Authorization": f"Bearer {key}"})

    try:
        answer = asyncio.run(listing())
    finally:
        app.state.server.close()
    assert answer.status_code == 200, answer.text
    listed = answer.json()
    assert [entry["id"] for entry in listed] == [f"card{n}" for n in range(5)]
    assert all(entry["layers"][-1]["suggestInput"] == marker for entry in listed)
    assert {what for what, _ in on_loop} == {"described", "written"}
    assert [what for what, loop in on_loop if loop] == []  # nothing of it on the event loop's thread
    assert threading.current_thread() is threading.main_thread()
