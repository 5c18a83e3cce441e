"""Writing a result or a video into a folder that does not exist: an error naming the
path the caller gave, before any frame is painted; not av's "No such file or directory"
with no name, nor the name of a hidden ``.partial`` file."""

from __future__ import annotations

import pytest

import templatekit as tk
from tests.conftest import layer, template

pytest.importorskip("av")

CARD = template(layer("shape", "box", fill="#ff0000"), width=64, height=64)
CLIP = {**CARD, "video": {"duration": 1, "fps": 10}}


def test_a_video_into_a_missing_folder_names_the_path(tmp_path):
    target = tmp_path / "missing" / "promo.mp4"
    painted = []
    with pytest.raises(FileNotFoundError) as raised:
        tk.render_video(CLIP, path=target, on_progress=lambda done, total: painted.append(done))
    assert str(target) in str(raised.value) and not painted
    assert not (tmp_path / "missing").exists()


def test_a_save_into_a_missing_folder_names_the_path(tmp_path):
    target = tmp_path / "missing" / "card.png"
    with pytest.raises(FileNotFoundError) as raised:
        tk.render_image(CARD).save(target)
    assert str(target) in str(raised.value) and ".partial" not in str(raised.value)
