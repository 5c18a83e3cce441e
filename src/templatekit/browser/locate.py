"""Finding the Chrome or Chromium that draws Plotly figures; no browser is started."""

from __future__ import annotations

import os
import shutil

from templatekit.errors import RenderError

BROWSER_ENV = ("TEMPLATEKIT_CHROME", "BROWSER_PATH")
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
BROWSER_PATHS = ("/usr/bin/chromium",)
INSTALL_HINT = (
    "charts need Chrome or Chromium: install it (Debian/Ubuntu: apt-get install chromium) "
    "or set TEMPLATEKIT_CHROME to its path"
)


def find_browser() -> str:
    """The Chrome or Chromium to use: ``TEMPLATEKIT_CHROME``, ``BROWSER_PATH``, then the
    usual names on PATH and install locations. Raises ``RenderError`` saying how to get one."""
    for name in BROWSER_ENV:
        value = os.environ.get(name)
        if value:
            if not _is_executable(value):
                raise RenderError(f"{INSTALL_HINT} ({name}={value!r} is not an executable file)")
            return value
    for candidate in (*(shutil.which(name) for name in BROWSER_NAMES), *BROWSER_PATHS):
        if candidate and _is_executable(candidate):
            return candidate
    raise RenderError(INSTALL_HINT)


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)
