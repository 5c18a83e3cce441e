"""The server's logs: lines that a request cannot forge, and tracebacks that an outage
cannot turn into a flood.

Anything a client sends (a path, a layer name, a message that quotes a value) may hold
CR, LF or other control characters; ``Printable`` escapes them in every record of the
server's loggers, so one record is always one line (a traceback, added by the handler,
keeps its own lines). ``Tracebacks`` logs the traceback of an error of one kind and
place at most once a minute, and a one-line summary otherwise.
"""

from __future__ import annotations

import logging
import re
import threading
import time
import traceback

LOGGERS = ("templatekit.server", "templatekit.access")

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


_CREDENTIALS = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*://)[^/?#@\s]*@")


#: Paths whose last part is a credential: an invitation's link (it makes whoever holds it a
#: member) and a hook's URL (it renders, billed). The access log names them without it.
_SECRET_PATHS = re.compile(r"(/dashboard/invite/|/v1/hooks/)[^/?#\s]+")


def redacted(text: str) -> str:
    """``text`` with the user name and password of every URL in it, and the token of every
    invitation's or hook's path, replaced by ``***``."""
    return _SECRET_PATHS.sub(r"\1***", _CREDENTIALS.sub(r"\1***@", text))


def printable(text: str) -> str:
    r"""``text`` with control characters escaped: a CR LF becomes ``\r\n`` as text."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


class Printable(logging.Filter):
    """Escapes control characters, and redacts credentials in URLs, in the message of
    every record it sees."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        escaped = printable(redacted(message))
        if escaped != message or record.args:
            record.msg, record.args = escaped, None
        return True


def install() -> None:
    """Escape control characters in everything the server's loggers write."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, Printable) for f in logger.filters):
            logger.addFilter(Printable())


class Tracebacks:
    """Decides whether an error's traceback is logged: once per ``interval`` seconds for
    each kind of error raised at one place."""

    def __init__(self, interval: float = 60.0) -> None:
        self.interval = interval
        self._last: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()

    def due(self, exc: BaseException) -> bool:
        frames = traceback.extract_tb(exc.__traceback__)
        place = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else ""
        key = (type(exc).__name__, place)
        now = time.monotonic()
        with self._lock:
            if now - self._last.get(key, -self.interval) < self.interval:
                return False
            self._last[key] = now
            return True
