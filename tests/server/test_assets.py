"""Assets over real HTTP: files uploaded once (the type read from the bytes), named by
templates as ``asset:ID`` and rendered from the workspace's own assets only, listed with
the templates that use them, and kept while any stored version of a template uses them."""

from __future__ import annotations

import io
import json
import time
import zlib
from pathlib import Path

import httpx
import pytest
from PIL import Image
from sqlalchemy.exc import OperationalError

import templatekit as tk
from templatekit_server import accounts, rendering
from templatekit_server.errors import DATABASE_UNAVAILABLE
from tests.conftest import decode
from tests.pdf_readers import rasterise
from tests.server.conftest import Account, LiveServer
from tests.server.test_signed_urls import signed_query

pytestmark = pytest.mark.slow

FONT = Path(__file__).resolve().parents[2] / "src" / "templatekit" / "fonts" / "Inter-Bold.otf"


def png(colour: tuple[int, int, int], size: tuple[int, int] = (60, 40)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "PNG")
    return out.getvalue()


def png_declaring(width: int, height: int) -> bytes:
    """A small PNG whose header declares ``width`` x ``height`` px (a decompression bomb)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return len(body).to_bytes(4, "big") + kind + body + zlib.crc32(kind + body).to_bytes(4, "big")

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 0, 0, 0, 0])
    pixels = zlib.compress(b"\0" * (width + 1) * 4)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def upload(
    live: LiveServer, account: Account, data: bytes, media_type: str = "application/octet-stream"
) -> httpx.Response:
    headers = {**account.bearer, "Content-Type": media_type}
    return httpx.post(f"{live.api}/assets", content=data, headers=headers, timeout=60)


def photo_template(src: str, template_id: str = "photo") -> dict:
    layer = {"type": "image", "name": "photo", "x": 0, "y": 0, "width": 60, "height": 40, "src": src}
    return {"id": template_id, "name": "Photo", "width": 60, "height": 40, "layers": [layer]}


def test_an_upload_is_read_from_its_bytes_and_the_same_bytes_are_one_asset(live):
    account = live.account()
    red = png((220, 30, 30))
    made = upload(live, account, red, "image/png")
    assert made.status_code == 201, made.text
    asset = made.json()
    assert asset["id"].startswith("ast_") and asset["src"] == f"asset:{asset['id']}"
    assert (asset["mediaType"], asset["size"], asset["width"], asset["height"]) == ("image/png", len(red), 60, 40)
    assert upload(live, account, red).json()["id"] == asset["id"]  # once
    font = httpx.post(
        f"{live.api}/assets", files={"file": ("Inter-Bold.otf", FONT.read_bytes(), "font/otf")}, headers=account.bearer
    )
    assert font.status_code == 201 and (font.json()["mediaType"], font.json()["family"]) == ("font/otf", "Inter")
    subtitles = upload(live, account, b"WEBVTT\n\n00:00.000 --> 00:01.000\nHello\n", "text/vtt")
    assert subtitles.json()["mediaType"] == "text/vtt"
    srt = upload(live, account, b"1\n00:00:00,000 --> 00:00:01,000\nHello\n")
    assert srt.json()["mediaType"] == "application/x-subrip"
    got = httpx.get(f"{live.api}/assets/{asset['id']}", headers=account.bearer)
    assert got.content == red and got.headers["content-type"] == "image/png"
    assert got.headers["etag"] == f'"{asset["id"]}"' and "immutable" in got.headers["cache-control"]
    assert got.headers["content-security-policy"].endswith("sandbox")  # opened in a browser, it runs nothing
    svg = upload(live, account, b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>', "image/svg+xml")
    assert svg.status_code == 201 and svg.json()["mediaType"] == "image/svg+xml"


@pytest.mark.parametrize(
    ("data", "media_type", "named"),
    [
        (
            b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n",
            "application/pdf",
            "file: it is application/pdf (.pdf)",
        ),
        (b"just some words\n", "text/plain", "file: it is text, but not SVG, SubRip or WebVTT"),
        (b"\0" * 1000, "application/octet-stream", "file: its type is not one known"),  # not text: NUL bytes
        (
            b"\x00\x01\x00\x00" + b"\0" * 60,
            "font/ttf",
            "file: the font/ttf font has no characters",
        ),  # a font's first bytes
        (b"OggS" + b"\0" * 200, "audio/ogg", "file: the audio/ogg file cannot be read"),
        (b"", "image/png", "file: the body is empty"),
        (
            b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
            "image/svg+xml",
            "file: the SVG has a <script> element",
        ),
        (png((1, 2, 3))[:40], "image/png", "file: it begins as image/png but cannot be read: cut short or damaged"),
        (b"\xff\xd8\xff", "image/jpeg", "file: it begins as image/jpeg but cannot be read"),
        (png((1, 2, 3), (300, 200))[:-20], "image/png", "file: the image/png image cannot be read"),  # no end
        (png_declaring(50_000, 50_000), "image/png", "file: the image/png image is too large to decode"),
    ],
)
def test_what_is_no_asset_is_refused_naming_what_was_found(live, data, media_type, named):
    refused = upload(live, live.account(), data, media_type)
    assert refused.status_code == 400 and named in refused.json()["error"]["message"]


def test_a_type_that_disagrees_with_the_bytes_or_a_file_too_big_is_refused(live):
    account = live.account()
    wrong = upload(live, account, FONT.read_bytes(), "image/png")
    message = wrong.json()["error"]["message"]
    assert (
        wrong.status_code == 400
        and message == "Content-Type: image/png does not agree with the file, which is font/otf"
    )
    mislabelled = upload(live, account, png((1, 2, 3)), "image/jpeg")  # a picture's type is its own
    assert (
        mislabelled.json()["error"]["message"]
        == "Content-Type: image/jpeg does not agree with the file, which is image/png"
    )
    assert upload(live, account, png((1, 2, 3)), "image/x-png").status_code == 201  # another name of its type
    big = upload(live, account, b"\0" * 20_000_001)
    assert big.status_code == 400 and "more than the 20,000,000 byte limit" in big.json()["error"]["message"]
    key_id, key = accounts.create_key(live.db, live.sealer, account.project, scopes=("render",))
    reader = Account(account.workspace, account.project, key_id, key)
    assert upload(live, reader, png((1, 2, 3))).status_code == 403  # uploading needs templates:write
    assert httpx.get(f"{live.api}/assets", headers=reader.bearer).status_code == 200  # listing does not


def test_an_asset_renders_in_png_and_pdf_for_its_workspace_only(live):
    account = live.account()
    asset = upload(live, account, png((20, 120, 220))).json()
    saved = httpx.post(f"{live.api}/templates", json=photo_template(asset["src"]), headers=account.bearer)
    assert saved.status_code == 201, saved.text
    image = httpx.post(
        f"{live.api}/templates/createImage", json={"templateId": "photo"}, headers=account.bearer, timeout=60
    )
    assert decode(image.content).convert("RGB").getpixel((30, 20)) == (20, 120, 220)
    pdf = httpx.post(
        f"{live.api}/templates/createPdf", json={"templateId": "photo"}, headers=account.bearer, timeout=60
    )
    (page,) = rasterise(pdf.content, "pdfium")
    assert page.getpixel((30, 20)) == (20, 120, 220)
    # a modification may name an asset too
    green = upload(live, account, png((30, 160, 60))).json()
    changed = httpx.post(
        f"{live.api}/templates/createImage",
        json={"templateId": "photo", "modifications": [{"name": "photo", "src": green["src"]}]},
        headers=account.bearer,
        timeout=60,
    )
    assert decode(changed.content).convert("RGB").getpixel((30, 20)) == (30, 160, 60)

    other = live.account()  # another workspace knows the id, not the file
    httpx.post(f"{live.api}/templates", json=photo_template(asset["src"]), headers=other.bearer)
    refused = httpx.post(f"{live.api}/templates/createImage", json={"templateId": "photo"}, headers=other.bearer)
    error = refused.json()["error"]
    assert (refused.status_code, error["code"]) == (400, "FETCH_IMAGE_ERROR") and asset["id"] in error["message"]
    assert httpx.get(f"{live.api}/assets/{asset['id']}", headers=other.bearer).status_code == 404


def test_an_asset_in_use_is_kept_and_listed_with_its_templates(live):
    account = live.account()
    used = upload(live, account, png((200, 200, 0))).json()
    spare = upload(live, account, png((0, 0, 0))).json()
    httpx.post(f"{live.api}/templates", json=photo_template(used["src"]), headers=account.bearer)
    listed = {a["id"]: a for a in httpx.get(f"{live.api}/assets", headers=account.bearer).json()}
    assert listed[used["id"]]["usedBy"] == ["photo"] and listed[spare["id"]]["usedBy"] == []
    kept = httpx.delete(f"{live.api}/assets/{used['id']}", headers=account.bearer)
    assert kept.status_code == 409 and "used by templates photo" in kept.json()["error"]["message"]
    replaced = photo_template(spare["src"])
    httpx.put(f"{live.api}/templates/photo", json=replaced, headers=account.bearer)
    # no longer in the current version, but in version 1, which a revert brings back
    assert httpx.delete(f"{live.api}/assets/{used['id']}", headers=account.bearer).status_code == 409
    assert httpx.get(f"{live.api}/assets", headers=account.bearer).json()[-1]["usedBy"] == []
    gone = httpx.post(f"{live.api}/assets", content=png((9, 9, 9)), headers=account.bearer).json()
    assert httpx.delete(f"{live.api}/assets/{gone['id']}", headers=account.bearer).status_code == 204
    assert httpx.get(f"{live.api}/assets/{gone['id']}", headers=account.bearer).status_code == 404


def test_an_asset_kept_for_a_deleted_template_says_until_when(live):
    account = live.account()
    used = upload(live, account, png((200, 200, 0))).json()
    for template_id in ("live", "old"):
        httpx.post(f"{live.api}/templates", json=photo_template(used["src"], template_id), headers=account.bearer)
    assert httpx.delete(f"{live.api}/templates/old", headers=account.bearer).status_code == 204
    kept = httpx.delete(f"{live.api}/assets/{used['id']}", headers=account.bearer)
    message = kept.json()["error"]["message"]
    days = {time.strftime("%Y-%m-%d", time.gmtime(time.time() - ago + 30 * 86_400)) for ago in (0, 60)}
    assert kept.status_code == 409 and "used by templates live: change them first" in message
    assert any(f"named by deleted templates old, whose versions are kept until {day}" in message for day in days)
    assert httpx.delete(f"{live.api}/templates/live", headers=account.bearer).status_code == 204
    message = httpx.delete(f"{live.api}/assets/{used['id']}", headers=account.bearer).json()["error"]["message"]
    assert "change them first" not in message and "named by deleted templates live, old" in message


def test_a_deleted_asset_is_no_longer_drawn_even_by_a_worker_that_kept_it(live):
    """Render workers keep the bytes of the assets they read: once the asset is deleted,
    a request that names it is refused as for any missing asset, never drawn from
    what a worker kept."""
    account = live.account()
    kept = upload(live, account, png((20, 120, 220))).json()
    gone = upload(live, account, png((200, 30, 30))).json()
    saved = httpx.post(f"{live.api}/templates", json=photo_template(kept["src"]), headers=account.bearer)
    assert saved.status_code == 201, saved.text
    request = {"templateId": "photo", "modifications": [{"name": "photo", "src": gone["src"]}]}

    def render() -> httpx.Response:
        return httpx.post(f"{live.api}/templates/createImage", json=request, headers=account.bearer, timeout=60)

    for _ in range(4):  # every worker reads it
        assert decode(render().content).convert("RGB").getpixel((30, 20)) == (200, 30, 30)
    assert httpx.delete(f"{live.api}/assets/{gone['id']}", headers=account.bearer).status_code == 204
    for _ in range(4):
        refused = render()
        error = refused.json()["error"]
        assert (refused.status_code, error["code"]) == (400, "FETCH_IMAGE_ERROR") and gone["id"] in error["message"]


def test_a_signed_url_is_not_answered_from_the_cache_once_an_asset_it_drew_is_deleted(live):
    account = live.account()
    kept = upload(live, account, png((20, 120, 220))).json()
    gone = upload(live, account, png((200, 30, 30))).json()
    httpx.post(f"{live.api}/templates", json=photo_template(kept["src"]), headers=account.bearer)
    mods = json.dumps([{"name": "photo", "src": gone["src"]}])
    query = signed_query(account.key, templateId="photo", modifications=mods)
    url = f"{live.api}/templates/signedurl"
    for _ in range(2):  # rendered, then from the cache
        drawn = httpx.get(url, params=query, timeout=60)
        assert decode(drawn.content).convert("RGB").getpixel((30, 20)) == (200, 30, 30)
    assert httpx.delete(f"{live.api}/assets/{gone['id']}", headers=account.bearer).status_code == 204
    refused = httpx.get(url, params=query, timeout=60)
    error = refused.json()["error"]
    assert (refused.status_code, error["code"]) == (400, "FETCH_IMAGE_ERROR") and gone["id"] in error["message"]


def test_a_database_error_while_an_asset_is_checked_is_the_database_answer(monkeypatch):
    """A preview that names an asset asks the database whether it is still there; when
    the database fails, the answer is the database's envelope, not a worker's crash."""

    def unreachable(_: str) -> bool:
        raise OperationalError("SELECT", {}, Exception("connection refused"))

    loader = tk.AssetLoader().with_asset_store("memory://assets", exists=unreachable)
    monkeypatch.setattr(rendering, "_assets_of", lambda workspace_id: loader)
    monkeypatch.setattr(rendering._Worker, "memory", 512_000_000, raising=False)  # as a worker sets it
    job = rendering.DraftJob(photo_template(f"asset:ast_{'ab' * 20}"), None, "png", False, 1.0, None, "ws_1")
    failure = rendering.render_draft_job(job)
    assert isinstance(failure, rendering.Failure)
    assert (failure.code, failure.message) == ("INTERNAL_SERVER_ERROR", DATABASE_UNAVAILABLE)


def test_fonts_clips_and_sounds_that_play_are_taken(live, tmp_path):
    from fontTools.ttLib import TTFont

    from tests.templatekit.video.test_movie import make_clip, make_tone

    account = live.account()
    for flavor in ("woff", "woff2"):
        web_font = TTFont(FONT)
        web_font.flavor = flavor
        web_font.save(tmp_path / f"brand.{flavor}")
    make_clip(tmp_path / "clip.mp4", frames=6, fps=24)
    make_tone(tmp_path / "tone.m4a", 0.5)
    taken = {
        name: upload(live, account, (tmp_path / name).read_bytes())
        for name in ("brand.woff", "brand.woff2", "clip.mp4", "tone.m4a")
    }
    assert {name: answer.status_code for name, answer in taken.items()} == dict.fromkeys(taken, 201)
    assert taken["brand.woff"].json()["family"] == taken["brand.woff2"].json()["family"] == "Inter"
    assert taken["clip.mp4"].json()["mediaType"] == "video/mp4"
    assert taken["tone.m4a"].json()["mediaType"] == "video/mp4"  # an MP4 of sound alone: a soundtrack
