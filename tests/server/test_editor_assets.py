"""Uploads in the template editor on the server, in a real browser (Debian's Chromium,
driven by Playwright): a picture chosen in the inspector goes up once as an asset, the
template names it ``asset:ID`` (previews no longer carry its bytes), and the saved
version renders over /v1 the bytes the canvas shows; a template's font goes up the same way."""

from __future__ import annotations

import json
import os

import httpx
import pytest
from PIL import Image

from tests.server.test_assets import FONT
from tests.server.test_editor import add, canvas_bytes, open_editor, save, settled

pytestmark = pytest.mark.slow

pytest.importorskip("playwright.sync_api")


def test_a_picture_is_uploaded_once_and_named_by_its_asset_id(page, live, tmp_path):
    account = live.account()
    picture = tmp_path / "photo.png"
    Image.frombytes("RGB", (320, 240), os.urandom(320 * 240 * 3)).save(picture)  # noise: 230 KB as PNG
    assert picture.stat().st_size > 200_000
    open_editor(page, live, account)
    add(page, "image")
    previews: list[int] = []
    page.on("request", lambda r: r.url.endswith("/templates/preview") and previews.append(len(r.post_data or "")))
    page.set_input_files("#pane-layer [aria-label='src file']", str(picture))
    page.wait_for_function(
        "() => document.querySelector(\"#pane-layer [aria-label='src']\").value.startsWith('asset:ast_')"
    )
    settled(page)
    src = page.input_value("#pane-layer [aria-label='src']")
    listed = httpx.get(f"{live.api}/assets", headers=account.bearer).json()
    assert [f"asset:{asset['id']}" for asset in listed] == [src]
    assert previews and max(previews) < 20_000  # the picture's bytes are not in the previews
    save(page, 1)
    settled(page)
    drawn = canvas_bytes(page)
    (saved,) = httpx.get(f"{live.api}/templates", headers=account.bearer).json()
    source = httpx.get(f"{live.api}/templates/{saved['id']}/source", headers=account.bearer).json()
    assert src in json.dumps(source)
    rendered = httpx.post(
        f"{live.api}/templates/createImage", json={"templateId": saved["id"]}, headers=account.bearer, timeout=60
    )
    assert rendered.content == drawn


def test_a_font_is_uploaded_as_an_asset_from_the_templates_fonts(page, live):
    account = live.account()
    open_editor(page, live, account)
    page.click("#tab-template")
    page.click("#pane-template .field[data-path='fonts'] button:has-text('add a row')")
    page.set_input_files("#pane-template [aria-label='fonts 1 src file']", str(FONT))
    page.wait_for_function(
        "() => document.querySelector(\"#pane-template [aria-label='fonts 1 src']\").value.startsWith('asset:ast_')"
    )
    page.fill("#pane-template [aria-label='fonts 1 family']", "Brand")
    settled(page)
    (font,) = httpx.get(f"{live.api}/assets", headers=account.bearer).json()
    assert (font["mediaType"], font["family"]) == ("font/otf", "Inter")
    assert page.input_value("#pane-template [aria-label='fonts 1 src']") == f"asset:{font['id']}"
