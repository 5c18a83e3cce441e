"""The template editor in a real browser (Debian's Chromium, driven by Playwright) on a
live server: a design made from a blank template with the mouse and the inspector,
snapping, undo and redo, saving versions, and the canvas's image being the bytes that
/v1 renders of the saved version."""

from __future__ import annotations

import json

import httpx
import pytest

from templatekit.web import WEB, page_headers
from tests.server.conftest import text_template

pytestmark = pytest.mark.slow

pytest.importorskip("playwright.sync_api")

PAGE_SUFFIXES = {".html", ".js", ".css"}


def open_editor(page, live, account) -> None:
    page.goto(f"{live.root}/editor/")
    page.fill("#key", account.key)
    page.click("#connect button")
    page.wait_for_selector("#workspace:not([hidden])")
    settled(page)


def settled(page) -> None:
    """Waits until the canvas shows the full-size render of the latest change."""
    page.wait_for_selector("#canvas[data-current=true]")


def add(page, kind: str) -> None:
    page.select_option("#kind", kind)
    page.click("#add")
    settled(page)


def centre(page, selector: str) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag(page, start: tuple[float, float], by: tuple[float, float], keys: tuple[str, ...] = ()) -> None:
    for key in keys:
        page.keyboard.down(key)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0] + by[0], start[1] + by[1], steps=10)
    page.mouse.up()
    for key in keys:
        page.keyboard.up(key)
    settled(page)


def place(page) -> dict[str, float]:
    """The selected layer's place, as the inspector shows it."""
    return {
        name: float(page.input_value(f"#pane-layer [aria-label='{name}']")) for name in ("x", "y", "width", "height")
    }


def save(page, version: int, *, keys: str = "") -> None:
    """Saves (with the button, or ``keys``) and waits for the version stored."""
    if keys:
        page.keyboard.press(keys)
    else:
        page.click("#save")
    page.wait_for_function(
        f"() => document.getElementById('status').textContent.startsWith('saved: version {version}')"
    )


def select(page, name: str) -> None:
    page.click(f".layer-row[data-name='{name}'] .layer-name")


def canvas_bytes(page) -> bytes:
    """The bytes the canvas shows, saved as a download: the page's policy lets it fetch
    from its own origin only, not from the blob: URL of its image."""
    with page.expect_download() as download:
        page.evaluate(
            """() => Object.assign(document.createElement('a'), {
                href: document.getElementById('canvas').src, download: 'canvas.png',
            }).click()"""
        )
    return download.value.path().read_bytes()


def test_design_from_blank_save_and_render_the_same_bytes(page, live):
    account = live.account()
    open_editor(page, live, account)
    page.click("#tab-template")
    page.fill("#pane-template [aria-label='width']", "600")
    page.fill("#pane-template [aria-label='height']", "400")
    settled(page)
    assert page.text_content("#zoom-label") == "100 %"  # fits: one screen pixel is one template pixel
    for kind in ("text", "image", "qrcode", "table"):
        add(page, kind)
    # the list shows the front-most first
    assert page.locator(".layer-row").evaluate_all("rows => rows.map(r => r.dataset.name)") == [
        "table",
        "qrcode",
        "image",
        "text",
    ]

    # move the table down (alt: without snapping)
    assert place(page) == {"x": 60, "y": 100, "width": 480, "height": 200}
    drag(page, centre(page, ".box[data-name='table']"), (0, 160), ("Alt",))
    assert place(page) == {"x": 60, "y": 260, "width": 480, "height": 200}

    # the QR code's left edge, dropped 3 px from the image's right edge, snaps to it
    select(page, "qrcode")
    start = centre(page, ".box[data-name='qrcode']")
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0] + 263, start[1], steps=10)
    assert page.locator(".guide.x").count() == 1  # the guide shows while snapping
    page.mouse.up()
    settled(page)
    assert place(page)["x"] == 460  # image: x 140 + width 320

    # resize the image from its corner handle, then keep its ratio with shift
    select(page, "image")
    drag(page, centre(page, ".frame .handle.se"), (40, 30), ("Alt",))
    assert place(page) == {"x": 140, "y": 80, "width": 360, "height": 270}
    drag(page, centre(page, ".frame .handle.se"), (100, 0), ("Alt", "Shift"))
    assert place(page) == {"x": 140, "y": 80, "width": 460, "height": 345}

    # text and colour in the inspector
    select(page, "text")
    page.fill("#pane-layer [aria-label='text']", "Hello from the editor")
    settled(page)
    page.fill("#pane-layer [aria-label='color text']", "#dc2626")
    page.press("#pane-layer [aria-label='color text']", "Enter")
    settled(page)
    page.click("#undo")
    settled(page)
    assert page.input_value("#pane-layer [aria-label='color text']") == "#000000"  # the default, shown
    assert page.locator("#pane-layer .field[data-path='layers[0].color'] .reset").count() == 0  # and not set
    assert page.input_value("#pane-layer [aria-label='text']") == "Hello from the editor"
    page.click("#redo")
    settled(page)
    assert page.input_value("#pane-layer [aria-label='color text']") == "#dc2626"

    # the model's own message shows at the field
    page.fill("#pane-layer [aria-label='size']", "0")
    page.wait_for_selector(".field.invalid[data-path='layers[0].size'] .problem:not([hidden])")
    assert "must be" in page.text_content(".field.invalid[data-path='layers[0].size'] .problem")
    page.click("#pane-layer .field[data-path='layers[0].size'] .reset")
    settled(page)

    # the QR code is checked by reading it back: partly off the canvas it does not scan
    select(page, "qrcode")
    page.wait_for_selector("#pane-layer .scan.bad")
    page.fill("#pane-layer [aria-label='width']", "130")
    page.fill("#pane-layer [aria-label='height']", "130")
    settled(page)
    page.wait_for_selector("#pane-layer .scan.ok")

    save(page, 1)
    settled(page)
    drawn = canvas_bytes(page)
    templates = httpx.get(f"{live.root}/v1/templates", headers={"Authorization": f"Bearer {account.key}"}).json()
    (saved,) = templates
    rendered = httpx.post(
        f"{live.root}/v1/templates/createImage",
        json={"templateId": saved["id"]},
        headers={"Authorization": f"Bearer {account.key}"},
        timeout=60,
    )
    assert rendered.status_code == 200
    assert drawn[:8] == b"\x89PNG\r\n\x1a\n"
    assert drawn == rendered.content  # the canvas is the render

    # a second version, then a reload finds both
    select(page, "text")
    page.fill("#pane-layer [aria-label='text']", "Second version")
    settled(page)
    save(page, 2, keys="Control+s")
    page.reload()
    page.fill("#key", account.key)
    page.click("#connect button")
    page.wait_for_selector("#workspace:not([hidden])")
    page.select_option("#templates", saved["id"])
    page.wait_for_selector(".layer-row")
    settled(page)
    page.click("#tab-versions")
    page.wait_for_selector("#versions li:nth-child(2)")
    listed = page.locator("#versions li").all_text_contents()
    assert listed[0].startswith("v2") and "(current)" in listed[0]
    assert listed[1].startswith("v1")


PROMO = {
    "id": "promo",
    "name": "Promo",
    "width": 400,
    "height": 240,
    "background": "#0f172a",
    "video": {"duration": 2, "fps": 10},
    "layers": [
        {"type": "shape", "name": "panel", "x": 20, "y": 20, "width": 160, "height": 100, "fill": "#f59e0b"},
        {
            "type": "text",
            "name": "headline",
            "x": 200,
            "y": 40,
            "width": 180,
            "height": 60,
            "text": "Sale",
            "color": "#ffffff",
            "size": 40,
            "start": 1,
        },
        {"type": "shape", "name": "dot", "x": 40, "y": 160, "width": 40, "height": 40, "shape": "ellipse"},
    ],
}


def open_stored(page, live, account, template_id: str) -> None:
    open_editor(page, live, account)
    page.select_option("#templates", template_id)
    page.wait_for_selector(".layer-row")  # opened (the blank template before it has no layers)
    settled(page)


def test_layers_panel_keyboard_and_canvas_tools(page, live):
    account = live.account()
    live.add_template(account, PROMO)
    open_stored(page, live, account, "promo")
    rows = ".layer-row"

    def names() -> list[str]:
        """In paint order (the list shows the front-most first)."""
        return page.locator(rows).evaluate_all("rows => rows.map(r => r.dataset.name).reverse()")

    # rename, reorder by dragging, hide, lock
    page.dblclick(".layer-row[data-name='dot'] .layer-name")
    page.fill("[aria-label='new name of dot']", "badge")
    page.press("[aria-label='new name of dot']", "Enter")
    settled(page)
    assert names() == ["panel", "headline", "badge"]
    page.locator(".layer-row[data-name='badge']").drag_to(page.locator(".layer-row[data-name='panel']"))
    settled(page)
    assert names() == ["badge", "panel", "headline"]  # now painted first, behind the others
    page.uncheck("[aria-label='show panel']")
    settled(page)
    assert page.locator(".box[data-name='panel']").get_attribute("class").split() == ["box", "hidden-layer"]
    page.check("[aria-label='show panel']")
    page.click("[aria-label='lock headline']")
    settled(page)
    page.click(".box[data-name='headline']", force=True)  # a locked layer is not picked on the canvas
    assert "selected" not in page.locator(".layer-row[data-name='headline']").get_attribute("class")
    page.click("[aria-label='unlock headline']")
    settled(page)

    # nudge with the arrow keys, rotate with the handle
    page.click(".box[data-name='panel']")
    for key in ("ArrowRight", "ArrowRight", "ArrowRight", "Shift+ArrowDown"):
        page.keyboard.press(key)
    settled(page)
    assert (place(page)["x"], place(page)["y"]) == (23, 30)
    panel = page.locator(".box[data-name='panel']").bounding_box()
    handle = centre(page, ".frame .handle.rotate")
    # to the right of the centre, level with it: a quarter turn
    page.mouse.move(*handle)
    page.mouse.down()
    page.mouse.move(panel["x"] + panel["width"] + 60, panel["y"] + panel["height"] / 2, steps=8)
    page.mouse.up()
    settled(page)
    assert page.input_value("#pane-layer [aria-label='rotation']") == "90"

    # duplicate and delete from the keyboard; undo and redo too
    page.keyboard.press("Control+d")
    settled(page)
    assert names() == ["badge", "panel", "panel copy", "headline"]
    page.keyboard.press("Delete")
    settled(page)
    assert names() == ["badge", "panel", "headline"]
    page.keyboard.press("Control+z")
    settled(page)
    assert "panel copy" in names()
    page.keyboard.press("Control+Shift+z")
    settled(page)
    assert "panel copy" not in names()

    # a marquee over the canvas's empty lower right selects what it touches
    paper = page.locator("#overlay").bounding_box()
    page.keyboard.press("Escape")
    page.mouse.move(paper["x"] + 395, paper["y"] + 235)
    page.mouse.down()
    page.mouse.move(paper["x"] + 150, paper["y"] + 60, steps=6)
    page.mouse.up()
    assert page.text_content("#pane-layer p") == "2 layers selected."
    page.click("#pane-layer button:has-text('align top')")
    settled(page)
    # the tops of what is seen, the rotated panel's turned box included
    tops = page.locator(".box.selected").evaluate_all("boxes => boxes.map(b => b.getBoundingClientRect().top)")
    assert len(tops) == 2 and abs(tops[0] - tops[1]) < 0.6, tops


def test_timeline_scrubber_and_the_fill_as_a_gradient(page, live):
    account = live.account()
    live.add_template(account, PROMO)
    open_stored(page, live, account, "promo")
    at_rest = canvas_bytes(page)
    assert page.is_visible("#timeline")
    page.fill("#scrub", "0.5")  # before the headline comes on at 1 s
    page.dispatch_event("#scrub", "change")
    settled(page)
    early = canvas_bytes(page)
    assert early != at_rest

    # drag the end of the headline's bar to the middle: it goes off screen at 1.5 s
    page.click(".timeline-row:nth-child(2) .row-name")
    track = page.locator(".timeline-row:nth-child(2) .track").bounding_box()
    end = centre(page, ".timeline-row:nth-child(2) .bar .edge.end")
    page.mouse.move(*end)
    page.mouse.down()
    page.mouse.move(track["x"] + track["width"] * 0.75, end[1], steps=6)
    page.mouse.up()
    settled(page)
    assert page.input_value("#pane-layer [aria-label='duration']") == "0.5"
    assert page.input_value("#pane-layer [aria-label='start']") == "1"

    # the panel's fill becomes a gradient, then its colours are edited
    page.click(".layer-row[data-name='panel'] .layer-name")
    page.select_option("#pane-layer [aria-label='fill kind']", label="gradient")
    settled(page)
    page.fill("#pane-layer [data-path='layers[0].fill.to'] [aria-label='to text']", "#22c55e")
    page.press("#pane-layer [data-path='layers[0].fill.to'] [aria-label='to text']", "Enter")
    settled(page)

    # under Effects, the panel gets a mask: an ellipse in its box
    page.click("#pane-layer details:has(> summary:text('Effects')) > summary")
    page.select_option("#pane-layer [aria-label='mask kind']", index=1)
    # an empty mask is neither a layer nor a shape: the model says so at the field
    page.wait_for_selector("#pane-layer :text('a mask is another layer')")
    page.select_option("#pane-layer [data-path='layers[0].mask.shape'] [aria-label='shape kind']", index=1)
    page.click("#pane-layer [data-path='layers[0].mask.shape'] [role=radio]:text('ellipse')")
    settled(page)
    save(page, 2)
    source = httpx.get(f"{live.root}/v1/templates/promo/source", headers={"Authorization": f"Bearer {account.key}"})
    saved = source.json()
    assert saved["layers"][1]["duration"] == 0.5 and saved["layers"][1]["start"] == 1
    assert saved["layers"][0]["fill"]["to"] == "#22c55e" and "from" in saved["layers"][0]["fill"]
    assert saved["layers"][0]["mask"]["shape"] == "ellipse"


def test_try_it_export_import_and_revert(page, live, tmp_path):
    account = live.account()
    live.add_template(account, text_template())
    open_stored(page, live, account, "card")
    page.click("#tab-try")
    assert '"name": "title"' in page.input_value("#try-modifications")  # a sample from the design
    page.fill("#try-modifications", '[{"name": "title", "text": "Tried"}]')
    page.click("#try-png")
    page.wait_for_selector("#try-result img")
    assert '"templateId":"card"' in page.text_content("#try-curl")
    compile(page.text_content("#try-python"), "python snippet", "exec")
    page.click("#try-signed-box summary")
    page.click("#try-sign")
    page.wait_for_function("() => document.getElementById('try-signed').textContent.includes('sign=')")
    signed = httpx.get(page.text_content("#try-signed"))
    assert signed.status_code == 200 and signed.headers["content-type"] == "image/png"
    page.click("#try-pdf")
    with page.expect_download() as download:
        page.click("#try-result a")
    assert download.value.suggested_filename == "Card.pdf"
    assert download.value.path().read_bytes().startswith(b"%PDF-")

    with page.expect_download() as download:
        page.click("#export")
    exported = json.loads(download.value.path().read_text())
    assert exported["layers"] == text_template()["layers"]
    changed = {**exported, "name": "Imported", "background": "#ffffff"}
    upload = tmp_path / "imported.json"
    upload.write_text(json.dumps(changed))
    page.set_input_files("#import", str(upload))
    settled(page)
    page.click("#tab-template")
    assert page.input_value("#pane-template [aria-label='name']") == "Imported"
    save(page, 2)
    page.click("#tab-versions")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("[aria-label='revert to version 1']")
    page.wait_for_function("() => document.getElementById('status').textContent.includes('now version 3')")
    settled(page)
    page.click("#tab-template")
    assert page.input_value("#pane-template [aria-label='name']") == "Card"


def test_every_kind_can_be_added_and_renders(page, live):
    account = live.account()
    open_editor(page, live, account)
    kinds = page.locator("#kind option").evaluate_all("options => options.map(o => o.value)")
    assert "video" not in kinds and "captions" not in kinds  # clips and captions only in video templates
    assert len(kinds) == 12 and "frame" in kinds
    for kind in kinds:
        add(page, kind)
        assert page.is_hidden("#problems"), page.text_content("#problems")
    assert page.text_content("#render-note") == ""
    page.select_option("#kind", "star")
    page.click("#undo")  # a change keeps the kind chosen to add
    settled(page)
    assert page.input_value("#kind") == "star"


def test_grid_snapping_and_the_keyboard_alone(page, live):
    account = live.account()
    live.add_template(account, PROMO)
    open_stored(page, live, account, "promo")
    page.fill("#grid", "50")
    page.click(".box[data-name='dot']")  # at x 40, y 160: dropped 4 px from the grid's lines it snaps to them
    drag(page, centre(page, ".box[data-name='dot']"), (56, 34))
    assert (place(page)["x"], place(page)["y"]) == (100, 200)

    # a layer added, named and moved with the keyboard only
    page.keyboard.press("Escape")
    page.select_option("#kind", "shape")
    page.focus("#kind")
    page.keyboard.press("Tab")  # to "Add layer"
    page.keyboard.press("Enter")
    settled(page)
    assert page.locator(".layer-row").count() == 4
    page.focus("#overlay")
    page.keyboard.press("ArrowLeft")
    settled(page)
    added = page.locator(".layer-row").first.get_attribute("data-name")  # in front
    assert added == "shape" and place(page)["x"] == 79  # centred at 80, then nudged


def test_template_content_is_shown_as_text_never_as_html(page, live):
    account = live.account()
    hostile = "<img src=x onerror=window.hacked=1>"
    card = text_template("hostile")
    card["name"] = hostile
    card["layers"][1]["name"] = hostile
    card["layers"][1]["text"] = f"</textarea>{hostile}"
    live.add_template(account, card)
    open_stored(page, live, account, "hostile")
    page.click(".layer-row:nth-child(1) .layer-name")  # the title, in front of the box
    page.click("#tab-versions")
    page.click("#tab-template")
    assert page.text_content(".layer-row:nth-child(1) .layer-name") == hostile
    assert page.input_value("#pane-template [aria-label='name']") == hostile
    assert page.input_value("#pane-layer [aria-label='text']") == f"</textarea>{hostile}"
    assert page.evaluate("window.hacked") is None
    assert page.locator("img[src='x']").count() == 0


def test_grids_keep_every_edit_and_add_rows(page, live):
    account = live.account()
    open_editor(page, live, account)
    add(page, "table")
    page.fill("[aria-label='rows 1 item']", "Espresso")
    page.fill("[aria-label='rows 2 price']", "4.2")
    settled(page)
    page.click("#pane-layer .grid-actions button:has-text('add a row')")
    settled(page)
    # typed key by key, slower than renders: the field keeps its focus and every key
    page.locator("[aria-label='rows 3 item']").press_sequentially("Cake", delay=120)
    settled(page)
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "rows 3 item"
    add(page, "chart")
    page.select_option("#pane-layer [aria-label='rows kind']", label="list of chart series")
    settled(page)
    page.click("#pane-layer .grid-actions button:has-text('add a row')")
    page.fill("[aria-label='rows 1 name']", "2026")
    page.click("[aria-label='edit rows 1 data']")
    page.click("#pane-layer .nested .grid-actions button:has-text('add a row')")
    page.fill("[aria-label='rows 1 data 1 label']", "Q1")
    page.fill("[aria-label='rows 1 data 1 value']", "12")
    settled(page)
    save(page, 1)
    (saved,) = httpx.get(f"{live.root}/v1/templates", headers={"Authorization": f"Bearer {account.key}"}).json()
    source = httpx.get(
        f"{live.root}/v1/templates/{saved['id']}/source", headers={"Authorization": f"Bearer {account.key}"}
    )
    table, chart = source.json()["layers"]
    assert table["rows"] == [
        {"item": "Espresso", "price": 3.5},
        {"item": "Tea", "price": 4.2},
        {"item": "Cake", "price": ""},
    ]
    assert chart["rows"] == [{"name": "2026", "data": [{"label": "Q1", "value": 12}]}]


def test_a_key_in_a_link_fills_the_field_and_waits_for_the_user_to_connect(page, live):
    account = live.account()
    live.add_template(account, text_template())
    calls: list[str] = []
    page.on("request", lambda request: "/v1/" in request.url and calls.append(request.url))
    # a link as an attacker would send it, with their own key, claiming to be the local editor
    page.goto(f"{live.root}/editor/#key={account.key}&template=card&local=1")
    page.wait_for_selector("#link-key:not([hidden])")
    page.wait_for_load_state("networkidle")
    assert "The link you opened holds an API key" in page.text_content("#link-key")
    assert page.text_content("#link-key-start") == f"{account.key[:12]}…"
    assert page.input_value("#key") == account.key
    assert page.url == f"{live.root}/editor/#template=card&local=1"  # the key left the address
    assert calls == [] and page.is_hidden("#workspace")  # nothing loaded, nothing to save into
    page.click("#connect button")
    page.wait_for_selector("#workspace:not([hidden])")
    settled(page)
    assert page.is_hidden("#link-key") and page.input_value("#templates") == "card"


def test_every_answer_of_the_pages_carries_the_security_headers(live):
    expected = page_headers()
    files = [f"/{path.relative_to(WEB).as_posix()}" for path in WEB.rglob("*") if path.suffix in PAGE_SUFFIXES]
    assert "/editor/main.js" in files and "/playground/style.css" in files
    for path, status in [(p, 200) for p in files] + [("/editor", 307), ("/playground/", 200), ("/editor/x.js", 404)]:
        answer = httpx.get(f"{live.root}{path}")
        assert answer.status_code == status, path
        assert {name: answer.headers.get(name) for name in expected} == expected, path


def test_an_injected_inline_script_does_not_run(page, live, csp_violations):
    open_editor(page, live, live.account())
    page.evaluate(
        """() => document.body.append(Object.assign(document.createElement('script'), {
            textContent: 'window.hacked = true',
        }))"""
    )
    assert page.evaluate("window.hacked") is None
    assert any("script-src" in violation for violation in csp_violations)
    csp_violations.clear()  # provoked on purpose


def test_a_new_text_grows_with_its_type_try_it_starts_from_the_design_and_a_save_lists_it(page, live):
    account = live.account()
    live.add_template(account, text_template())
    open_editor(page, live, account)
    assert page.locator("#templates option").all_text_contents()[0] == "choose… (1)"
    add(page, "text")
    assert place(page)["height"] == 80
    # larger type: the box grows to show all of the text rather than cutting it with "…"
    page.fill("#pane-layer [aria-label='size']", "120")
    page.wait_for_function("() => Number(document.querySelector(\"#pane-layer [aria-label='height']\").value) > 80")
    settled(page)
    grown = place(page)
    assert grown["height"] >= 2 * 120 * 1.2  # two lines of 120 px type in 480 px
    assert "cut" not in page.text_content("#render-note")
    page.click("#undo")  # the size and the growth are one step
    settled(page)
    assert place(page)["height"] == 80 and page.input_value("#pane-layer [aria-label='size']") == "48"
    page.click("#redo")
    settled(page)
    # a box made smaller by hand stays as it is made: the text is cut, with a warning
    page.fill("#pane-layer [aria-label='height']", "100")
    settled(page)
    assert place(page)["height"] == 100 and "cut" in page.text_content("#render-note")

    # Try it starts from the design's values, and follows the design until written in
    page.click("#tab-try")
    assert json.loads(page.input_value("#try-modifications")) == [{"name": "text", "text": "Your text here"}]
    select(page, "text")
    page.fill("#pane-layer [aria-label='text']", "Changed")
    settled(page)
    page.click("#tab-try")
    assert json.loads(page.input_value("#try-modifications")) == [{"name": "text", "text": "Changed"}]

    save(page, 1)
    listed = httpx.get(f"{live.api}/templates", headers=account.bearer).json()
    (created,) = [t for t in listed if t["id"] != "card"]
    page.wait_for_function("() => document.getElementById('templates').options[0].text === 'choose… (2)'")
    assert page.input_value("#templates") == created["id"]


CAPTIONED = {
    "id": "captioned",
    "name": "Captioned",
    "width": 160,
    "height": 96,
    "background": "#000000",
    "video": {"duration": 2, "fps": 10},
    "layers": [
        {"type": "shape", "name": "corner", "x": 0, "y": 0, "width": 40, "height": 40, "fill": "#ff0000"},
        {
            "type": "captions",
            "name": "subs",
            "x": 0,
            "y": 48,
            "width": 160,
            "height": 48,
            "size": 20,
            "minSize": 10,
            "cues": [{"start": 0.2, "end": 0.8, "text": "One"}, {"start": 1.0, "end": 1.8, "text": "Two <b>more</b>"}],
        },
    ],
}

# draws the shown picture (an <img> or a <video>'s current frame) into a canvas and
# reads a pixel back: what the browser decoded, not what the server sent
READ_PIXEL = """([selector, x, y]) => {
    const shown = document.querySelector(selector);
    const canvas = document.createElement('canvas');
    canvas.width = shown.naturalWidth || shown.videoWidth;
    canvas.height = shown.naturalHeight || shown.videoHeight;
    const context = canvas.getContext('2d');
    context.drawImage(shown, 0, 0);
    return [canvas.width, canvas.height, ...context.getImageData(x, y, 1, 1).data];
}"""


def test_captions_cues_on_the_timeline_and_every_video_format_plays_in_try_it(page, live):
    account = live.account()
    live.add_template(account, CAPTIONED)
    open_stored(page, live, account, "captioned")
    marks = page.locator("#timeline .cue")
    marks.first.wait_for()
    assert marks.evaluate_all("marks => marks.map(m => m.getAttribute('aria-label'))") == [
        "cue 0.20 to 0.80 seconds: One",
        "cue 1.00 to 1.80 seconds: Two more",
    ]
    marks.nth(1).click()  # shows the cue's first moment on the canvas
    assert page.text_content("#moment") == "1.00 s"
    settled(page)

    page.click("#tab-try")
    for format in ("gif", "webp", "webm", "mp4"):
        page.select_option("#try-video-format", format)
        page.click("#try-video")
        if format in ("gif", "webp"):
            page.wait_for_selector("#try-result img")
            page.wait_for_function("() => document.querySelector('#try-result img').complete")
            width, height, *corner = page.evaluate(READ_PIXEL, ["#try-result img", 10, 10])
        else:
            page.wait_for_selector("#try-result video")
            video = "document.querySelector('#try-result video')"
            page.evaluate(f"() => {{ const v = {video}; v.muted = true; v.currentTime = 0.5; }}")
            page.wait_for_function(f"() => {video}.readyState >= 2 && !{video}.seeking")
            width, height, *corner = page.evaluate(READ_PIXEL, ["#try-result video", 10, 10])
        assert (width, height) == (160, 96), format
        assert corner[0] > 200 and corner[1] < 60 and corner[2] < 60 and corner[3] == 255, (format, corner)
