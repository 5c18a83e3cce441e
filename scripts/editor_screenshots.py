"""The editor's screenshots in docs/images: a design session on the example templates,
as ``templatekit edit`` serves them (in Chromium, at 1440×900).

    python scripts/editor_screenshots.py
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "chromium"


def settled(page: Page) -> None:
    page.wait_for_selector("#canvas[data-current=true]")


def select_qr(page: Page) -> None:
    page.click(".layer-row[data-name='qr'] .layer-name")
    page.wait_for_selector("#pane-layer .scan")


def snapping(page: Page) -> None:
    """Mid-drag: the price badge drawn to the photo's edge, with the guide showing."""
    page.click(".layer-row[data-name='badge'] .layer-name")
    box = page.locator(".box[data-name='badge']").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 - 26, box["y"] + box["height"] / 2 + 30, steps=12)
    page.wait_for_selector(".guide")
    page.wait_for_timeout(300)  # the thumbnail of the drag


def timeline(page: Page) -> None:
    page.click(".layer-row[data-name='subtitle'] .layer-name")
    page.fill("#scrub", "2.2")
    page.dispatch_event("#scrub", "change")
    settled(page)


def chart(page: Page) -> None:
    page.click(".layer-row[data-name='revenue'] .layer-name")
    settled(page)


SHOTS: list[tuple[str, str, Callable[[Page], None]]] = [
    ("editor-inspector.png", "event-ticket", select_qr),
    ("editor-snapping.png", "product-card", snapping),
    ("editor-timeline.png", "promo-video", timeline),
    ("editor-chart.png", "dashboard", chart),
]


def main() -> None:
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as driver:
        copies = Path(folder) / "templates"
        shutil.copytree(ROOT / "examples" / "templates", copies)
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        for filename, template, action in SHOTS:
            command = [
                sys.executable,
                "-m",
                "templatekit.cli",
                "edit",
                str(copies / f"{template}.json"),
                "--no-browser",
            ]
            process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
            try:
                assert process.stdout is not None
                found = re.search(r"(http://\S+)", process.stdout.readline())
                assert found, "templatekit edit did not print its address"
                page = browser.new_page(viewport={"width": 1440, "height": 900})
                page.goto(found.group(1))
                settled(page)
                action(page)
                page.screenshot(path=IMAGES / filename)
                page.close()
                print(f"wrote docs/images/{filename}")
            finally:
                process.terminate()
        browser.close()


if __name__ == "__main__":
    main()
