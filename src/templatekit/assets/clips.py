"""Video clips: frames picked by time, decoded with PyAV from bytes the asset loader
fetched (FFmpeg never opens a URL).

A clip is asked for frames in time order while a video renders, so decoding only goes
forward; a loop that wraps, or a time before the current frame, starts again from a
seek. The frame shown at a moment is the last one whose time has come, so a 24 fps clip
plays at its own speed in a 30 fps video.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator
from fractions import Fraction

import av
from PIL import Image as PILImage

from templatekit.assets.common import shown
from templatekit.errors import AssetError
from templatekit.model.layers import VideoLayer

END = 1e-6  # seconds before the end of a clip that does not loop: its last frame holds
DUE = 1e-6  # a frame is due this long before its time (times are sums of float fractions)


#: a quarter turn counter-clockwise (as a clip's display matrix gives it) as Pillow turns it
QUARTER_TURNS = {
    90: PILImage.Transpose.ROTATE_90,
    180: PILImage.Transpose.ROTATE_180,
    270: PILImage.Transpose.ROTATE_270,
}


def upright(frame: av.VideoFrame) -> PILImage.Image:
    """The frame's pixels as players show them: turned as its display matrix says (a
    phone's upright clip is stored sideways, with a rotation of 90 or 270 degrees)."""
    image = frame.to_image()
    turn = QUARTER_TURNS.get(round(frame.rotation or 0) % 360)
    return image.transpose(turn) if turn is not None else image


class ClipReader:
    """The frames of one video layer's clip, trimmed and looped as the layer says."""

    def __init__(self, layer: VideoLayer, data: bytes) -> None:
        self.name = layer.name
        self._data = data
        #: the clip's content, naming its frames for the painters' caches (which outlive a render)
        self.key = hashlib.sha256(data).hexdigest()
        try:
            self._container = av.open(io.BytesIO(data), mode="r")
            self._stream = self._container.streams.video[0]
        except (av.FFmpegError, IndexError) as exc:
            raise AssetError(
                f"layer {layer.name!r}: {shown(layer.src)} is not a video this renderer can read ({exc})"
            ) from None
        if self._container.format.name.endswith("_pipe"):  # FFmpeg's readers of single pictures
            self._container.close()
            picture = f"{shown(layer.src)} is a picture, not a video: an image layer shows it"
            raise AssetError(f"layer {layer.name!r}: {picture}")
        self._stream.thread_type = "AUTO"
        self.loop = layer.loop
        self.start = layer.trim.start if layer.trim is not None else 0.0
        end = layer.trim.end if layer.trim is not None and layer.trim.end is not None else self._duration()
        if end <= self.start:
            raise AssetError(f"layer {layer.name!r}: the clip is {end:g} s long; the trim starts at {self.start:g} s")
        self.length = end - self.start
        self._frames = self._decode_from(self.start)
        self._current: tuple[float, PILImage.Image] | None = None
        self._upcoming: tuple[float, PILImage.Image] | None = None

    def _duration(self) -> float:
        stream, container = self._stream, self._container
        if stream.duration is not None and stream.time_base is not None:
            return float(stream.duration * stream.time_base)
        if container.duration is not None:
            return container.duration / av.time_base
        raise AssetError(f"layer {self.name!r}: the clip does not say how long it is")

    def clip_time(self, elapsed: float) -> float:
        """The moment of the clip shown ``elapsed`` seconds after the layer appeared."""
        if self.loop:
            return self.start + elapsed % self.length
        return self.start + min(elapsed, self.length - END)

    def frame_at(self, elapsed: float) -> tuple[float, PILImage.Image]:
        """The frame (its time in the clip, and its pixels) shown ``elapsed`` seconds after
        the layer appeared."""
        wanted = self.clip_time(max(0.0, elapsed))
        if self._current is not None and wanted + DUE < self._current[0]:
            self._frames = self._decode_from(wanted)
            self._current = self._upcoming = None
        while True:
            if self._upcoming is None:
                self._upcoming = next(self._frames, None)
                if self._upcoming is None:  # the file ends before its stated duration
                    break
            if self._current is not None and self._upcoming[0] > wanted + DUE:
                break
            self._current, self._upcoming = self._upcoming, None
        if self._current is None:
            raise AssetError(f"layer {self.name!r}: the clip has no frames")
        return self._current

    def _decode_from(self, moment: float) -> Iterator[tuple[float, PILImage.Image]]:
        """Frames (time, RGB image) from the keyframe at or before ``moment`` onwards."""
        if moment > 0 and self._stream.time_base is not None:
            self._container.seek(int(Fraction(moment) / self._stream.time_base), stream=self._stream, backward=True)
        else:
            self._container.seek(0)
        for frame in self._container.decode(self._stream):
            if frame.time is not None:
                yield float(frame.time), upright(frame)

    def close(self) -> None:
        self._container.close()
