"""A video rendered to a file shows itself in a notebook; once that file is moved or
deleted, showing the result (its repr, its HTML) says so instead of raising."""

from __future__ import annotations

import pytest

import templatekit as tk
from tests.conftest import layer, template

pytest.importorskip("av")

CLIP = {**template(layer("shape", "box", fill="#ff0000"), width=64, height=64), "video": {"duration": 1, "fps": 10}}


def test_a_video_whose_file_was_moved_still_shows_itself(tmp_path):
    result = tk.render_video(CLIP, path=tmp_path / "clip.mp4")
    assert result._repr_html_().startswith("<video ")
    (tmp_path / "clip.mp4").rename(tmp_path / "kept.mp4")
    shown = repr(result)  # what a notebook shows when the HTML is not there
    assert shown.startswith("RenderResult(video/mp4, 64x64") and "clip.mp4" in shown
    assert result._repr_html_() is None  # Jupyter then shows the repr
