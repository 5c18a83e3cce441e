"""What the editor uses besides the template operations, over real HTTP: previews of a
template being designed (previewTemplate) and the bundled fonts (listFonts)."""

from __future__ import annotations

import base64
import json

import pytest

from templatekit_server import accounts
from tests.conftest import decode
from tests.server.conftest import Account, text_template, video_template

pytestmark = pytest.mark.slow


def preview(client, live, account: Account, template: dict, **fields) -> object:
    return client.post(f"{live.api}/templates/preview", json={"template": template, **fields}, headers=account.bearer)


def test_a_preview_is_the_render_of_the_saved_template(live, client):
    account = live.account()
    live.add_template(account, text_template("same"))
    drawn = preview(client, live, account, text_template("same"))
    rendered = client.post(f"{live.api}/templates/createImage", json={"templateId": "same"}, headers=account.bearer)
    assert drawn.status_code == 200 and drawn.headers["content-type"] == "image/png"
    assert drawn.content == rendered.content
    assert live.used(account) == 1  # the createImage; the preview is free
    thumbnail = preview(client, live, account, text_template("same"), thumbnail=True, format="webp")
    assert thumbnail.headers["content-type"] == "image/webp" and max(decode(thumbnail.content).size) <= 320
    shown = preview(client, live, account, text_template("same"), scale=0.5)  # as a zoomed-out canvas shows it
    assert decode(shown.content).size == (120, 60)
    too_big = preview(client, live, account, text_template("same"), scale=2)
    assert too_big.status_code == 400 and "scale: must be more than 0 and at most 1" in too_big.text


def test_a_preview_needs_the_templates_write_scope(live, client):
    writer = live.account()
    key_id, key = accounts.create_key(live.db, live.sealer, writer.project, scopes=("render",))
    renderer = Account(writer.workspace, writer.project, key_id, key)
    refused = preview(client, live, renderer, text_template())
    assert refused.status_code == 403
    assert (
        refused.json()["error"]["message"] == "this API key lacks the templates:write scope that previewTemplate needs"
    )


def test_an_invalid_template_names_each_problem(live, client):
    account = live.account()
    broken = text_template()
    broken["layers"][1]["size"] = 0
    broken["layers"][0]["fill"] = "nope"
    answer = preview(client, live, account, broken)
    assert answer.status_code == 400
    problems = answer.json()["error"]["problems"]
    assert any(problem.startswith("layers[1].size: ") for problem in problems), problems
    assert any(problem.startswith("layers[0].fill: ") for problem in problems), problems
    for body, named in (
        ({"template": "x"}, "template: must be a template object"),
        ({"template": {}, "time": "1"}, "time: must be a number"),
    ):
        refused = client.post(f"{live.api}/templates/preview", json=body, headers=account.bearer)
        assert refused.status_code == 400 and named in refused.json()["error"]["message"]
    assert client.get(f"{live.api}/templates/preview", headers=account.bearer).status_code == 405


def test_a_moment_of_a_video_template(live, client):
    account = live.account()
    clip = video_template(seconds=2.0)  # a white box fading in over the whole video, on black
    early, late = (preview(client, live, account, clip, time=t) for t in (0.2, 1.8))
    brightness = [decode(answer.content).convert("L").getpixel((48, 80)) for answer in (early, late)]
    assert brightness[0] < 100 < brightness[1], brightness
    beyond = preview(client, live, account, clip, time=3)
    assert beyond.status_code == 400 and "time: must be within the video, 0 to 2" in beyond.json()["error"]["message"]
    still = preview(client, live, account, text_template(), time=1)
    assert still.status_code == 400 and "only a video template has moments" in still.json()["error"]["message"]


def test_codes_are_read_back_from_the_render(live, client):
    account = live.account()
    card = text_template()
    card["layers"].append({"type": "qrcode", "name": "ok", "x": 130, "y": 4, "width": 80, "height": 80, "qrcode": "hi"})
    card["layers"].append(
        {"type": "qrcode", "name": "cut", "x": 200, "y": 4, "width": 80, "height": 80, "qrcode": "half off the canvas"}
    )
    answer = preview(client, live, account, card)
    scans = {scan["layer"]: scan for scan in json.loads(answer.headers["X-Templatekit-Scans"])}
    assert scans["ok"]["scans"] is True
    assert scans["cut"]["scans"] is False and "does not scan" in scans["cut"]["message"]
    assert "X-Templatekit-Scans" not in preview(client, live, account, card, thumbnail=True).headers


def test_the_boxes_layout_gave_the_layers_of_frames(live, client):
    account = live.account()
    card = text_template()
    card["width"], card["height"] = 400, 300
    card["layers"].append(
        {
            "type": "frame",
            "name": "stack",
            "x": 20,
            "y": 30,
            "width": "hug",
            "height": "hug",
            "layout": "column",
            "gap": 10,
            "padding": 5,
            "layers": [
                {"type": "shape", "name": "a", "width": 60, "height": 20},
                {"type": "qrcode", "name": "code", "width": 90, "height": 90, "qrcode": "inside a frame"},
            ],
        }
    )
    answer = preview(client, live, account, card)
    boxes = json.loads(answer.headers["X-Templatekit-Boxes"])
    # only frames and what they hold: the others' boxes are in the template itself
    assert boxes == {"stack": [20, 30, 100, 130], "a": [25, 35, 60, 20], "code": [25, 65, 90, 90]}
    scans = {scan["layer"]: scan for scan in json.loads(answer.headers["X-Templatekit-Scans"])}
    assert scans["code"]["scans"] is True  # read at its place in the frame
    assert "X-Templatekit-Boxes" not in preview(client, live, account, text_template()).headers


def test_fonts_and_the_source_version(live, client):
    account = live.account()
    fonts = client.get(f"{live.api}/fonts", headers=account.bearer).json()
    assert fonts[0] == {"family": "Inter", "weights": [100, 200, 300, 400, 500, 600, 700, 800, 900], "italic": True}
    assert {"Dancing Script", "Noto Sans Arabic", "Noto Sans CJK SC"} <= {font["family"] for font in fonts}
    live.add_template(account, text_template("etag"))
    client.put(f"{live.api}/templates/etag", json=text_template("etag"), headers=account.bearer)
    source = client.get(f"{live.api}/templates/etag/source", headers=account.bearer)
    assert source.headers["etag"] == '"2"'
    assert client.get(f"{live.api}/templates/etag/source?version=1", headers=account.bearer).headers["etag"] == '"1"'


def test_a_preview_says_how_tall_the_box_of_cut_text_needs_to_be(live, client):
    account = live.account()
    card = text_template(layers=[])
    words = "A title that has grown far too large for its box"
    title = {"type": "text", "name": "title", "x": 10, "y": 10, "width": 220, "height": 30, "text": words, "size": 28}
    shrinks, short = {**title, "name": "shrinks", "autoFit": "shrink"}, {**title, "name": "short", "text": "Hi"}
    card["layers"] = [title, shrinks, short]
    cut = preview(client, live, account, card)
    heights = json.loads(cut.headers["X-Templatekit-Text-Heights"])
    assert list(heights) == ["title"]  # shrinking text and text that fits need nothing
    assert heights["title"] > 30 and heights["title"] == int(heights["title"])
    assert "layer 'title': text cut" in cut.headers["X-Templatekit-Warnings"]
    # at that height the text shows whole: no warning, nothing left to report
    card["layers"] = [{**title, "height": heights["title"]}]
    whole = preview(client, live, account, card)
    assert "X-Templatekit-Text-Heights" not in whole.headers
    assert "X-Templatekit-Warnings" not in whole.headers
    # one pixel less, and it is cut again
    card["layers"] = [{**title, "height": heights["title"] - 1}]
    assert "layer 'title': text cut" in preview(client, live, account, card).headers["X-Templatekit-Warnings"]


def test_a_previews_details_hold_8_kb_of_headers_and_come_whole_as_json(live, client):
    account = live.account()
    words = "word " * 40
    layers = [
        {"type": "text", "name": f"{n:03d}" + "n" * 197, "text": words, "width": 20, "height": 10, "size": 12}
        for n in range(300)
    ]
    frame = {"type": "frame", "name": "f", "x": 0, "y": 0, "width": 400, "height": 400, "layout": "column"}
    card = {"name": "many", "width": 400, "height": 400, "layers": [{**frame, "layers": layers}]}
    answer = preview(client, live, account, card)
    assert answer.status_code == 200 and answer.headers["content-type"] == "image/png"
    details = [(name, value) for name, value in answer.headers.items() if name.lower().startswith("x-templatekit-")]
    assert sum(len(name) + len(value) + 4 for name, value in details) <= 8192, [(n, len(v)) for n, v in details]
    assert answer.headers["X-Templatekit-Omitted"] == "Boxes,Text-Heights"
    assert "X-Templatekit-Boxes" not in answer.headers and "X-Templatekit-Text-Heights" not in answer.headers
    assert json.loads(answer.headers["X-Templatekit-Warnings"])  # cut to 4 KB, as always
    whole = client.post(
        f"{live.api}/templates/preview", params={"details": "json"}, json={"template": card}, headers=account.bearer
    )
    assert whole.status_code == 200 and whole.headers["content-type"] == "application/json"
    body = whole.json()
    assert set(body) == {"warnings", "scans", "boxes", "textHeights", "cues"}
    assert len(body["boxes"]) == 301 and len(body["textHeights"]) == 300 and len(body["warnings"]) >= 300
    assert body["boxes"]["f"] == [0, 0, 400, 400]
    inline = client.post(
        f"{live.api}/templates/preview",
        params={"details": "json", "image": "true"},
        json={"template": card},
        headers=account.bearer,
    ).json()
    assert {key: inline[key] for key in body} == body and inline["omitted"] == ["Boxes", "Text-Heights"]
    assert inline["mediaType"] == "image/png" and base64.b64decode(inline["image"]) == answer.content
    small = preview(client, live, account, text_template())
    assert "X-Templatekit-Omitted" not in small.headers
    small_inline = client.post(
        f"{live.api}/templates/preview",
        params={"details": "json", "image": "true"},
        json={"template": text_template()},
        headers=account.bearer,
    ).json()
    assert small_inline["omitted"] == [] and base64.b64decode(small_inline["image"]) == small.content
    alone = client.post(
        f"{live.api}/templates/preview", params={"image": "true"}, json={"template": card}, headers=account.bearer
    )
    assert alone.status_code == 400 and "query.image: only with details=json" in alone.text
    wrong = client.post(
        f"{live.api}/templates/preview", params={"details": "xml"}, json={"template": card}, headers=account.bearer
    )
    assert wrong.status_code == 400 and "query.details: must be json (got 'xml')" in wrong.text
