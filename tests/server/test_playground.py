"""The playground page in a real browser (Debian's Chromium, driven by Playwright):
connect with a key, edit the fields of a template, see the preview, make a signed URL
the server accepts, and render a video with its progress bar."""

from __future__ import annotations

import json

import pytest

from tests.server.conftest import text_template, video_template

pytestmark = pytest.mark.slow

pytest.importorskip("playwright.sync_api")

TABLE = {
    "id": "prices",
    "name": "Prices",
    "width": 300,
    "height": 160,
    "background": "#ffffff",
    "layers": [
        {
            "type": "table",
            "name": "grid",
            "x": 0,
            "y": 0,
            "width": 300,
            "height": 120,
            "rows": [{"item": "Tea", "price": 3}, {"item": "Cake", "price": 4}],
        },
        {"type": "star", "name": "stars", "x": 0, "y": 130, "width": 150, "height": 30, "star": 2},
    ],
}


def connect(page, live, account):
    page.goto(f"{live.root}/playground/")
    page.fill("#key", account.key)
    page.click("#connect button")
    page.wait_for_selector("#fields fieldset")
    page.wait_for_load_state("networkidle")  # the first template's details and preview


def sent_with(response, text: str) -> bool:
    """A createImage answer to a request whose body has ``text``."""
    return "createImage" in response.url and text in (response.request.post_data or "")


def preview_shown(page) -> None:
    page.wait_for_function("() => document.getElementById('preview').naturalWidth > 0")


def test_edit_fields_preview_and_sign(page, live):
    account = live.account()
    live.add_template(account, text_template())
    live.add_template(account, TABLE)
    connect(page, live, account)
    assert page.text_content("#status") == "2 templates"
    assert page.input_value("#template") == "card"  # the first template is chosen on connecting
    page.wait_for_selector("fieldset[data-layer='title'] textarea")
    with page.expect_response(lambda response: sent_with(response, "From the browser")) as answered:
        page.fill("textarea[name='title.text']", "From the browser")
    assert "From the browser" in page.text_content("#curl")
    snippet = page.text_content("#python")
    compile(snippet, "python snippet", "exec")  # the Python shown is Python
    assert '"text": "From the browser"' in snippet and "/templates/createImage" in snippet
    assert json.loads(answered.value.request.post_data)["modifications"] == [
        {"name": "title", "text": "From the browser"}
    ]
    assert json.loads(answered.value.request.post_data)["thumbnail"] is True
    preview_shown(page)
    assert "thumbnail" in page.text_content("#preview-note")
    with page.expect_response(lambda response: sent_with(response, '"format"')) as full:
        page.click("#render")
    assert "thumbnail" not in json.loads(full.value.request.post_data)
    page.wait_for_function("() => document.getElementById('preview-note').textContent.startsWith('full size')")
    with page.expect_download() as download:
        page.click("#render-pdf")
    assert download.value.suggested_filename == "card.pdf"
    assert download.value.path().read_bytes().startswith(b"%PDF-")

    page.click("text=Signed URL")
    page.click("#sign")
    # the server checked it
    page.wait_for_function("() => document.getElementById('signed-preview').naturalWidth === 240")
    assert "sign=" in page.text_content("#signed")
    assert page.evaluate("localStorage.length + sessionStorage.length") == 0
    assert page.context.cookies() == []


def test_colour_pickers_start_at_the_layers_colours(page, live):
    account = live.account()
    card = text_template("colours")
    card["layers"][1]["color"] = "rgba(255, 255, 255, 0.5)"
    card["layers"].append({**card["layers"][0], "name": "named", "fill": "tomato"})
    card["layers"].append({**card["layers"][0], "name": "fade", "fill": {"from": "#112233", "to": "#445566"}})
    card["layers"].append({**card["layers"][1], "name": "plain"})
    del card["layers"][-1]["color"]
    live.add_template(account, card)
    connect(page, live, account)

    def picker(layer: str) -> tuple[str, str]:
        selector = f"fieldset[data-layer='{layer}'] input[type=color]"
        label = page.locator(f"fieldset[data-layer='{layer}'] label:has(input[type=color])").text_content()
        return page.input_value(selector), label

    assert picker("box") == ("#ff0000", "fill")
    assert picker("title") == ("#ffffff", "color")
    assert picker("named") == ("#ff6347", "fill")
    assert picker("fade") == ("#112233", "fill (gradient)")
    assert picker("plain") == ("#000000", "color (default)")
    with page.expect_response(lambda response: sent_with(response, "#00ff0080")) as answered:
        page.locator("fieldset[data-layer='title'] input[type=color]").fill("#00ff00")  # alpha 0.5 is kept
    sent = json.loads(answered.value.request.post_data)["modifications"]
    assert sent == [{"name": "title", "color": "#00ff0080"}]


def test_rows_and_stars_are_edited_in_place(page, live):
    account = live.account()
    live.add_template(account, TABLE)
    connect(page, live, account)
    page.wait_for_selector("fieldset[data-layer='grid'] tbody tr")
    assert page.locator("fieldset[data-layer='grid'] tbody tr").count() == 2
    page.locator("fieldset[data-layer='grid'] tbody tr").nth(1).locator("input").nth(1).fill("5")
    page.click("fieldset[data-layer='grid'] .add-row")
    page.locator("fieldset[data-layer='grid'] tbody tr").nth(2).locator("input").first.fill("Pie")
    with page.expect_response(lambda response: sent_with(response, '"star":4.5')) as answered:
        page.locator("input[type=range]").fill("4.5")
    sent = {item["name"]: item for item in json.loads(answered.value.request.post_data)["modifications"]}
    assert sent["grid"]["rows"] == [
        {"item": "Tea", "price": 3},
        {"item": "Cake", "price": 5},
        {"item": "Pie", "price": ""},
    ]
    assert sent["stars"]["star"] == 4.5
    snippet = page.text_content("#python")
    compile(snippet, "python snippet", "exec")
    assert '"price": 5' in snippet and '"star": 4.5' in snippet
    preview_shown(page)


def test_a_video_renders_with_its_progress_bar(page, live):
    account = live.account()
    live.add_template(account, video_template("movie", seconds=2, fps=15, size=160))
    connect(page, live, account)
    page.wait_for_selector("#render-video:not([hidden])")
    assert "/templates/renderVideo" in page.text_content("#curl")
    compile(page.text_content("#python"), "python snippet", "exec")
    page.click("#render-video")
    page.wait_for_function("() => document.getElementById('video-status').textContent === 'done'", timeout=60_000)
    assert page.evaluate("document.getElementById('video-progress').value") == 1
    source = page.evaluate("document.getElementById('video').src")
    assert "/v1/files/videos/" in source
    page.wait_for_function("() => document.getElementById('video').readyState >= 1", timeout=20_000)  # the MP4 loads
    assert page.evaluate("document.getElementById('video').duration") == pytest.approx(2, abs=0.1)
