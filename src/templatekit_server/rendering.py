"""Renders run in worker processes, never on the event loop.

``RenderPool`` is a pebble process pool: a render that takes longer than its time limit
has its worker killed, a worker that dies fails only the render it was doing, and either
way the pool starts a fresh worker. Workers read templates from the database themselves
(cached by id and version), so a request sends only ids and modifications.

Failures come back as ``Failure`` values (an API code and message), mapped from the
library's exceptions in the worker, so that the server gets the answer to send and
nothing else to interpret.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import tempfile
import threading
import time
from concurrent.futures import TimeoutError as FutureTimeout
from functools import lru_cache
from pathlib import Path
from typing import Any

from attrs import frozen
from pebble import ProcessExpired, ProcessPool

import templatekit as tk
from templatekit.errors import TemplatekitError
from templatekit.model.template import Template
from templatekit.storage import Store
from templatekit_server import catalog, events
from templatekit_server.db import Database
from templatekit_server.errors import ApiError, from_library
from templatekit_server.settings import Settings

log = logging.getLogger("templatekit.server")


@frozen
class StillJob:
    """An image or PDF render of a stored template version."""

    workspace_id: str
    template_id: str
    version: int
    modifications: Any
    output: str  # png, jpeg, webp or pdf
    thumbnail: bool = False
    debug: bool = False


@frozen
class StillOutput:
    data: bytes
    media_type: str
    width: int
    height: int
    warnings: tuple[str, ...]


@frozen
class VideoJob:
    video_id: str
    workspace_id: str
    template_id: str
    version: int
    modifications: Any
    file_key: str


@frozen
class VideoOutput:
    width: int
    height: int
    warnings: tuple[str, ...]


@frozen
class Failure:
    code: str
    message: str

    def error(self) -> ApiError:
        return ApiError(self.code, self.message)


# ------------------------------------------------------------------ in the worker


class _Worker:
    """What a worker process keeps between renders."""

    db: Database
    store: Store
    assets: tk.AssetLoader


def _start_worker(settings: Settings) -> None:
    _Worker.db = Database(settings.database)
    _Worker.store = Store(settings.storage, timeout=settings.storage_timeout)
    _Worker.assets = tk.AssetLoader(
        allow=settings.fetch_allow.split(","),
        allow_files=False,
        timeout=settings.fetch_timeout,
        max_bytes=settings.fetch_max_bytes,
        max_media_bytes=settings.media_max_bytes,
        max_pixels=settings.max_pixels,
    )
    _exit_with_parent()


def _exit_with_parent() -> None:
    """A worker whose server died (killed, say) stops too, instead of rendering on for
    nobody: the job it had is taken over by the next server."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="templatekit-parent-watch", daemon=True).start()


@lru_cache(maxsize=64)
def _template(workspace_id: str, template_id: str, version: int) -> Template:
    return tk.load_template(catalog.body(_Worker.db, workspace_id, template_id, version))


def render_still(job: StillJob) -> StillOutput | Failure:
    try:
        template = _template(job.workspace_id, job.template_id, job.version)
        if job.output == "pdf":
            result = tk.render_pdf(template, job.modifications, debug=job.debug, assets=_Worker.assets)
        else:
            result = tk.render_image(
                template,
                job.modifications,
                format=job.output,
                thumbnail=job.thumbnail,
                debug=job.debug,
                assets=_Worker.assets,
            )
    except TemplatekitError as exc:
        error = from_library(exc)
        return Failure(error.code, error.message)
    except ApiError as exc:
        return Failure(exc.code, exc.message)
    return StillOutput(result.data, result.media_type, result.width, result.height, result.warnings)


class ProgressEvents:
    """Records progress events for a job: when another twentieth of the frames is done,
    a second has passed, or the last frame is done (the interface promises at least every
    tenth and every 2 s; the library reports more often than the database needs)."""

    def __init__(self, video_id: str) -> None:
        self.video_id = video_id
        self.recorded = 0
        self.at = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done == total or (done - self.recorded) * 20 >= total or now - self.at >= 1.0:
            events.record_progress(_Worker.db, self.video_id, done, total)
            self.recorded, self.at = done, now


def render_movie(job: VideoJob) -> VideoOutput | Failure:
    """Render a video job to a scratch file, store it under ``job.file_key`` and record
    progress events on the way."""
    with tempfile.TemporaryDirectory(prefix="templatekit-video-") as scratch:
        path = Path(scratch) / "video.mp4"
        try:
            template = _template(job.workspace_id, job.template_id, job.version)
            result = tk.render_video(
                template, job.modifications, path=path, assets=_Worker.assets, on_progress=ProgressEvents(job.video_id)
            )
            _Worker.store.put_file(job.file_key, path, "video/mp4")
        except TemplatekitError as exc:
            error = from_library(exc)
            return Failure(error.code, error.message)
        except ApiError as exc:
            return Failure(exc.code, exc.message)
    return VideoOutput(result.width, result.height, result.warnings)


# ------------------------------------------------------------------ in the server


class RenderPool:
    """Worker processes for renders, started on first use."""

    def __init__(self, settings: Settings, workers: int, timeout: float) -> None:
        self.settings = settings
        self.workers = workers
        self.timeout = timeout
        self._pool: ProcessPool | None = None

    def _started(self) -> ProcessPool:
        if self._pool is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["templatekit_server.rendering"])
            self._pool = ProcessPool(
                max_workers=self.workers, initializer=_start_worker, initargs=(self.settings,), context=context
            )
        return self._pool

    async def run(self, function: Any, job: Any) -> Any:
        """``function(job)`` in a worker; ApiError when it fails, times out or its worker dies."""
        try:
            future = self._started().submit(function, self.timeout, job)
        except RuntimeError:  # pebble's pool broke (a worker died at a bad moment): start a new one
            log.warning("the render pool stopped working; starting a new one")
            self._discard()
            future = self._started().submit(function, self.timeout, job)
        try:
            outcome = await asyncio.wrap_future(future)
        except FutureTimeout:
            raise ApiError(
                "INTERNAL_SERVER_ERROR", f"the render took longer than {self.timeout:g} s and was stopped"
            ) from None
        except ProcessExpired as exc:
            raise ApiError(
                "INTERNAL_SERVER_ERROR", f"the render worker stopped unexpectedly (exit code {exc.exitcode})"
            ) from None
        except asyncio.CancelledError:
            future.cancel()  # the client went away: stop the render (pebble kills its worker)
            raise
        if isinstance(outcome, Failure):
            raise outcome.error()
        return outcome

    def _discard(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            with contextlib.suppress(Exception):
                pool.stop()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.stop()
            self._pool.join(timeout=10)
            self._pool = None
