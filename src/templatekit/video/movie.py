"""A video template to an MP4 file: frames painted in time order and encoded as they
come, with progress reported along the way."""

from __future__ import annotations

import contextvars
import os
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor

import cv2
import numpy as np

from templatekit.layout.context import LayoutContext
from templatekit.model.layers import VideoLayer
from templatekit.model.template import Template
from templatekit.video.encode import Mp4Writer, yuv420p
from templatekit.video.frames import FrameMaker, Look
from templatekit.video.sound import soundtrack

Progress = Callable[[int, int], None]
REPORT_EVERY_SECONDS = 1.0
REPORT_EVERY_SHARE = 0.01
PAINTERS = max(1, min(4, os.cpu_count() or 1))
AHEAD = 2 * PAINTERS + 2  # frames composed ahead of the encoder


class ProgressReporter:
    """Calls ``on_progress(done, total)`` when another hundredth of the frames is done or
    a second has passed since the last call, and once at the end."""

    def __init__(self, on_progress: Progress | None, total: int) -> None:
        self.on_progress = on_progress
        self.total = total
        self.step = max(1, round(total * REPORT_EVERY_SHARE))
        self.reported = 0
        self.at = time.monotonic()

    def update(self, done: int) -> None:
        if self.on_progress is None:
            return
        now = time.monotonic()
        if done == self.total or done - self.reported >= self.step or now - self.at >= REPORT_EVERY_SECONDS:
            self.on_progress(done, self.total)
            self.reported, self.at = done, now


def frame_count(template: Template) -> int:
    """Frames of the video: frame n shows the moment n / fps."""
    assert template.video is not None
    return max(1, round(template.video.duration * template.video.fps))


def write_video(
    template: Template, ctx: LayoutContext, path: str | os.PathLike[str], on_progress: Progress | None
) -> tuple[int, int]:
    """Write the MP4 to ``path``; returns the frame size (width, height)."""
    assert template.video is not None
    fps = template.video.fps
    total = frame_count(template)
    maker = FrameMaker(template, ctx)
    try:
        clips = [
            (layer, ctx.assets.fetch_media(layer.src, ctx.base_dir))
            for layer in template.layers
            if isinstance(layer, VideoLayer) and layer.visible
        ]
        music = None
        if template.audio is not None:
            music = (template.audio, ctx.assets.fetch_media(template.audio.src, ctx.base_dir))
        sound = soundtrack(maker.timeline, music, clips)
        writer = Mp4Writer(path, maker.width, maker.height, fps, sound)
        progress = ProgressReporter(on_progress, total)
        try:
            for index, frame in enumerate(_frames(maker, total, fps), start=1):
                writer.add(frame)
                progress.update(index)
            writer.close()
        except BaseException:
            writer.abort()
            raise
    finally:
        maker.close()
    return maker.width, maker.height


def _painted(maker: FrameMaker, looks: tuple[Look | None, ...]) -> np.ndarray:
    return yuv420p(maker.compose(looks))


def _frames(maker: FrameMaker, total: int, fps: int) -> Iterator[np.ndarray]:
    """The frames in order, composed by a pool of threads a few frames ahead of the
    encoder (OpenCV and x264 work outside the GIL), so that painting and encoding
    overlap; at most AHEAD frames wait at any time. A frame that looks like the one
    before it is that frame again."""
    opencv_threads = cv2.getNumThreads()
    cv2.setNumThreads(1)  # frames are painted in parallel already; OpenCV's own threads would spin against them
    try:
        yield from _painted_in_order(maker, total, fps)
    finally:
        cv2.setNumThreads(opencv_threads)


def _painted_in_order(maker: FrameMaker, total: int, fps: int) -> Iterator[np.ndarray]:
    pending: deque[Future[np.ndarray]] = deque()
    previous: tuple[tuple[Look | None, ...], Future[np.ndarray]] | None = None
    with ThreadPoolExecutor(max_workers=PAINTERS, thread_name_prefix="templatekit-frames") as pool:
        for index in range(total):
            looks = maker.looks(index / fps)
            if previous is not None and previous[0] == looks:
                future = previous[1]
            else:
                # each frame in a copy of this context: the render's memory budget holds in the painters too
                future = pool.submit(contextvars.copy_context().run, _painted, maker, looks)
                previous = (looks, future)
            pending.append(future)
            if len(pending) > AHEAD:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
