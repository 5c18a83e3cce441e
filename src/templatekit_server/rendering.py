"""Renders run in worker processes, never on the event loop.

``RenderPool`` runs them in worker processes (``workers``): a render that takes longer
than its time limit has its worker killed, a worker that dies fails only the render it
was doing, and either way a fresh worker takes its place. Workers read templates from the database themselves
(cached by id and version), so a request sends only ids and modifications.

Failures come back as ``Failure`` values (an API code and message), mapped from the
library's exceptions in the worker, so that the server gets the answer to send and
nothing else to interpret.

Each render holds to the memory budget of ``Settings.render_memory``. Memory a large
render took is given back: a worker is replaced after ``worker_max_renders`` renders,
and every answer carries the worker's resident memory, so that a worker that passes
``worker_max_rss`` is replaced once its answer is in.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import logging
import math
import multiprocessing
import os
import pickle
import tempfile
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from attrs import frozen
from sqlalchemy.exc import SQLAlchemyError

import templatekit as tk
from templatekit import Store, Template, TemplatekitError
from templatekit.service import DraftRender, memoized, render_draft
from templatekit_server import assets, catalog, events, warming
from templatekit_server.db import Database
from templatekit_server.errors import DATABASE_UNAVAILABLE, ApiError, from_library
from templatekit_server.fairness import FairQueue, Share
from templatekit_server.settings import Settings
from templatekit_server.workers import WorkerDied, WorkerPool, WorkerTimedOut

log = logging.getLogger("templatekit.server")
WORKER_NICENESS = 5


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
class DraftJob:
    """A render of a template being designed (the editor's canvas): the template is sent
    whole, as it is not stored."""

    template: dict[str, Any]
    modifications: Any
    output: str  # png, jpeg or webp
    thumbnail: bool
    scale: float
    time: float | None
    workspace_id: str = ""  # whose assets ``asset:ID`` names (none: no assets)


@frozen
class DraftOutput:
    data: bytes
    media_type: str
    warnings: tuple[str, ...]
    scans: tuple[dict[str, Any], ...]
    boxes: dict[str, tuple[float, float, float, float]]
    text_heights: dict[str, float]
    cues: dict[str, list[tuple[float, float, str]]]

    @classmethod
    def of(cls, drawn: DraftRender) -> DraftOutput:
        result = drawn.result
        scans = tuple(scan.as_json() for scan in drawn.scans)
        return cls(result.data, result.media_type, result.warnings, scans, drawn.boxes, drawn.text_heights, drawn.cues)


@frozen
class VideoJob:
    video_id: str
    workspace_id: str
    template_id: str
    version: int
    modifications: Any
    file_key: str
    output: str  # mp4, webm, gif or webp


@frozen
class VideoOutput:
    width: int
    height: int
    warnings: tuple[str, ...]


@frozen
class Measured:
    """A worker's answer and its resident memory afterwards, in bytes."""

    outcome: Any
    rss: int


@frozen
class Failure:
    code: str
    message: str
    problems: tuple[str, ...] = ()

    def error(self) -> ApiError:
        return ApiError(self.code, self.message, problems=self.problems)


# ------------------------------------------------------------------ in the worker


class _Worker:
    """What a worker process keeps between renders."""

    db: Database
    store: Store
    assets: tk.AssetLoader
    memory: int


@functools.lru_cache(maxsize=256)
def _assets_of(workspace_id: str) -> tk.AssetLoader:
    """The worker's loader (its limits and caches), reading ``asset:ID`` from the
    workspace's own assets only, and keeping what it downloads and decodes for the
    workspace alone; a job of no workspace reads none."""
    if not workspace_id:
        return _Worker.assets.with_asset_store(None)
    store = _Worker.store.below(assets.folder(workspace_id))
    exists = functools.partial(assets.exists, _Worker.db, workspace_id)
    return _Worker.assets.with_asset_store(store, exists=exists, partition=workspace_id)


def _start_worker(settings: Settings, warm: bool) -> None:
    os.nice(WORKER_NICENESS)
    _Worker.db = Database(settings.database, migrate=False)
    _Worker.store = Store(settings.storage, timeout=settings.storage_timeout)
    _Worker.assets = tk.AssetLoader(
        allow=settings.fetch_allow.split(","),
        allow_files=False,
        timeout=settings.fetch_timeout,
        max_bytes=settings.fetch_max_bytes,
        max_media_bytes=settings.media_max_bytes,
        max_pixels=settings.max_pixels,
    )
    _Worker.memory = settings.render_memory
    _exit_with_parent()
    if warm:
        warming.warm_templates(_Worker.db, _warm_render)


def _exit_with_parent() -> None:
    """A worker whose server died (killed, say) stops too, instead of rendering on for
    nobody: the job it had is taken over by the next server."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="templatekit-parent-watch", daemon=True).start()


@memoized("server.templates", 64, lambda template: len(pickle.dumps(template)))
def _template(workspace_id: str, template_id: str, version: int) -> Template:
    return tk.load_template(catalog.body(_Worker.db, workspace_id, template_id, version))


def _warm_render(workspace_id: str, template_id: str, version: int, seconds: float) -> None:
    """A stored template rendered as a request renders it, downloads waiting ``seconds``
    at most: what it loads stays in the worker's caches."""
    assets = _assets_of(workspace_id).with_timeout(seconds)
    tk.render_image(_template(workspace_id, template_id, version), assets=assets, memory_limit=_Worker.memory)


def render_still(job: StillJob) -> StillOutput | Failure:
    try:
        template = _template(job.workspace_id, job.template_id, job.version)
        if job.output == "pdf":
            result = tk.render_pdf(
                template,
                job.modifications,
                debug=job.debug,
                assets=_assets_of(job.workspace_id),
                memory_limit=_Worker.memory,
            )
        else:
            result = tk.render_image(
                template,
                job.modifications,
                format=job.output,
                thumbnail=job.thumbnail,
                debug=job.debug,
                assets=_assets_of(job.workspace_id),
                memory_limit=_Worker.memory,
            )
    except (TemplatekitError, ApiError, SQLAlchemyError) as exc:
        return _failure(exc)
    return StillOutput(result.data, result.media_type, result.width, result.height, result.warnings)


def render_draft_job(job: DraftJob) -> DraftOutput | Failure:
    try:
        drawn = render_draft(
            job.template,
            job.modifications,
            format=job.output,
            thumbnail=job.thumbnail,
            scale=job.scale,
            time=job.time,
            assets=_assets_of(job.workspace_id),
            memory_limit=_Worker.memory,
        )
    except (TemplatekitError, SQLAlchemyError) as exc:  # the database: whether an asset is still there
        return _failure(exc)
    return DraftOutput.of(drawn)


def _failure(exc: Exception) -> Failure:
    """The answer to send for a render that failed on its input, its storage or the database."""
    if isinstance(exc, TemplatekitError):
        error = from_library(exc)
    elif isinstance(exc, ApiError):
        error = exc
    else:
        log.error("database error in a render worker: %s", getattr(exc, "orig", None) or exc)
        error = ApiError("INTERNAL_SERVER_ERROR", DATABASE_UNAVAILABLE)
    return Failure(error.code, error.message, error.problems)


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
        path = Path(scratch) / f"video.{job.output}"
        try:
            template = _template(job.workspace_id, job.template_id, job.version)
            result = tk.render_video(
                template,
                job.modifications,
                path=path,
                format=job.output,
                assets=_assets_of(job.workspace_id),
                on_progress=ProgressEvents(job.video_id),
                memory_limit=_Worker.memory,
            )
            _Worker.store.put_file(job.file_key, path, result.media_type)
        except (TemplatekitError, ApiError, SQLAlchemyError) as exc:
            return _failure(exc)
    return VideoOutput(result.width, result.height, result.warnings)


def measured(function: Any, job: Any) -> Measured:
    """``function(job)`` and the worker's resident memory after it, freed heap returned
    to the system first when it is large."""
    outcome = function(job)
    rss = resident_bytes()
    if rss > _TRIM_ABOVE:
        _trim_heap()
        rss = resident_bytes()
    return Measured(outcome, rss)


_TRIM_ABOVE = 400_000_000
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes(pid: int | str = "self") -> int:
    """The resident memory of a process (Linux; 0 where /proc is not there)."""
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


@lru_cache(maxsize=1)
def _libc() -> Any:
    name = ctypes.util.find_library("c")
    return ctypes.CDLL(name) if name else None


def _trim_heap() -> None:
    """Give freed heap pages back to the system (glibc keeps them otherwise)."""
    libc = _libc()
    if libc is not None and hasattr(libc, "malloc_trim"):
        libc.malloc_trim(0)


# ------------------------------------------------------------------ in the server


class RenderPool:
    """Worker processes for renders (``workers.WorkerPool``), shared fairly between
    workspaces (``fairness.FairQueue``): a request waits for a slot of its own before it
    goes to a worker. One request more than there are workers is admitted, to wait at
    the workers: a worker that answers starts it at once."""

    def __init__(self, settings: Settings, workers: int, timeout: float, *, warm: bool = False) -> None:
        self.settings = settings
        self.timeout = timeout
        self.queue = FairQueue(workers, ready=1)
        context = multiprocessing.get_context("forkserver")
        # the fork server imports the renderer and warms its engine once; every worker,
        # replacements included, is forked from it with what that loaded
        context.set_forkserver_preload(["templatekit_server.rendering", "templatekit_server.warm_fork_server"])
        self.pool = WorkerPool(
            workers,
            initializer=_start_worker,
            initargs=(settings, warm),  # warm: each new worker renders the stored image templates first
            max_tasks=settings.worker_max_renders,
            name="templatekit-render",
            context=context,
        )

    def start(self) -> None:
        """Start the workers now rather than at the first request, so that they are warm
        (``warming``) when it comes."""
        self.pool.start()

    async def run(self, function: Any, job: Any, share: Share | None = None) -> Any:
        """``function(job)`` in a worker, once ``share`` is given a slot (without a share,
        at once: the caller limits how many it runs); ApiError when it waits too long,
        fails, times out or its worker dies."""
        if share is None:
            return await self._run(function, job)
        async with self.queue.slot(share):
            return await self._run(function, job)

    async def _run(self, function: Any, job: Any) -> Any:
        try:
            answer = await self.pool.run(functools.partial(measured, function), job, self.timeout, self._too_large)
        except WorkerTimedOut as exc:
            if not exc.started:  # every worker busy, or starting: busy, not broken
                raise ApiError(
                    "RATE_LIMITED",
                    f"no render worker could take the render within {self.timeout:g} s: try again later",
                    {"Retry-After": str(math.ceil(self.timeout))},
                ) from None
            raise ApiError(
                "INTERNAL_SERVER_ERROR", f"the render took longer than {self.timeout:g} s and was stopped"
            ) from None
        except WorkerDied as exc:
            raise ApiError(
                "INTERNAL_SERVER_ERROR", f"the render worker stopped unexpectedly (exit code {exc.exitcode})"
            ) from None
        if isinstance(answer.outcome, Failure):
            raise answer.outcome.error()
        return answer.outcome

    def _too_large(self, answer: Measured) -> bool:
        """Whether the worker that gave ``answer`` holds more memory than it may keep:
        then it is replaced, and what a large render took goes back to the system."""
        limit = self.settings.worker_max_rss
        if answer.rss <= limit:
            return False
        log.info("a render worker holds %d MB (over %d MB): replacing it", answer.rss >> 20, limit >> 20)
        return True

    def close(self) -> None:
        self.pool.close()
