"""`templatekit render -o video` stopped by SIGTERM (kill, docker stop, a cancelled CI
job) leaves no half-written file, as Ctrl-C does: docs/video.md, "A failed render leaves
no half-written file behind"."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import layer
from tests.templatekit.video.test_movie import video

COMMAND = "import sys; from templatekit.cli import main; sys.exit(main())"


@pytest.mark.parametrize("suffix", ["mp4", "webp"])
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_video_render_leaves_nothing_behind(tmp_path: Path, suffix: str, stop: signal.Signals) -> None:
    moving = layer(
        "shape",
        "box",
        x=0,
        y=0,
        width=200,
        height=200,
        fill="#ff0000",
        animations=[{"property": "x", "keyframes": [{"time": 0, "value": 0}, {"time": 120, "value": 1080}]}],
    )
    source = tmp_path / "long.json"
    source.write_text(json.dumps(video(moving, width=1280, height=720, duration=120)))
    out = tmp_path / f"out.{suffix}"
    process = subprocess.Popen(
        [sys.executable, "-c", COMMAND, "render", str(source), "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    partial = tmp_path / f".out.{suffix}.partial"
    deadline = time.monotonic() + 60
    while not partial.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert partial.exists(), "the render never started writing"
    time.sleep(0.5)  # frames being written
    process.send_signal(stop)
    output, _ = process.communicate(timeout=60)
    assert process.returncode != 0, output
    left = sorted(path.name for path in tmp_path.iterdir() if path != source)
    assert left == [], f"stopped by {stop.name}, it left {left} (exit {process.returncode})"
