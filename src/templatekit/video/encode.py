"""The MP4 writer: H.264 High in yuv420p at a constant frame rate, AAC sound, the index
at the front of the file (``+faststart``, so that players start before the download
ends). Frames are encoded as they come; none is kept."""

from __future__ import annotations

import contextlib
import os
from fractions import Fraction

import av
import cv2
import numpy as np

CRF = 20  # x264's constant quality: 18 is visually lossless, 23 its default
PRESET = "veryfast"
AUDIO_RATE = 48_000
AUDIO_FRAME = 1024  # samples per AAC frame


def yuv420p(frame: np.ndarray) -> np.ndarray:
    """An RGBA frame (even sides, alpha unused) as the Y, U and V planes stacked the way
    FFmpeg's yuv420p frames are laid out (BT.601, video range, as FFmpeg converts by
    default). Done by whoever paints the frame, so that the encoding thread only encodes."""
    return cv2.cvtColor(frame, cv2.COLOR_RGBA2YUV_I420)


class Mp4Writer:
    """Writes frames (and, once, the sound) to ``path``."""

    def __init__(
        self, path: str | os.PathLike[str], width: int, height: int, fps: int, sound: np.ndarray | None = None
    ) -> None:
        self._container = av.open(os.fspath(path), mode="w", format="mp4", options={"movflags": "+faststart"})
        video = self._container.add_stream("libx264", rate=fps, options={"crf": str(CRF), "preset": PRESET})
        video.width, video.height = width, height
        video.pix_fmt = "yuv420p"
        video.codec_context.profile = "High"
        video.codec_context.time_base = Fraction(1, fps)
        video.thread_type = "AUTO"  # frame threads: faster than x264's slice threads here
        self._video = video
        self.fps = fps
        self.frames = 0
        # The soundtrack (float32 in -1..1, shape (2, n), at AUDIO_RATE) is encoded
        # alongside the frames, so that sound and pictures interleave in the file.
        self._sound = sound
        self._sound_written = 0
        self._audio = None
        if sound is not None:
            audio = self._container.add_stream("aac", rate=AUDIO_RATE)
            audio.layout = "stereo"
            self._audio = audio

    def add(self, planes: np.ndarray) -> None:
        """The next frame, as ``yuv420p`` gives it (see ``yuv420p``)."""
        frame = av.VideoFrame.from_ndarray(planes, format="yuv420p")
        frame.pts = self.frames
        self._container.mux(self._video.encode(frame))
        self.frames += 1
        self._add_sound(self.frames * AUDIO_RATE // self.fps)

    def _add_sound(self, until: int) -> None:
        if self._sound is None or self._audio is None:
            return
        until = min(until, self._sound.shape[1])
        while self._sound_written < until:
            start = self._sound_written
            chunk = np.ascontiguousarray(self._sound[:, start : start + AUDIO_FRAME], dtype=np.float32)
            frame = av.AudioFrame.from_ndarray(chunk, format="fltp", layout="stereo")
            frame.sample_rate = AUDIO_RATE
            frame.pts = start
            self._container.mux(self._audio.encode(frame))
            self._sound_written += chunk.shape[1]

    def close(self) -> None:
        """Write what sound is left, flush the encoders and finish the file."""
        if self._sound is not None and self._audio is not None:
            self._add_sound(self._sound.shape[1])
            self._container.mux(self._audio.encode(None))
        self._container.mux(self._video.encode(None))
        self._container.close()

    def abort(self) -> None:
        """Close the file after a failure; the caller deletes it."""
        with contextlib.suppress(av.FFmpegError, OSError):
            self._container.close()
