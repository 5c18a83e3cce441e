"""The template editor in a real browser (Debian's Chromium, driven by Playwright) on a
live server: a design made from a blank template with the mouse and the inspector,
snapping, undo and redo, saving versions, and the canvas's image being the bytes that
/v1 renders of the saved version."""

from __future__ import annotations

import base64

import httpx
import pytest

pytest.importorskip("playwright.sync_api")


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


def select(page, name: str) -> None:
    page.click(f".layer-row[data-name='{name}'] .layer-name")


def canvas_bytes(page) -> bytes:
    encoded = page.evaluate(
        """async () => {
            const blob = await (await fetch(document.getElementById('canvas').src)).blob();
            return await new Promise((done) => {
                const reader = new FileReader();
                reader.onload = () => done(reader.result.split(',')[1]);
                reader.readAsDataURL(blob);
            });
        }"""
    )
    return base64.b64decode(encoded)


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
    assert page.locator(".layer-row").evaluate_all("rows => rows.map(r => r.dataset.name)") == [
        "text",
        "image",
        "qrcode",
        "table",
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

    page.click("#save")
    page.wait_for_function("document.getElementById('status').textContent.startsWith('saved: version 1')")
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
    page.keyboard.press("Control+s")
    page.wait_for_function("document.getElementById('status').textContent.startsWith('saved: version 2')")
    page.reload()
    page.fill("#key", account.key)
    page.click("#connect button")
    page.wait_for_selector("#workspace:not([hidden])")
    page.select_option("#templates", saved["id"])
    settled(page)
    page.click("#tab-versions")
    page.wait_for_selector("#versions li:nth-child(2)")
    listed = page.locator("#versions li").all_text_contents()
    assert listed[0].startswith("v2") and "(current)" in listed[0]
    assert listed[1].startswith("v1")
