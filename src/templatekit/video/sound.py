"""The soundtrack: the template's music and the clips' own sound, mixed.

Every source is decoded with PyAV from bytes the asset loader fetched, resampled to
48 kHz stereo, placed where it plays (a clip's sound from the clip's trim start, looped
with it, while the layer is on screen) and added up; the music is scaled by its volume
and faded out over its last seconds. The mix is clipped to full scale.
"""

from __future__ import annotations

import io

import av
import numpy as np

from templatekit.assets.common import shown
from templatekit.errors import AssetError
from templatekit.model.layers import VideoLayer
from templatekit.model.template import AudioTrack
from templatekit.video.encode import AUDIO_RATE
from templatekit.video.timeline import Timeline


def decode(data: bytes, name: str, start: float = 0.0, length: float | None = None) -> np.ndarray | None:
    """The sound of a media file from ``start`` for ``length`` seconds as float32 (2, n)
    at AUDIO_RATE; None when the file has no sound."""
    try:
        container = av.open(io.BytesIO(data), mode="r")
    except av.FFmpegError as exc:
        raise AssetError(f"{name}: not a sound or video file this renderer can read ({exc})") from None
    with container:
        if not container.streams.audio:
            return None
        stream = container.streams.audio[0]
        resampler = av.AudioResampler(format="fltp", layout="stereo", rate=AUDIO_RATE)
        chunks: list[np.ndarray] = []
        try:
            for frame in container.decode(stream):
                chunks.extend(resampled.to_ndarray() for resampled in resampler.resample(frame))
            chunks.extend(resampled.to_ndarray() for resampled in resampler.resample(None))
        except av.FFmpegError as exc:
            raise AssetError(f"{name}: the sound cannot be decoded ({exc})") from None
    samples = np.concatenate(chunks, axis=1) if chunks else np.zeros((2, 0), np.float32)
    first = round(start * AUDIO_RATE)
    last = None if length is None else first + round(length * AUDIO_RATE)
    return samples[:, first:last]


class Mixer:
    """Adds sources into one soundtrack as long as the video."""

    def __init__(self, duration: float) -> None:
        self.samples = np.zeros((2, round(duration * AUDIO_RATE)), np.float32)
        self.used = False

    def add(self, source: np.ndarray, at: float, until: float, loop: bool = False, volume: float = 1.0) -> None:
        """``source`` from ``at`` seconds to ``until`` (or its end), again and again when ``loop``."""
        first, last = round(at * AUDIO_RATE), min(round(until * AUDIO_RATE), self.samples.shape[1])
        if source.shape[1] == 0 or last <= first:
            return
        position = first
        while position < last:
            count = min(source.shape[1], last - position)
            self.samples[:, position : position + count] += source[:, :count] * volume
            position += count
            if not loop:
                break
        self.used = True

    def fade_out(self, seconds: float) -> None:
        count = min(round(seconds * AUDIO_RATE), self.samples.shape[1])
        if count > 0:
            self.samples[:, -count:] *= np.linspace(1.0, 0.0, count, dtype=np.float32)

    def mixed(self) -> np.ndarray:
        return np.clip(self.samples, -1.0, 1.0)


def soundtrack(
    timeline: Timeline,
    music: tuple[AudioTrack, bytes] | None,
    clips: list[tuple[VideoLayer, bytes]],
    seconds: float,
) -> np.ndarray | None:
    """The mixed sound of a video, or None when nothing in it makes a sound; ``seconds``
    long (as long as the video's frames), silent after the duration."""
    mixer = Mixer(max(seconds, timeline.duration))
    for layer, data in clips:
        if layer.muted:
            continue
        trim_start = layer.trim.start if layer.trim is not None else 0.0
        trim_length = None
        if layer.trim is not None and layer.trim.end is not None:
            trim_length = layer.trim.end - trim_start
        sound = decode(data, f"layer {layer.name!r}", trim_start, trim_length)
        if sound is not None:
            start, end = timeline.window(layer)
            mixer.add(sound, start, end, loop=layer.loop)
    if music is not None:
        track, data = music
        sound = decode(data, "audio")
        if sound is None:  # a picture, or a video without sound: a soundtrack of nothing is a mistake
            raise AssetError(f"audio: {shown(track.src)} has no sound to play")
        alone = Mixer(timeline.duration)
        alone.add(sound, 0.0, timeline.duration, volume=track.volume)
        alone.fade_out(track.fade_out)
        mixer.add(alone.samples, 0.0, timeline.duration)
    return mixer.mixed() if mixer.used else None
