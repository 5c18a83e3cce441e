"""One compositor: a moment of every example video is the same picture as the MP4's frame
(decoded with PyAV), as ``render_image(..., moment=t)`` and as the PDF at that moment
(rasterised with pdfium), within what encoding the video and rasterising the PDF change."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import templatekit as tk

av = pytest.importorskip("av")
pdfium = pytest.importorskip("pypdfium2")
pytestmark = pytest.mark.slow  # renders every example video whole

ROOT = Path(__file__).parents[3]
VIDEOS = sorted(
    path
    for folder in (ROOT / "examples" / "templates", ROOT / "docs" / "gallery")
    for path in folder.glob("*.json")
    if "video" in json.loads(path.read_text())
)
#: Mean and 99th-percentile difference per channel, in levels of 255: H.264 at CRF 20 in
#: yuv420p (colour at half resolution) moves edges by a few levels, PDF rasterisers
#: anti-alias their own way; a layer out of place or missing moves thousands by far more.
MEAN, P99 = 3.0, 30


def shares(duration: float) -> list[float]:
    """Moments spread over the video, the first within its entrance animations."""
    return [round(duration * share, 2) for share in (0.04, 0.1, 0.3, 0.5, 0.9)]


def difference(first: Image.Image, second: Image.Image) -> tuple[float, float]:
    a = np.asarray(first.convert("RGB"), dtype=np.int16)
    b = np.asarray(second.convert("RGB"), dtype=np.int16)
    delta = np.abs(a - b)
    return float(delta.mean()), float(np.percentile(delta, 99))


def pdf_page(data: bytes, width: int) -> Image.Image:
    page = pdfium.PdfDocument(data)[0]
    return page.render(scale=width / page.get_width()).to_pil()


def mp4_frames(data: bytes) -> list[Image.Image]:
    with av.open(io.BytesIO(data)) as container:
        return [frame.to_image() for frame in container.decode(container.streams.video[0])]


@pytest.mark.parametrize("path", VIDEOS, ids=[path.stem for path in VIDEOS])
def test_a_moment_is_the_same_picture_as_png_pdf_and_mp4_frame(path):
    template = tk.load_template(path)
    assert template.video is not None
    frames = mp4_frames(tk.render_video(template).data)
    for moment in shares(template.video.duration):
        still = Image.open(io.BytesIO(tk.render_image(template, moment=moment).data))
        frame = frames[round(moment * template.video.fps)].crop((0, 0, *still.size))
        printed = pdf_page(tk.render_pdf(template, moment=moment).data, still.width).resize(still.size)
        for name, other in (("the MP4 frame", frame), ("the PDF", printed)):
            mean, p99 = difference(still, other)
            assert mean < MEAN and p99 < P99, f"{path.stem} at {moment} s: PNG and {name} differ ({mean:.2f}, {p99})"
