"""The dashboard's screenshots in docs/images: `templatekit serve --demo` in a fresh data
folder, its demo owner signed in (in Chromium, at 1280×800).

    python scripts/dashboard_screenshots.py
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "chromium"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def projects(page: Page) -> None:
    page.click("header nav a:has-text('Projects')")


def new_key(page: Page) -> None:
    page.click("header nav a:has-text('Projects')")
    page.click("a:has-text('API keys')")
    page.check("input[value='templates:write']")
    page.click("button:has-text('Create key')")
    page.wait_for_selector("#new-key")


def templates(page: Page) -> None:
    page.click("header nav a:has-text('Templates')")
    page.wait_for_function("() => [...document.images].every(img => img.complete && img.naturalWidth > 0)")


def versions(page: Page) -> None:
    page.click("header nav a:has-text('Templates')")
    page.click("li[data-template='tpl_social_card'] h3 a")
    page.wait_for_function("() => [...document.images].every(img => img.complete)")


def usage(page: Page) -> None:
    page.click("header nav a:has-text('Usage')")
    page.wait_for_function("() => document.getElementById('usage-chart').complete")


def members(page: Page) -> None:
    page.click("header nav a:has-text('Members')")
    page.select_option("select[name=role]:not([aria-label])", "designer")
    page.click("button:has-text('Make an invitation')")
    page.wait_for_selector("#invitation-link")


def audit(page: Page) -> None:
    page.click("header nav a:has-text('Audit log')")


def assets(page: Page) -> None:
    page.click("header nav a:has-text('Assets')")
    page.set_input_files("input[name=file]", str(ROOT / "examples" / "templates" / "assets" / "product.jpg"))
    page.click("button:has-text('Upload')")
    page.wait_for_selector("tr[data-asset]")


def webhooks(page: Page) -> None:
    page.click("header nav a:has-text('Projects')")
    page.click("a:has-text('Webhooks')")
    page.fill("input[name=url]", "http://127.0.0.1:9/templatekit-events")  # allowed for this run: no DNS needed
    page.click("button:has-text('Add endpoint')")
    page.wait_for_selector("#new-secret")


def hooks(page: Page) -> None:
    page.click("header nav a:has-text('Projects')")
    page.click("a:text-is('Hooks')")
    page.select_option("select[name=template]", "tpl_social_card")
    page.click("button:has-text('Make hook')")
    page.wait_for_selector("#hook-url")


SHOTS: list[tuple[str, Callable[[Page], None]]] = [
    ("dashboard-projects.png", projects),
    ("dashboard-key.png", new_key),
    ("dashboard-templates.png", templates),
    ("dashboard-template.png", versions),
    ("dashboard-assets.png", assets),
    ("dashboard-webhooks.png", webhooks),
    ("dashboard-hooks.png", hooks),
    ("dashboard-usage.png", usage),
    ("dashboard-members.png", members),
    ("dashboard-audit.png", audit),
]


def main() -> None:
    port = free_port()
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as driver:
        command = [sys.executable, "-m", "templatekit.cli", "serve", "--demo", "--port", str(port), "--workers", "2"]
        command += ["--data-dir", folder]
        env = {**os.environ, "TEMPLATEKIT_FETCH_ALLOW": "127.0.0.1"}
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
        try:
            assert process.stdout is not None
            printed = []
            for text in process.stdout:
                printed.append(text)
                if text.startswith("dashboard: "):
                    break
            line = printed[-1]
            found = re.search(r"dashboard: (\S+)  sign in with (\S+) / (\S+)", line)
            assert found, line
            address, email, password = found.groups()
            key = re.search(r"Bearer (tk_live_\S+)'", "".join(printed)).group(1)  # type: ignore[union-attr]
            while True:  # until it answers (signed out: the way to the sign-in form)
                try:
                    httpx.get(address)
                    break
                except httpx.TransportError:
                    time.sleep(0.2)
            api = address.replace("/dashboard/", "/v1")
            for title in ("Launch week", "Hello", "Spring sale", "Docs"):  # usage to show
                httpx.post(
                    f"{api}/templates/createImage",
                    json={"templateId": "tpl_social_card", "modifications": {"title": title}},
                    headers={"Authorization": f"Bearer {key}"},
                    timeout=60,
                )
            browser = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(address)
            page.fill("input[name=email]", email)
            page.fill("input[name=password]", password)
            page.screenshot(path=IMAGES / "dashboard-sign-in.png")
            page.press("input[name=password]", "Enter")
            page.wait_for_selector("h2:has-text('Projects of')")
            for filename, action in SHOTS:
                action(page)
                page.screenshot(path=IMAGES / filename, full_page=True)
                print(f"wrote docs/images/{filename}")
            browser.close()
        finally:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    main()
