"""Chart rasterising: Plotly figures to PNG through one warm Chrome.

Starting Chrome and loading plotly.js takes a second or two, so one Kaleido browser is
started on the first chart and then drives every chart of the process; it is closed at
exit. Kaleido is asyncio: it lives on an event loop in its own thread, and callers from
any thread hand it work one chart at a time. A crashed or stuck browser is restarted
once before the chart fails.

Chrome draws and measures text with templatekit's fonts only: it gets its own
fontconfig file listing the bundled fonts and a folder of the template's font files
(renamed to a family derived from their content, so that two templates' "Brand Sans"
never mix). Chrome reads its fonts when it starts, so a new template font restarts it.
It also gets no network: figures carry all their data inline.

Renders are cached by the content of the figure and the pixel size.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import hashlib
import io
import json
import logging
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from attrs import field, frozen
from PIL import Image as PILImage

from templatekit import extras
from templatekit.cache import BoundedCache
from templatekit.errors import RenderError
from templatekit.text.fonts import FONT_DIR, Face

try:
    import kaleido
    from choreographer.browsers import Chromium
    from kaleido.errors import JavascriptError, KaleidoError
except ImportError as exc:  # the charts extra is not installed
    raise RenderError(extras.explain("charts", exc)) from exc

T = TypeVar("T")
_logger = logging.getLogger(__name__)

SCALE = 2.0  # device pixels per layer pixel: crisp when the painter scales the canvas
RENDER_TIMEOUT = 30.0  # seconds for one chart before Chrome counts as stuck
START_TIMEOUT = 60.0
CLOSE_TIMEOUT = 10.0

BROWSER_ENV = ("TEMPLATEKIT_CHROME", "BROWSER_PATH")
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
BROWSER_PATHS = ("/usr/bin/chromium",)
INSTALL_HINT = (
    "charts need Chrome or Chromium: install it (Debian/Ubuntu: apt-get install chromium) "
    "or set TEMPLATEKIT_CHROME to its path"
)

# Chrome may only use the fonts below: nothing from the system, so charts look the same
# on every machine. Grayscale antialiasing: colour fringes would show once downscaled.
FONTCONFIG = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>{bundled}</dir>
  <dir>{template}</dir>
  <cachedir>{cache}</cachedir>
  <alias><family>sans-serif</family><prefer><family>Inter</family></prefer></alias>
  <alias><family>serif</family><prefer><family>Inter</family></prefer></alias>
  <alias><family>monospace</family><prefer><family>Inter</family></prefer></alias>
  <match target="font">
    <edit name="antialias" mode="assign"><bool>true</bool></edit>
    <edit name="hinting" mode="assign"><bool>true</bool></edit>
    <edit name="hintstyle" mode="assign"><const>hintslight</const></edit>
    <edit name="rgba" mode="assign"><const>none</const></edit>
  </match>
</fontconfig>
"""


@frozen
class Raster:
    """A rendered chart: ``key`` identifies its content, ``image`` is the decoded PNG."""

    key: str
    image: PILImage.Image = field(eq=False, repr=False)


# Kept from their first use, unlike data that is cheap to make again: a miss costs the
# browser's hundreds of milliseconds, and the share of the budget bounds what is kept.
_RASTERS: BoundedCache[str, Raster] = BoundedCache(128, name="charts.rasters")


def rasterise(figure: Mapping[str, Any], width: int, height: int, *, layer: str, scale: float = SCALE) -> Raster:
    """The figure as a PNG of ``width`` × ``height`` layer pixels at ``scale``.
    ``layer`` names the chart in errors."""
    key = figure_key(figure, width, height, scale)
    cached = _RASTERS.get(key)
    if cached is not None:
        return cached
    png = _BROWSER.render(figure, {"format": "png", "width": width, "height": height, "scale": scale}, layer)
    image = PILImage.open(io.BytesIO(png))
    image.load()
    raster = Raster(key, image)
    _RASTERS.put(key, raster, image.width * image.height * 4)
    return raster


_VECTORS: BoundedCache[str, bytes] = BoundedCache(128, name="charts.vectors")


def vectorise(figure: Mapping[str, Any], width: int, height: int, *, layer: str) -> bytes:
    """The figure as SVG of ``width`` × ``height`` px (for vector output such as PDF)."""
    key = figure_key(figure, width, height, 0)
    cached = _VECTORS.get(key)
    if cached is None:
        cached = _BROWSER.render(figure, {"format": "svg", "width": width, "height": height, "scale": 1}, layer)
        _VECTORS.put(key, cached, len(cached))
    return cached


def figure_key(figure: Mapping[str, Any], width: int, height: int, scale: float) -> str:
    """A hash of everything a render depends on (template fonts are named by content)."""
    text = json.dumps([figure, width, height, scale], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def font_family(faces: Sequence[Face]) -> str:
    """The family name under which Chrome knows these template faces (supplied as
    files), installing them for the browser first."""
    return _FONTS.add(faces)


def browser_starts() -> int:
    """How many times a browser was started in this process (restarts included)."""
    return _BROWSER.starts


def shutdown() -> None:
    """Close the browser; the next chart starts a new one."""
    _BROWSER.stop()


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


class _Fonts:
    """The fontconfig file Chrome starts with, and the folder of template fonts it lists.
    ``version`` counts the fonts added, so that the browser knows when it is out of date."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._root: Path | None = None
        self.version = 0

    @property
    def config(self) -> Path:
        with self._lock:
            return self._ensure_root() / "fonts.conf"

    def add(self, faces: Sequence[Face]) -> str:
        hashes = [hashlib.sha256(face.file.data or b"").hexdigest() for face in faces]
        identity = "".join(f"{face.weight}{face.italic}{digest}" for face, digest in zip(faces, hashes, strict=True))
        family = "tk" + hashlib.sha256(identity.encode()).hexdigest()[:16]
        with self._lock:
            folder = self._ensure_root() / "fonts"
            for face, digest in zip(faces, hashes, strict=True):
                path = folder / f"{family}-{digest[:16]}.ttf"
                if not path.exists():
                    path.write_bytes(_renamed(face, family))
                    self.version += 1
        return family

    def remove(self) -> None:
        with self._lock:
            if self._root is not None:
                shutil.rmtree(self._root, ignore_errors=True)
                self._root = None

    def _ensure_root(self) -> Path:
        if self._root is None:
            root = Path(tempfile.mkdtemp(prefix="templatekit-chrome-"))
            (root / "fonts").mkdir()
            text = FONTCONFIG.format(bundled=FONT_DIR, template=root / "fonts", cache=root / "cache")
            (root / "fonts.conf").write_text(text, encoding="utf-8")
            self._root = root
        return self._root


def _renamed(face: Face, family: str) -> bytes:
    """The face's font file with ``family`` as its only family name and the face's
    weight, so that Chrome picks the same face for a weight as text layout does."""
    from fontTools.ttLib import TTFont  # only template fonts need it

    font = TTFont(io.BytesIO(face.file.data or b""), fontNumber=face.file.index)
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 16, 21):
            names.setName(family, record.nameID, record.platformID, record.platEncID, record.langID)
    if "OS/2" in font:
        font["OS/2"].usWeightClass = face.weight
    font.flavor = None
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


class _Chromium(Chromium):
    """Chromium with its own fontconfig file and without network access (all requests
    go to a closed local port; file URLs, which Kaleido's page needs, still load)."""

    def __init__(self, channel: Any, path: str | None = None, *, fontconfig: str, **kwargs: Any) -> None:
        super().__init__(channel, path, **kwargs)
        self._fontconfig = fontconfig

    def get_env(self) -> dict[str, str]:
        return {**super().get_env(), "FONTCONFIG_FILE": self._fontconfig}

    def get_cli(self) -> list[str]:
        return [*super().get_cli(), "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>"]


class _Session:
    """A running browser and the event loop thread that drives it. Each browser gets a
    loop of its own, so that cleaning up after a crashed one never holds up the next."""

    def __init__(self, path: str, fontconfig: str) -> None:
        self._loop = asyncio.new_event_loop()
        self._loop.set_exception_handler(_log_orphan)
        threading.Thread(target=_serve, args=(self._loop,), name="templatekit-chrome", daemon=True).start()
        try:
            self.kaleido = self.run(_open_browser(path, fontconfig), START_TIMEOUT)
        except BaseException:
            self._loop.call_soon_threadsafe(self._loop.stop)
            raise

    @property
    def alive(self) -> bool:
        return self.kaleido.subprocess.poll() is None

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float) -> T:
        """Run a coroutine on the browser's loop; TimeoutError when it takes too long."""
        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        try:
            return future.result(timeout)
        except TimeoutError:
            future.cancel()
            raise

    def close(self) -> None:
        """Close the browser, or kill it if it will not close. A browser that has exited
        already is left to Kaleido's watchdog, which cleans up after it on this loop."""
        if not self.alive:
            self._loop.call_soon_threadsafe(self._loop.call_later, CLOSE_TIMEOUT, self._loop.stop)
            return
        with contextlib.suppress(Exception):
            self.run(self.kaleido.close(), CLOSE_TIMEOUT)
        if self.alive:
            _kill(self.kaleido.subprocess)
        self._loop.call_soon_threadsafe(self._loop.stop)


async def _open_browser(path: str, fontconfig: str) -> kaleido.Kaleido:
    browser = kaleido.Kaleido(path=path, browser_cls=_Chromium, fontconfig=fontconfig, mathjax=False, timeout=None, n=1)
    try:
        await browser.open()
    except BaseException:
        await browser.close()
        raise
    return browser


def _log_orphan(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """Kaleido's own tasks can fail after their chart was abandoned (a timeout, a crash);
    the chart has already failed or been retried, so these are only logged."""
    _logger.debug("browser task: %s", context.get("message"), exc_info=context.get("exception"))


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    loop.run_forever()
    loop.close()


class _Browser:
    """The process's browser, started on first use; ``render`` may be called from any
    thread and runs one chart at a time."""

    def __init__(self, fonts: _Fonts) -> None:
        self.starts = 0
        self._fonts = fonts
        self._fonts_version = -1
        self._lock = threading.Lock()
        self._session: _Session | None = None

    def render(self, figure: Mapping[str, Any], opts: Mapping[str, Any], layer: str) -> bytes:
        """PNG bytes; a crash or timeout restarts the browser once, then fails."""
        failure: BaseException | None = None
        with self._lock:
            for _ in range(2):
                try:
                    session = self._ready()
                    work = session.kaleido.calc_fig(dict(figure), opts=dict(opts))
                    return session.run(work, RENDER_TIMEOUT)
                except (KaleidoError, JavascriptError) as exc:
                    raise RenderError(f"layer {layer!r}: Plotly could not draw the chart: {exc}") from exc
                except RenderError as exc:  # no browser to be found
                    raise RenderError(f"layer {layer!r}: {exc}") from None
                except Exception as exc:  # a crash, a hang, a broken pipe: start afresh
                    failure = exc
                    self._close()
        reason = "timed out" if isinstance(failure, TimeoutError) else f"failed ({failure!r})"
        raise RenderError(f"layer {layer!r}: Chrome {reason} rendering the chart, also after a restart") from failure

    def stop(self) -> None:
        with self._lock:
            self._close()

    def _ready(self) -> _Session:
        """The running browser, (re)started if it died or the fonts changed."""
        if self._session is not None and (not self._session.alive or self._fonts_version != self._fonts.version):
            self._close()
        if self._session is None:
            path = find_browser()
            self._fonts_version = self._fonts.version
            self.starts += 1
            self._session = _Session(path, str(self._fonts.config))
        return self._session

    def _close(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            session.close()


def _kill(process: subprocess.Popen[Any]) -> None:
    """Kill the browser and its helper processes (they share its process group)."""
    try:
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
        process.wait(CLOSE_TIMEOUT)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass


_FONTS = _Fonts()
_BROWSER = _Browser(_FONTS)


@atexit.register
def _at_exit() -> None:
    shutdown()
    _FONTS.remove()


def _after_fork() -> None:
    """A forked worker has none of its parent's threads: it starts a browser of its own,
    with a font folder of its own, instead of waiting on the parent's."""
    global _FONTS, _BROWSER
    _FONTS = _Fonts()
    _BROWSER = _Browser(_FONTS)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
