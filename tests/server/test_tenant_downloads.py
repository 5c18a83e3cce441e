"""What a render downloads and decodes is kept for its workspace only: a second tenant
asking for the same URL fetches it again, and so cannot learn from how fast its render
comes back (a cached image answers in a fraction of the time) what another tenant drew."""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from PIL import Image

import templatekit as tk
from tests.server.conftest import Files, LiveServer, image_template, text_template

pytestmark = pytest.mark.slow


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path / "data", {"TEMPLATEKIT_WORKERS": "1"})  # one worker: one set of caches
    live.data_dir.mkdir(parents=True)
    live.start()
    yield live
    live.stop()


def png(colour: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(out, format="PNG")
    return out.getvalue()


def test_a_download_kept_for_one_workspace_is_fetched_again_for_another(server, web: Files):
    web.routes["/tenant-shared.png"] = (200, png("#2563eb"), 0.0)
    url = web.url("/tenant-shared.png")
    first, second = server.account(), server.account()

    def render(account, template_id: str = "photo") -> bytes:
        answer = httpx.post(
            f"{server.api}/templates/createImage", json={"templateId": template_id}, headers=account.bearer, timeout=30
        )
        assert answer.status_code == 200, answer.text
        return answer.content

    # the worker is up and has warmed what was stored when it started (a worker renders
    # the stored templates as it starts): the templates below are new to it
    server.add_template(first, text_template())
    render(first, "card")
    for account in (first, second):
        server.add_template(account, image_template(url, "photo"))

    asked = web.requested.count("/tenant-shared.png")
    render(first)
    render(first)  # the first workspace's own repeat: from its cache
    assert web.requested.count("/tenant-shared.png") == asked + 1
    drawn = render(second)
    assert web.requested.count("/tenant-shared.png") == asked + 2
    assert Image.open(io.BytesIO(drawn)).convert("RGB").getpixel((50, 50)) == (37, 99, 235)


def test_decoded_images_are_kept_apart_by_partition():
    loader = tk.AssetLoader(allow_files=False)
    source = "data:image/png;base64," + base64.b64encode(png("#16a34a")).decode()
    one, other = loader.with_asset_store(None, partition="one"), loader.with_asset_store(None, partition="other")
    kept = one.load_image(source)
    assert one.load_image(source) is kept  # kept for its partition
    assert other.load_image(source) is not kept  # decoded again for another
