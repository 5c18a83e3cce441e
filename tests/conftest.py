"""Shared fixtures: small templates built in code, and a helper to decode renders."""

from __future__ import annotations

import asyncio
import base64
import io
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from templatekit.browser import find_browser
from templatekit.errors import RenderError


def layer(kind: str, name: str, **fields: Any) -> dict[str, Any]:
    base = {"type": kind, "name": name, "x": 0, "y": 0, "width": 100, "height": 100}
    return {**base, **fields}


def template(*layers: dict[str, Any], width: int = 400, height: int = 200, **fields: Any) -> dict[str, Any]:
    return {"name": "test", "width": width, "height": height, "layers": list(layers), **fields}


def one_bit_png(size: tuple[int, int]) -> bytes:
    """A one-bit PNG: a few kilobytes whatever its pixel size, for tests of pixel limits."""
    out = io.BytesIO()
    Image.new("1", size, 1).save(out, "PNG")
    return out.getvalue()


def data_uri(data: bytes, media: str = "image/png") -> str:
    return f"data:{media};base64,{base64.b64encode(data).decode()}"


def decode(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def _has_browser() -> bool:
    try:
        find_browser()
    except RenderError:
        return False
    return True


needs_chrome = pytest.mark.skipif(
    not _has_browser(),
    reason="no Chrome or Chromium found (install chromium, or set TEMPLATEKIT_CHROME to a Chrome binary)",
)


_HIDING = '''
import os
import sys


class HideModules:
    """Makes the modules named in TEMPLATEKIT_TEST_HIDE look uninstalled."""

    hidden = set(os.environ.get("TEMPLATEKIT_TEST_HIDE", "").split(","))

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in self.hidden:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, HideModules())
'''


def without_modules(folder: Path, *names: str) -> dict[str, str]:
    """Environment variables under which Python processes (and their children) start as if
    ``names`` were not installed: what a user without an optional extra has."""
    (folder / "sitecustomize.py").write_text(_HIDING)
    path = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH", "")]))
    return {"PYTHONPATH": path, "TEMPLATEKIT_TEST_HIDE": ",".join(names)}


#: Reports every breach of a page's Content-Security-Policy on the console, where the
#: ``page`` fixture collects them (Chromium also writes its own line for most).
_REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) =>
  console.error(`CSP violation: ${event.effectiveDirective} blocked ${event.blockedURI || "inline code"}`));
"""


def _breaks_policy(text: str) -> bool:
    return text.startswith("CSP violation") or "Content Security Policy" in text


@pytest.fixture
def csp_violations() -> list[str]:
    """What the ``page`` fixture's pages did that their Content-Security-Policy refused;
    a test that provokes one on purpose clears the list."""
    return []


class SharedBrowser:
    """The session's Chromium, and the event loop Playwright drives it with. Playwright's
    sync API marks its loop as the thread's running loop between its calls, which would
    stop any other code of the run from starting a loop of its own (``asyncio.run``, a
    second Playwright); the loop is marked running only while a test uses the browser."""

    def __init__(self, browser: Any, loop: asyncio.AbstractEventLoop) -> None:
        self.browser = browser
        self.loop = loop

    @contextmanager
    def in_use(self) -> Iterator[Any]:
        asyncio.events._set_running_loop(self.loop)
        try:
            yield self.browser
        finally:
            asyncio.events._set_running_loop(None)


@pytest.fixture(scope="session")
def browser() -> Iterator[SharedBrowser]:
    """Debian's Chromium driven by Playwright, started once for the whole run (once per
    worker under pytest-xdist) and shared by every test's ``page``."""
    playwright = pytest.importorskip("playwright.sync_api")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("needs Chromium (apt-get install chromium)")
    with playwright.sync_playwright() as driver:
        shared = SharedBrowser(
            driver.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"]),
            asyncio.get_running_loop(),
        )
        asyncio.events._set_running_loop(None)
        yield shared
        with shared.in_use() as chromium_browser:
            chromium_browser.close()
        asyncio.events._set_running_loop(shared.loop)  # as Playwright leaves it between calls, for its exit


@pytest.fixture
def page(browser: SharedBrowser, csp_violations: list[str]) -> Iterator[Any]:
    """A page (1300×900) in a fresh context of the session's Chromium: nothing carries over
    from another test; the test fails if the page (or one it opened) raised an error or was
    refused anything by its Content-Security-Policy."""
    with browser.in_use() as chromium:
        context = chromium.new_context(viewport={"width": 1300, "height": 900})
        context.add_init_script(_REPORT_VIOLATIONS)
        errors: list[str] = []
        context.on("weberror", lambda error: errors.append(str(error.error)))
        context.on("console", lambda message: _breaks_policy(message.text) and csp_violations.append(message.text))
        yield context.new_page()
        context.close()
    assert errors == []
    assert csp_violations == []


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "early: among the longest tests: run first, so that parallel workers do not wait for it at the end"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Modules with ``early`` tests run first, then those with slow tests, each kept whole
    and in its order: under pytest-xdist the long ones start early and the many short ones
    fill in at the end."""
    early = {item.path for item in items if item.get_closest_marker("early")}
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: (item.path not in early, item.path not in slow))
