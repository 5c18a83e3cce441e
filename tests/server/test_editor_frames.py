"""Frames in the template editor, in a real browser (Debian's Chromium, driven by
Playwright) on a live server: layers put in a frame with Ctrl+Alt+G, the frame given a
column layout, a gap and hugging sizes in the inspector, a layer reordered by dragging it
on the canvas (the frame shows its padding, gaps and where the layer goes), rows dragged
out of and into the frame in the layers panel, and the saved version rendering the bytes
the canvas shows."""

from __future__ import annotations

import httpx
import pytest

from tests.server.test_editor import add, canvas_bytes, centre, open_editor, save, select, settled

pytestmark = pytest.mark.slow

pytest.importorskip("playwright.sync_api")


def rows(page) -> list[tuple[str, int]]:
    """The layers panel: (name, depth), the front-most first."""
    found = page.locator(".layer-row").evaluate_all("rows => rows.map(r => [r.dataset.name, Number(r.dataset.depth)])")
    return [(name, depth) for name, depth in found]


def box(page, name: str) -> dict[str, float]:
    return page.locator(f".box[data-name='{name}']").bounding_box()


def test_frame_selection_column_layout_reorder_and_the_same_bytes_over_v1(page, live):
    account = live.account()
    open_editor(page, live, account)
    page.click("#tab-template")
    page.fill("#pane-template [aria-label='width']", "600")
    page.fill("#pane-template [aria-label='height']", "400")
    settled(page)
    add(page, "shape")  # 240×160 at (180, 120)
    add(page, "shape")  # "shape 2", a step down and right: (200, 140)
    page.fill("#pane-layer [aria-label='width']", "120")
    page.fill("#pane-layer [aria-label='height']", "60")
    settled(page)

    # both selected, Ctrl+Alt+G: a frame at their bounds holds them, where they were
    select(page, "shape")
    page.click(".layer-row[data-name='shape 2'] .layer-name", modifiers=["Shift"])
    before = {name: box(page, name) for name in ("shape", "shape 2")}
    page.keyboard.press("Control+Alt+g")
    settled(page)
    assert rows(page) == [("frame", 0), ("shape 2", 1), ("shape", 1)]
    assert page.input_value("#pane-layer [aria-label='x']") == "180"
    assert page.input_value("#pane-layer [aria-label='width']") == "240"
    for name, was in before.items():
        now = box(page, name)
        assert abs(now["x"] - was["x"]) < 0.5 and abs(now["y"] - was["y"]) < 0.5, name

    # auto layout in the inspector: a column with a gap of 10 that hugs its layers
    page.click("#pane-layer [aria-label='layout'] [role=radio]:text('column')")
    settled(page)
    page.fill("#pane-layer [aria-label='gap']", "10")
    settled(page)
    page.select_option("#pane-layer [aria-label='width sizing']", "hug")
    settled(page)
    page.select_option("#pane-layer [aria-label='height sizing']", "hug")
    settled(page)
    assert page.is_disabled("#pane-layer [aria-label='height']")
    assert page.text_content("#render-note") == ""  # no warnings: the column's layers have no x or y left
    frame, first, second = box(page, "frame"), box(page, "shape"), box(page, "shape 2")
    assert (frame["x"], frame["y"]) == (first["x"], first["y"])  # the first layer at the frame's corner
    assert second["y"] - (first["y"] + first["height"]) == pytest.approx(10, abs=0.5)  # then the gap
    assert frame["width"] == pytest.approx(240, abs=0.5) and frame["height"] == pytest.approx(230, abs=0.5)

    # drag "shape 2" above "shape" on the canvas: the frame shows gaps, padding aside, and
    # a line where it would go; dropped, it is first in the column
    start = centre(page, ".box[data-name='shape 2']")
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0], first["y"] + 5, steps=8)
    assert page.locator(".mark.drop").count() == 1
    assert page.locator(".mark.gap").count() == 1
    drop = page.locator(".mark.drop").bounding_box()
    assert drop["y"] < first["y"] + 1  # above the first layer
    page.mouse.up()
    settled(page)
    assert rows(page) == [("frame", 0), ("shape", 1), ("shape 2", 1)]
    assert box(page, "shape 2")["y"] == pytest.approx(frame["y"], abs=0.5)

    # in the layers panel: out of the frame (onto the top edge of its row), then back in
    select(page, "shape")
    frame_row = page.locator(".layer-row[data-name='frame']")
    height = frame_row.bounding_box()["height"]
    page.locator(".layer-row[data-name='shape']").drag_to(frame_row, target_position={"x": 40, "y": 2})
    settled(page)
    assert rows(page) == [("shape", 0), ("frame", 0), ("shape 2", 1)]
    page.locator(".layer-row[data-name='shape']").drag_to(frame_row, target_position={"x": 40, "y": height / 2})
    settled(page)
    assert rows(page) == [("frame", 0), ("shape", 1), ("shape 2", 1)]

    save(page, 1)
    settled(page)
    drawn = canvas_bytes(page)
    bearer = {"Authorization": f"Bearer {account.key}"}
    (saved,) = httpx.get(f"{live.root}/v1/templates", headers=bearer).json()
    source = httpx.get(f"{live.root}/v1/templates/{saved['id']}/source", headers=bearer).json()
    (stored_frame,) = source["layers"]
    assert {key: stored_frame[key] for key in ("layout", "gap", "width", "height")} == {
        "layout": "column",
        "gap": 10,
        "width": "hug",
        "height": "hug",
    }
    assert [layer["name"] for layer in stored_frame["layers"]] == ["shape 2", "shape"]
    assert all("x" not in layer and "y" not in layer for layer in stored_frame["layers"])  # the column places them
    rendered = httpx.post(
        f"{live.root}/v1/templates/createImage", json={"templateId": saved["id"]}, headers=bearer, timeout=60
    )
    assert rendered.status_code == 200 and drawn == rendered.content


def test_a_frame_of_hundreds_of_long_named_layers_is_laid_out_on_the_canvas(page, live):
    account = live.account()
    names = [f"{n:03d}" + "n" * 197 for n in range(150)]
    layers = [{"type": "shape", "name": name, "width": 40, "height": 2} for name in names]
    frame = {"type": "frame", "name": "f", "x": 10, "y": 10, "width": 380, "height": 380, "layout": "column"}
    live.add_template(
        account, {"id": "many", "name": "Many", "width": 400, "height": 400, "layers": [{**frame, "layers": layers}]}
    )
    seen = []
    page.on("response", lambda answer: seen.append(answer.url) if "/templates/preview" in answer.url else None)
    page.goto(f"{live.root}/editor/")
    page.fill("#key", account.key)
    page.click("#connect button")
    page.wait_for_selector("#workspace:not([hidden])")
    page.select_option("#templates", "many")
    page.wait_for_selector(".layer-row")
    settled(page)
    assert any("details=json" in url for url in seen)  # the boxes, too large for a header
    first, last = box(page, names[0]), box(page, names[-1])
    scale = first["width"] / 40
    assert abs((last["y"] - first["y"]) / scale - 2 * 149) < 1  # where the column put it

    # a change is then rendered once: the image comes in the JSON with its details
    seen.clear()
    select(page, "f")
    page.fill("#pane-layer [aria-label='gap']", "1")
    settled(page)
    assert seen and all("details=json" in url and "image=true" in url for url in seen), seen
    first, last = box(page, names[0]), box(page, names[-1])
    assert abs((last["y"] - first["y"]) / scale - 3 * 149) < 1  # the gap's new place, from the JSON
    changed = {
        "id": "many",
        "name": "Many",
        "width": 400,
        "height": 400,
        "layers": [{**frame, "gap": 1, "layers": layers}],
    }
    rendered = httpx.post(
        f"{live.root}/v1/templates/preview",
        json={"template": changed},
        headers={"Authorization": f"Bearer {account.key}"},
        timeout=60,
    )
    assert canvas_bytes(page) == rendered.content  # the image from the JSON is the render's
