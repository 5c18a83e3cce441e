"""Render workers that are warm before the first request.

A fresh worker's first card took four times a warm one's (fonts opened and shaped, the
PNG and PDF writers' first use), so the first seconds of a new server answered with a
p99 several times its usual. Two steps take that cost before any request pays it:

- ``warm_engine`` renders a small card as PNG and PDF with the bundled fonts at the
  weights templates use most. The render pool's fork server runs it once, by importing
  ``warm_fork_server``, and every worker forked from it, replacements included, starts
  with what it loaded.
- ``warm_templates`` runs in each image render worker as it starts: it loads the templates
  changed most recently and renders each once with its own values, so that their images
  and fonts are in the worker's caches, within a time budget.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from sqlalchemy import select

import templatekit as tk
from templatekit_server.db import Database, templates

log = logging.getLogger("templatekit.server")

#: What a worker spends at most on the stored templates before it takes requests.
TEMPLATES_BUDGET_SECONDS = 1.0

_CARD: dict[str, Any] = {
    "name": "warm-up",
    "width": 320,
    "height": 160,
    "background": "#0f172a",
    "layers": [
        {
            "type": "shape",
            "name": "panel",
            "x": 8,
            "y": 8,
            "width": 200,
            "height": 144,
            "fill": "#1e293b",
            "radius": 12,
        },
        *(
            {
                "type": "text",
                "name": f"text {weight}",
                "x": 16,
                "y": 16 + 40 * index,
                "width": 180,
                "height": 36,
                "text": "Warm-up 0123 àé",
                "weight": weight,
                "size": 18 + 4 * index,
                "color": "#f8fafc",
            }
            for index, weight in enumerate((400, 600, 700))
        ),
        {
            "type": "qrcode",
            "name": "code",
            "x": 216,
            "y": 24,
            "width": 96,
            "height": 96,
            "qrcode": "https://example.com/warm",
        },
    ],
}


def warm_engine() -> None:
    """One small card as PNG and as PDF; a failure is logged, never raised (a worker that
    could not warm still renders)."""
    try:
        template = tk.load_template(_CARD)
        tk.render_image(template)
        tk.render_pdf(template)
    except Exception:
        log.exception("warming the render engine failed")


class OverBudget(BaseException):
    """Raised into a warm-up render when the budget is spent (not an ``Exception``: no
    handler of the render's own may take it for a failure of its own and go on)."""


def warm_templates(db: Database, render: Callable[[str, str, int, float], None]) -> None:
    """``render(workspace, template, version, seconds left)`` for the stored image
    templates changed most recently, newest first, until the budget is spent. The budget
    holds within a render too (an alarm stops it): a template that renders for a minute
    must not keep each new worker, replacements included, from taking requests."""
    deadline = time.monotonic() + TEMPLATES_BUDGET_SECONDS
    template_id = ""
    try:
        with _alarm(TEMPLATES_BUDGET_SECONDS):
            for workspace_id, template_id, version in _recent(db):
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                try:
                    render(workspace_id, template_id, version, left)
                except Exception as exc:  # a template that cannot render now fails its requests, not the worker
                    log.info("warming template %s skipped: %s", template_id, exc)
    except OverBudget:
        log.info("warming stopped: the budget ran out while template %s was rendering", template_id)


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    """``OverBudget`` raised once in this thread after ``seconds``, unless the block ends
    first (no alarm where none can be set: outside the main thread, or on Windows)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def ring(signum: int, frame: object) -> None:
        raise OverBudget

    before = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


def _recent(db: Database, limit: int = 16) -> Iterator[tuple[str, str, int]]:
    with db.read() as connection:
        rows = connection.execute(
            select(templates.c.workspace_id, templates.c.id, templates.c.version)
            .where(templates.c.deleted_at.is_(None), templates.c.kind == "image")
            .order_by(templates.c.updated_at.desc())
            .limit(limit)
        ).all()
    for row in rows:
        yield str(row[0]), str(row[1]), int(row[2])
