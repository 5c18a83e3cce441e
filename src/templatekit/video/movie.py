"""A video template to a file (MP4, WebM, GIF or animated WebP): frames painted in time
order and encoded as they come, with progress reported along the way."""

from __future__ import annotations

import contextvars
import os
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import cv2

from templatekit import budget
from templatekit.errors import AssetError
from templatekit.layout.context import LayoutContext
from templatekit.model.layers import VideoLayer
from templatekit.model.template import Template
from templatekit.outputs.motion import MotionFormat, frame_rate
from templatekit.scene.memory import image_bytes
from templatekit.video.animated import GifWriter, SeeThroughGifWriter, WebpWriter, palette_moments
from templatekit.video.encode import FrameWriter, Mp4Writer, WebmWriter
from templatekit.video.frames import FrameMaker, Look, played_layers
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


def frame_count(template: Template, fps: int) -> int:
    """Frames of the video: frame n shows the moment n / fps."""
    assert template.video is not None
    return template.video.frame_count(fps)


def write_video(
    template: Template,
    ctx: LayoutContext,
    path: str | os.PathLike[str],
    on_progress: Progress | None,
    output: MotionFormat,
) -> tuple[int, int]:
    """Write the video to ``path`` as ``output``; returns the frame size (width, height)."""
    assert template.video is not None
    fps = frame_rate(template.video, output)
    total = frame_count(template, fps)
    maker = FrameMaker(template, ctx, transparent=output.alpha, even=output.even_sides)
    ctx.warnings.extend(maker.timeline.unseen(template.layers))
    try:
        in_flight = AHEAD + PAINTERS + 1  # painted ahead of the encoder, being painted, being encoded
        budget.current().hold(
            in_flight * image_bytes("RGBA", (maker.width, maker.height)),
            f"the frames painted ahead of the encoder ({in_flight} of {maker.width}x{maker.height})",
        )
        clips = [
            (layer, ctx.assets.fetch_media(layer.src, ctx.base_dir))
            for layer in played_layers(template.layers)
            if isinstance(layer, VideoLayer)
        ]
        music = None
        if template.audio is not None:
            try:
                music = (template.audio, ctx.assets.fetch_media(template.audio.src, ctx.base_dir))
            except AssetError as exc:  # named by its field, as a clip is by its layer
                raise AssetError(f"audio: {exc}", url=exc.url) from None
        sound = soundtrack(maker.timeline, music, clips, total / fps)
        if sound is not None and not output.sound:
            ctx.warnings.append(f"the sound is left out: {output.name.upper()} has none (MP4 and WebM keep it)")
        writer = _writer(template, maker, path, fps, sound, output)
        if isinstance(writer, (GifWriter, SeeThroughGifWriter)):  # clips seek back to the start by themselves
            moments = palette_moments(template.layers, maker.timeline, total, fps)
            writer.learn(maker.compose(maker.looks(moment)) for moment in moments)
        progress = ProgressReporter(on_progress, total)
        try:
            for index, frame in enumerate(_frames(maker, writer, total, fps), start=1):
                writer.add(frame)
                progress.update(index)
            writer.close()
        except BaseException:
            writer.abort()
            raise
    finally:
        maker.close()
    return writer.width, writer.height


def _writer(
    template: Template, maker: FrameMaker, path: str | os.PathLike[str], fps: int, sound: Any, output: MotionFormat
) -> FrameWriter:
    assert template.video is not None
    size = (maker.width, maker.height)
    if output.name == "webm":
        return WebmWriter(path, *size, fps, sound, alpha=maker.transparent)
    if output.name == "gif":
        return (SeeThroughGifWriter if maker.transparent else GifWriter)(path, *size, fps, template.video.gif)
    if output.name == "webp":
        return WebpWriter(path, *size, fps, template.video.webp, alpha=maker.transparent)
    return Mp4Writer(path, *size, fps, sound)


def _converted(maker: FrameMaker, writer: FrameWriter, looks: tuple[Look | None, ...]) -> Any:
    return writer.convert(maker.compose(looks))


def _frames(maker: FrameMaker, writer: FrameWriter, total: int, fps: int) -> Iterator[Any]:
    """The frames in order, composed by a pool of threads a few frames ahead of the
    encoder (OpenCV and x264 work outside the GIL), so that painting and encoding
    overlap; at most AHEAD frames wait at any time. A frame that looks like the one
    before it is that frame again."""
    opencv_threads = cv2.getNumThreads()
    cv2.setNumThreads(1)  # frames are painted in parallel already; OpenCV's own threads would spin against them
    try:
        yield from _painted_in_order(maker, writer, total, fps)
    finally:
        cv2.setNumThreads(opencv_threads)


def _painted_in_order(maker: FrameMaker, writer: FrameWriter, total: int, fps: int) -> Iterator[Any]:
    pending: deque[Future[Any]] = deque()
    previous: tuple[tuple[Look | None, ...], Future[Any]] | None = None
    with ThreadPoolExecutor(max_workers=PAINTERS, thread_name_prefix="templatekit-frames") as pool:
        for index in range(total):
            looks = maker.looks(index / fps)
            if previous is not None and previous[0] == looks:
                future = previous[1]
            else:
                # each frame in a copy of this context: the render's memory budget holds in the painters too
                future = pool.submit(contextvars.copy_context().run, _converted, maker, writer, looks)
                previous = (looks, future)
            pending.append(future)
            if len(pending) > AHEAD:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
