"""The writers of a video's file, one per format, each encoding frames as they come (none
is kept): MP4 (H.264 High in yuv420p, AAC, the index at the front so that players start
before the download ends) and WebM (VP9, with its alpha when the frames have one; Opus).
The animated image formats are in ``templatekit.video.animated``.

A writer's ``convert`` runs in the painting threads (frames are converted where they
are painted, so that the encoding thread only encodes); ``add`` takes what it returned.
"""

from __future__ import annotations

import contextlib
import os
from fractions import Fraction
from typing import Any, ClassVar, Protocol

import av
import cv2
import numpy as np

CRF = 20  # x264's constant quality: 18 is visually lossless, 23 its default
PRESET = "veryfast"
#: VP9's constant quality (its scale runs to 63; 31 is what its guide gives for 720p)
VP9_CRF = 31
AUDIO_RATE = 48_000
#: How the YUV frames are tagged (FFmpeg's numbers for them): the BT.601 matrix that
#: ``yuv420p`` and FFmpeg's own conversion to yuva420p use, video range, and the pixels'
#: sRGB primaries and transfer. Untagged, many players take an HD video's matrix to be
#: BT.709 and shift saturated colours (#00c000 shown as #00a300).
MATRIX_BT601 = 6  # AVCOL_SPC_SMPTE170M
PRIMARIES_BT709 = 1  # AVCOL_PRI_BT709, those of sRGB
TRANSFER_SRGB = 13  # AVCOL_TRC_IEC61966_2_1
VIDEO_RANGE = 1  # AVCOL_RANGE_MPEG


def yuv420p(frame: np.ndarray) -> np.ndarray:
    """An opaque RGBA frame (even sides) as the Y, U and V planes stacked the way FFmpeg's
    yuv420p frames are laid out (BT.601, video range, as FFmpeg converts by default)."""
    return cv2.cvtColor(frame, cv2.COLOR_RGBA2YUV_I420)


def yuv420p_frame(planes: np.ndarray, height: int) -> av.VideoFrame:
    """``yuv420p``'s planes as a frame to encode. The frame holds the array's memory
    rather than a copy of it (the painting threads make a new array for every frame, and
    encoders copy what they keep), unless the frame's height is not a multiple of 4:
    PyAV then takes the array for 2 rows fewer, and copies it."""
    if len(planes) // 6 * 4 == height:
        return av.VideoFrame.from_numpy_buffer(planes, format="yuv420p")
    return av.VideoFrame.from_ndarray(planes, format="yuv420p")


def unpremultiplied(frame: np.ndarray) -> np.ndarray:
    """Premultiplied RGBA pixels (as frames are painted) with straight colour, as video
    and image formats with alpha store them."""
    alpha = frame[:, :, 3:4]
    if alpha.min() == 255:
        return frame
    colour = frame[:, :, :3].astype(np.uint16) * 255 + alpha // 2
    straight = np.where(alpha > 0, colour // np.maximum(alpha, 1), 0).astype(np.uint8)
    return np.concatenate([straight, alpha], axis=2)


def tagged(video: Any) -> Any:
    """``video``, a YUV stream, tagged with the colours its frames are converted with."""
    context = video.codec_context
    context.colorspace, context.color_range = MATRIX_BT601, VIDEO_RANGE
    context.color_primaries, context.color_trc = PRIMARIES_BT709, TRANSFER_SRGB
    return video


class FrameWriter(Protocol):
    """What writes a video's file: ``convert`` runs in the painting threads, ``add`` takes
    its results in frame order."""

    width: int
    height: int

    def convert(self, frame: np.ndarray) -> Any: ...

    def add(self, converted: Any) -> None: ...

    def close(self) -> None: ...

    def abort(self) -> None: ...


class AvWriter:
    """Frames, and once the soundtrack, encoded by FFmpeg (through PyAV) into ``path``.
    A subclass names the container and codecs and how a painted frame is handed over."""

    FORMAT: ClassVar[str]
    AUDIO_CODEC: ClassVar[str | None] = None
    AUDIO_FRAME: ClassVar[int] = 1024  # samples per audio frame of the codec

    def __init__(self, path: str | os.PathLike[str], width: int, height: int, fps: int, sound: Any = None) -> None:
        self.width, self.height, self.fps = width, height, fps
        self._container = av.open(os.fspath(path), mode="w", format=self.FORMAT, options=self.container_options())
        self._video = self.video_stream()
        self._video.codec_context.time_base = Fraction(1, fps)
        self.frames = 0
        # The soundtrack (float32 in -1..1, shape (2, n), at AUDIO_RATE) is encoded
        # alongside the frames, so that sound and pictures interleave in the file.
        self._sound = sound if self.AUDIO_CODEC is not None else None
        self._sound_written = 0
        self._audio: Any = None
        if self._sound is not None and self.AUDIO_CODEC is not None:
            self._audio = self._container.add_stream(self.AUDIO_CODEC, rate=AUDIO_RATE)
            self._audio.layout = "stereo"

    def container_options(self) -> dict[str, str]:
        return {}

    def video_stream(self) -> Any:
        raise NotImplementedError

    def convert(self, frame: np.ndarray) -> Any:
        """A painted frame (premultiplied RGBA) as ``add`` takes it."""
        return yuv420p(frame)

    def video_frame(self, converted: Any) -> av.VideoFrame:
        return yuv420p_frame(converted, self.height)

    def add(self, converted: Any) -> None:
        """The next frame, as ``convert`` gave it."""
        frame = self.video_frame(converted)
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
            chunk = np.ascontiguousarray(self._sound[:, start : start + self.AUDIO_FRAME], dtype=np.float32)
            if chunk.shape[1] < self.AUDIO_FRAME and self.AUDIO_CODEC == "libopus":  # Opus frames are whole
                chunk = np.pad(chunk, ((0, 0), (0, self.AUDIO_FRAME - chunk.shape[1])))
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


class Mp4Writer(AvWriter):
    FORMAT = "mp4"
    AUDIO_CODEC = "aac"

    def container_options(self) -> dict[str, str]:
        return {"movflags": "+faststart"}

    def video_stream(self) -> Any:
        video = self._container.add_stream("libx264", rate=self.fps, options={"crf": str(CRF), "preset": PRESET})
        video.width, video.height = self.width, self.height
        video.pix_fmt = "yuv420p"
        video.codec_context.profile = "High"
        video.thread_type = "AUTO"  # frame threads: faster than x264's slice threads here
        return tagged(video)


class WebmWriter(AvWriter):
    """VP9 at constant quality, at libvpx's real-time speed with row threads (its
    good-quality passes take several times as long for a few percent of size); with
    ``alpha``, in yuva420p: players show what is under the video where the frames are
    transparent."""

    FORMAT = "webm"
    AUDIO_CODEC = "libopus"
    AUDIO_FRAME = 960  # 20 ms

    def __init__(
        self, path: str | os.PathLike[str], width: int, height: int, fps: int, sound: Any = None, alpha: bool = False
    ) -> None:
        self.alpha = alpha
        super().__init__(path, width, height, fps, sound)

    def video_stream(self) -> Any:
        options = {"crf": str(VP9_CRF), "b": "0", "deadline": "realtime", "cpu-used": "8", "row-mt": "1"}
        video = self._container.add_stream("libvpx-vp9", rate=self.fps, options=options)
        video.width, video.height = self.width, self.height
        video.pix_fmt = "yuva420p" if self.alpha else "yuv420p"
        video.thread_count = os.cpu_count() or 1
        return tagged(video)

    def convert(self, frame: np.ndarray) -> Any:
        return unpremultiplied(frame) if self.alpha else yuv420p(frame)

    def video_frame(self, converted: Any) -> av.VideoFrame:
        if self.alpha:
            return av.VideoFrame.from_numpy_buffer(converted, format="rgba")
        return super().video_frame(converted)
