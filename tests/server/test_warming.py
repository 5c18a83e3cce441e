"""A new render worker warms on the stored templates within its budget, even when one
of them renders for far longer; and a render that no worker could take in time is
answered as a busy server's."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from templatekit_server import warming
from templatekit_server.errors import ApiError
from templatekit_server.rendering import RenderPool
from templatekit_server.workers import WorkerTimedOut


def test_a_template_that_renders_past_the_budget_is_stopped_there(monkeypatch: pytest.MonkeyPatch) -> None:
    def recent(db: object) -> Iterator[tuple[str, str, int]]:
        yield from [("ws_a", "tpl_endless", 1), ("ws_a", "tpl_next", 1)]

    rendered: list[str] = []

    def render(workspace_id: str, template_id: str, version: int, seconds: float) -> None:
        rendered.append(template_id)
        try:
            while True:  # a render with no end, which also takes every failure as its own
                try:
                    sum(range(1000))
                except Exception:  # noqa: BLE001, S112 - what a render's own handler might do
                    continue
        finally:
            rendered.append(f"{template_id} stopped")

    monkeypatch.setattr(warming, "_recent", recent)
    started = time.monotonic()
    warming.warm_templates(None, render)  # type: ignore[arg-type]
    assert time.monotonic() - started < warming.TEMPLATES_BUDGET_SECONDS + 0.5
    assert rendered == ["tpl_endless", "tpl_endless stopped"]  # and the worker goes on to requests


def test_templates_within_the_budget_are_all_warmed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warming, "_recent", lambda db: iter([("ws_a", "one", 1), ("ws_b", "two", 3)]))
    rendered: list[tuple[str, str, int]] = []
    warming.warm_templates(None, lambda ws, tpl, version, seconds: rendered.append((ws, tpl, version)))  # type: ignore[arg-type]
    assert rendered == [("ws_a", "one", 1), ("ws_b", "two", 3)]


def test_a_render_no_worker_could_take_in_time_is_answered_busy_with_retry_after() -> None:
    """The workers were all busy (or starting): the client should come back, not report a
    server fault."""

    class BusyWorkers:
        async def run(self, *args: object) -> object:
            raise WorkerTimedOut(started=False)

    renders = object.__new__(RenderPool)
    renders.pool, renders.timeout = BusyWorkers(), 60.0  # type: ignore[assignment]
    with pytest.raises(ApiError) as refused:
        asyncio.run(renders.run(len, "job"))
    assert refused.value.code == "RATE_LIMITED" and refused.value.headers == {"Retry-After": "60"}
    assert "no render worker could take the render within 60 s" in refused.value.message
