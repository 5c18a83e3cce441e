"""A clip with a rotation in its display matrix (a phone's upright video is stored
sideways with ``rotate=90``) is drawn upright, as players and FFmpeg show it: each check
decodes the MP4 that was written."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import templatekit as tk
from tests.conftest import layer
from tests.templatekit.video.test_movie import probe, video

needs_ffmpeg = pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is missing")


def sideways_clip(folder: Path, rotation: int) -> Path:
    """A 1 s, 160x90 clip, its top half red and bottom half blue, tagged to be shown
    turned by ``rotation`` degrees (as FFmpeg's ``rotate`` tag says: clockwise)."""
    plain, tagged = folder / "plain.mp4", folder / f"turned-{rotation}.mp4"
    halves = "color=c=red:s=160x45:r=25:d=1[top];color=c=blue:s=160x45:r=25:d=1[bottom];[top][bottom]vstack"
    subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-y",
            "-filter_complex",
            halves,
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            str(plain),
        ],
        check=True,
    )
    subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-y",
            "-i",
            str(plain),
            "-c",
            "copy",
            "-metadata:s:v:0",
            f"rotate={rotation}",
            str(tagged),
        ],
        check=True,
    )
    return tagged


@needs_ffmpeg
@pytest.mark.parametrize("rotation", [90, 270])
def test_a_clip_with_a_rotation_tag_is_drawn_upright(tmp_path: Path, rotation: int) -> None:
    clip = sideways_clip(tmp_path, rotation)
    # how FFmpeg's player side shows it: its first frame turned by FFmpeg (autorotate)
    still = tmp_path / "ffmpeg.png"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(clip), "-frames:v", "1", str(still)], check=True)
    played = Image.open(still).convert("RGB")
    assert played.height > played.width  # FFmpeg shows it upright
    left, right = played.getpixel((played.width // 4, 80)), played.getpixel((3 * played.width // 4, 80))
    assert max(left) > 200 and max(right) > 200 and left != right
    left = "red" if left[0] > 200 else "blue"
    right = "red" if right[0] > 200 else "blue"
    shown = layer("video", "clip", x=0, y=0, width=90, height=160, src=str(clip), fit="fill")
    made = tk.render_video(video(shown, width=90, height=160, duration=0.2, fps=10))
    frame = np.asarray(probe(made.data)["frames"][0].convert("RGB")).astype(int)
    colours = {"red": (255, 0, 0), "blue": (0, 0, 255)}

    def near(pixel: np.ndarray, name: str) -> bool:
        return bool(np.abs(pixel - colours[name]).max() < 60)

    # turned a quarter, the top half (red) becomes a side: the frame is split left/right
    assert near(frame[80, 20], left) and near(frame[80, 70], right), (
        f"rotate={rotation}: left {frame[80, 20].tolist()}, right {frame[80, 70].tolist()}, "
        f"top {frame[20, 45].tolist()}, bottom {frame[140, 45].tolist()}"
    )
