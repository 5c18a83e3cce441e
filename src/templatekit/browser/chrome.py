"""One warm Chrome, driven through Kaleido, for the whole process.

Starting Chrome and loading plotly.js takes a second or two, so one Kaleido browser is
started on the first figure and then draws every figure of the process; it is closed at
exit. Kaleido is asyncio: it lives on an event loop in its own thread, and callers from
any thread hand it work one figure at a time. A crashed or stuck browser is restarted
once before the figure fails. Chrome gets no network: figures carry all their data inline.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import signal
import subprocess
import threading
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any, TypeVar

from templatekit import extras
from templatekit.browser.fonts import FontFolder
from templatekit.browser.locate import find_browser
from templatekit.errors import RenderError
from templatekit.text.fonts import Face

try:
    import kaleido
    from choreographer.browsers import Chromium
    from kaleido.errors import JavascriptError, KaleidoError
except ImportError as exc:  # the charts extra is not installed
    raise RenderError(extras.explain("charts", exc)) from exc

T = TypeVar("T")
_logger = logging.getLogger(__name__)

RENDER_TIMEOUT = 30.0  # seconds for one figure before Chrome counts as stuck
START_TIMEOUT = 60.0
CLOSE_TIMEOUT = 10.0


def render(figure: Mapping[str, Any], opts: Mapping[str, Any], layer: str) -> bytes:
    """The figure drawn by Kaleido with ``opts`` (format, size, scale); ``layer`` names
    the chart in errors."""
    return _BROWSER.render(figure, opts, layer)


def font_family(faces: Sequence[Face]) -> str:
    """The family name under which Chrome knows these template faces (supplied as
    files), installing them for the browser first."""
    return _FONTS.add(faces)


def browser_starts() -> int:
    """How many times a browser was started in this process (restarts included)."""
    return _BROWSER.starts


def shutdown() -> None:
    """Close the browser; the next figure starts a new one."""
    _BROWSER.stop()


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
    """Kaleido's own tasks can fail after their figure was abandoned (a timeout, a crash);
    the figure has already failed or been retried, so these are only logged."""
    _logger.debug("browser task: %s", context.get("message"), exc_info=context.get("exception"))


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    loop.run_forever()
    loop.close()


class _Browser:
    """The process's browser, started on first use; ``render`` may be called from any
    thread and runs one figure at a time."""

    def __init__(self, fonts: FontFolder) -> None:
        self.starts = 0
        self._fonts = fonts
        self._fonts_version = -1
        self._lock = threading.Lock()
        self._session: _Session | None = None

    def render(self, figure: Mapping[str, Any], opts: Mapping[str, Any], layer: str) -> bytes:
        """The drawn figure's bytes; a crash or timeout restarts the browser once, then fails."""
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


_FONTS = FontFolder()
_BROWSER = _Browser(_FONTS)


@atexit.register
def _at_exit() -> None:
    shutdown()
    _FONTS.remove()


def _after_fork() -> None:
    """A forked worker has none of its parent's threads: it starts a browser of its own,
    with a font folder of its own, instead of waiting on the parent's."""
    global _FONTS, _BROWSER
    _FONTS = FontFolder()
    _BROWSER = _Browser(_FONTS)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
