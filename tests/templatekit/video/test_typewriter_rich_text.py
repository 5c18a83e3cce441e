"""The typewriter types rich text (``spans``, ``markup``) at 20 characters a second, as it
types plain text: its default length counts the characters drawn, not the markup's tags,
nor nothing at all for spans. Each check decodes the MP4 that was written."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import templatekit as tk
from tests.conftest import layer
from tests.templatekit.video.test_movie import probe, video

FPS = 20


def typed(**text: Any) -> list[int]:
    """White pixels of each frame of a 2 s video typing "Hi there" (8 characters: 0.4 s)."""
    words = layer(
        "text",
        "words",
        x=10,
        y=10,
        width=380,
        height=60,
        size=32,
        color="#ffffff",
        animations=[{"preset": "typewriter"}],
        **text,
    )
    made = tk.render_video(video(words, width=400, height=80, duration=2.0, fps=FPS))
    return [int((np.asarray(frame.convert("L")) > 128).sum()) for frame in probe(made.data)["frames"]]


PLAIN = {"text": "Hi there"}
RICH = {
    "spans": {"spans": [{"text": "Hi "}, {"text": "there", "weight": 700}]},
    "markup": {"text": 'Hi <span style="font-weight: 700">there</span>', "markup": True},
}


@pytest.mark.parametrize("kind", list(RICH))
def test_rich_text_is_typed_at_twenty_characters_a_second(kind: str) -> None:
    plain, rich = typed(**PLAIN), typed(**RICH[kind])
    assert plain[int(0.1 * FPS)] < 0.6 * plain[-1]  # the plain text is being typed at 0.1 s
    assert plain[int(0.45 * FPS)] == plain[-1]  # and whole from 0.4 s
    whole = rich[-1]
    assert 0 < rich[int(0.1 * FPS)] < 0.6 * whole, f"{kind}: at 0.1 s {rich[int(0.1 * FPS)]} of {whole} px typed"
    assert rich[int(0.45 * FPS)] == whole, f"{kind}: at 0.45 s {rich[int(0.45 * FPS)]} of {whole} px typed"
