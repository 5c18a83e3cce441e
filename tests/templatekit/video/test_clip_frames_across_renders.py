"""A clip's frames are the clip's own in every render: a second video of the same template
with another clip (a modification of its ``src``, as a server renders one template for
many requests) shows that clip, not the frames of the clip rendered before. Each check
decodes the file that was written."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import templatekit as tk
from tests.conftest import layer
from tests.templatekit.video.test_animated import frames_of
from tests.templatekit.video.test_movie import probe, video

needs_ffmpeg = pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is missing")


def plain_clip(path: Path, colour: str) -> Path:
    """A 1 s, 160x90 clip of one colour."""
    subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-y",
            "-f",
            "lavfi",
            "-i",
            f"color=c={colour}:s=160x90:r=25:d=1",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            str(path),
        ],
        check=True,
    )
    return path


def middle_colours(data: bytes, suffix: str, folder: Path) -> list[tuple[int, ...]]:
    """The colour at the middle of every frame of the written video."""
    if suffix == "mp4":
        frames: list[Image.Image] = probe(data)["frames"]
    else:
        written = folder / f"written.{suffix}"
        written.write_bytes(data)
        frames = frames_of(written)[0]
    return [tuple(int(v) for v in np.asarray(frame.convert("RGB"))[50, 100]) for frame in frames]


@needs_ffmpeg
@pytest.mark.parametrize("suffix", ["mp4", "gif", "webp"])
def test_a_second_render_shows_its_own_clip(tmp_path: Path, suffix: str) -> None:
    red, blue = plain_clip(tmp_path / "red.mp4", "red"), plain_clip(tmp_path / "blue.mp4", "blue")
    # 160x90 frames covering a 200x100 box: scaled, as most clips are
    clip = layer("video", "clip", x=0, y=0, width=200, height=100, src=str(red))
    made = video(clip, width=200, height=100, duration=0.5, fps=10)
    first = middle_colours(tk.render_video(made, format=suffix).data, suffix, tmp_path)
    second = middle_colours(tk.render_video(made, {"clip": str(blue)}, format=suffix).data, suffix, tmp_path)
    assert all(r > 200 and b < 60 for r, _, b in first), first
    assert all(b > 200 and r < 60 for r, _, b in second), f"the blue clip's video shows {second}"
