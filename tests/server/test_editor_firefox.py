"""The template editor in Firefox (Debian's firefox-esr, driven over Marionette, its own
remote protocol): connect, open a template, drag a layer with the mouse, type into the
inspector, save; the canvas shows the pixels of the server's render of the saved version."""

from __future__ import annotations

import base64
import contextlib
import shutil
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import decode
from tests.server.conftest import text_template

marionette = pytest.importorskip("marionette_driver.marionette", reason="needs marionette-driver (the test extra)")
from marionette_driver.by import By  # noqa: E402

FIREFOX = shutil.which("firefox-esr") or shutil.which("firefox")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(FIREFOX is None, reason="needs Firefox (apt-get install firefox-esr)"),
]
WAIT = 30


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def firefox() -> Iterator[Any]:
    client = marionette.Marionette(host="127.0.0.1", port=_free_port(), bin=FIREFOX, headless=True)
    client.start_session()
    client.set_window_rect(width=1300, height=900)
    try:
        yield client
    finally:
        with contextlib.suppress(Exception):
            client.cleanup()


def until(client: Any, script: str) -> None:
    """Waits until ``script`` (a JavaScript expression) is true in the page."""
    deadline = time.monotonic() + WAIT
    while not client.execute_script(f"return Boolean({script})"):
        assert time.monotonic() < deadline, f"timed out waiting for {script}"
        time.sleep(0.05)


#: Keeps what the page's Content-Security-Policy refused, in the page.
REFUSALS = """window.refusals = [];
document.addEventListener('securitypolicyviolation', (event) => window.refusals.push(event.effectiveDirective));"""
SETTLED = "document.querySelector('#canvas[data-current=true]')"


def value(client: Any, selector: str) -> str:
    return str(client.execute_script("return document.querySelector(arguments[0]).value", script_args=[selector]))


def test_the_editor_in_firefox(firefox, live):
    account = live.account()
    live.add_template(account, text_template("card"))
    firefox.navigate(f"{live.root}/editor/")
    firefox.execute_script(REFUSALS, sandbox=None)
    firefox.find_element(By.ID, "key").send_keys(account.key)
    firefox.find_element(By.CSS_SELECTOR, "#connect button").click()
    until(firefox, "!document.getElementById('workspace').hidden")
    firefox.find_element(By.CSS_SELECTOR, "#templates option[value='card']").click()
    until(firefox, "document.querySelector('.layer-row')")
    until(firefox, SETTLED)

    # drag the title 30 px right and 10 down (the 240×120 card is shown at 100 %)
    title = firefox.find_element(By.CSS_SELECTOR, ".box[data-name='title']")
    rect = firefox.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return [r.x, r.y, r.width, r.height]", script_args=[title]
    )
    x, y = int(rect[0] + rect[2] / 2), int(rect[1] + rect[3] / 2)
    mouse = firefox.actions.sequence("pointer", "mouse", {"pointerType": "mouse"})
    mouse.pointer_move(x, y).pointer_down().pointer_move(x + 15, y + 5).pointer_move(
        x + 30, y + 10
    ).pointer_up().perform()
    until(firefox, SETTLED)
    moved = {name: value(firefox, f"#pane-layer [aria-label='{name}']") for name in ("x", "y")}
    designed = next(layer for layer in text_template()["layers"] if layer["name"] == "title")
    assert moved == {"x": str(designed["x"] + 30), "y": str(designed["y"] + 10)}

    area = firefox.find_element(By.CSS_SELECTOR, "#pane-layer textarea[aria-label='text']")
    area.clear()
    area.send_keys("From Firefox")
    until(firefox, SETTLED)
    firefox.find_element(By.ID, "save").click()
    until(firefox, "document.getElementById('status').textContent.startsWith('saved: version 2')")
    until(firefox, SETTLED)
    # the canvas's pixels, read back through a canvas element: the page's policy lets it
    # fetch from its own origin only, not from the blob: URL of its image
    drawn = firefox.execute_script(
        """const image = document.getElementById('canvas');
        const canvas = Object.assign(document.createElement('canvas'), {
            width: image.naturalWidth, height: image.naturalHeight,
        });
        const context = canvas.getContext('2d');
        context.drawImage(image, 0, 0);
        const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
        return [canvas.width, canvas.height, btoa(Array.from(pixels, (byte) => String.fromCharCode(byte)).join(''))];"""
    )
    rendered = httpx.post(
        f"{live.api}/templates/createImage", json={"templateId": "card"}, headers=account.bearer, timeout=60
    )
    expected = decode(rendered.content).convert("RGBA")
    assert (drawn[0], drawn[1]) == expected.size and base64.b64decode(drawn[2]) == expected.tobytes()
    assert firefox.execute_script("return window.refusals", sandbox=None) == []
    # and what the policy refuses is seen: an inline script, as an injected tag would be
    firefox.execute_script(
        "document.body.append(Object.assign(document.createElement('script'), {textContent: 'window.hacked = 1'}))",
        sandbox=None,
    )
    refused = firefox.execute_script("return [window.refusals, window.hacked]", sandbox=None)
    assert refused == [["script-src-elem"], None]
