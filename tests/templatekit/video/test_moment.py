"""One compositor: a moment of a video is the same picture as the MP4's frame (decoded with
PyAV), as ``render_image(..., moment=t)`` and as the PDF at that moment (rasterised with
pdfium), within what encoding the video and rasterising the PDF change. Checked on every
example video, every gallery sheet (made a short video) and videos made to move each
feature (moments/*.json): typewriter, ken-burns, animated filters and effects, keyframed
opacity, place, scale and turn, masks, blend modes, frames and rich text."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import templatekit as tk
from tests.conftest import needs_chrome

av = pytest.importorskip("av")
cv2 = pytest.importorskip("cv2")
pdfium = pytest.importorskip("pypdfium2")
pytestmark = pytest.mark.slow  # renders every example video and gallery sheet whole

ROOT = Path(__file__).parents[3]
EXAMPLES = sorted(
    path for path in (ROOT / "examples" / "templates").glob("*.json") if "video" in json.loads(path.read_text())
)
MOVING = sorted((Path(__file__).parent / "moments").glob("*.json"))
SHEETS = sorted((ROOT / "docs" / "gallery").glob("*.json"))
#: Mean and 99th-percentile difference per channel, in levels of 255. The PNG is first
#: given the MP4's colours (yuv420p: colour at half resolution), so what is left of
#: encoding is H.264's compression at CRF 20, a few levels at edges. PDF rasterisers
#: anti-alias their own way and pdfium advances glyphs by whole thousandths of an em (a
#: long line drifts by up to a pixel; poppler and MuPDF do not), so the PDF is compared
#: within one pixel (PDF_SLACK). A layer out of place, missing or at another moment moves
#: thousands of pixels by far more.
MEAN, P99 = 3.0, 30
PDF_SLACK = 1
#: A still gallery sheet as a video of one frame: every second layer fading in, an actor
#: of the frames' fast path, between the others, painted once into plates.
SHEET_VIDEO = {"duration": 0.1, "fps": 10}
FADE = {"property": "opacity", "keyframes": [{"time": 0, "value": 0.6}, {"time": 0.2, "value": 1}]}
#: A difference these tests found and that is kept: the video's fast path paints a moving
#: layer once (the case that shows it fails until it is changed).
SPRITE_SCALE = (
    "MP4: a layer shown smaller than the picture the video paints of it once (at its largest scale) is that "
    "picture resampled, while the PNG paints it at the moment's scale: QR modules and letters' edges land "
    "up to a pixel apart"
)
KNOWN = {
    "moments-scaled-sharp-edges": SPRITE_SCALE,
}


def load(path: Path) -> tk.Template:
    """The template; a still sheet made a video of fading and still layers."""
    data = json.loads(path.read_text())
    if "video" not in data:
        data["video"] = SHEET_VIDEO
        for layer in data["layers"][1::2]:
            layer["animations"] = [FADE]
    return tk.load_template(data, base_dir=path.parent)


def cases() -> list[object]:
    """Every example video, made-to-move video and gallery sheet; those that show a known
    difference fail strictly, so that its fix is seen."""
    params = []
    for path in (*EXAMPLES, *MOVING, *SHEETS):
        name = f"{path.parent.name}-{path.stem}"
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN[name])] if name in KNOWN else []
        if any("figure" in layer for layer in json.loads(path.read_text())["layers"]):
            marks.append(needs_chrome)  # Plotly figures are drawn in Chromium
        params.append(pytest.param(path, id=name, marks=marks))
    return params


def moments(template: tk.Template) -> list[float]:
    """Moments on frames, spread over the video, the first within its entrance animations."""
    assert template.video is not None
    duration, fps = template.video.duration, template.video.fps
    frames = {min(round(duration * share * fps), round(duration * fps) - 1) for share in (0.04, 0.1, 0.3, 0.5, 0.9)}
    return [frame / fps for frame in sorted(frames)]


def difference(first: Image.Image, second: Image.Image, slack: int = 0) -> tuple[float, float]:
    """Mean and 99th percentile of how far each pixel of either picture lies outside the
    range of the other's within ``slack`` px of it (0: their plain difference)."""
    kernel = np.ones((2 * slack + 1, 2 * slack + 1), np.uint8)
    a, b = (np.asarray(image.convert("RGB")) for image in (first, second))

    def outside(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        low, high = cv2.erode(y, kernel).astype(np.int16), cv2.dilate(y, kernel).astype(np.int16)
        return np.maximum(np.maximum(low - x, x - high), 0)

    delta = np.maximum(outside(a.astype(np.int16), b), outside(b.astype(np.int16), a))
    return float(delta.mean()), float(np.percentile(delta, 99))


def in_video_colours(image: Image.Image) -> Image.Image:
    """``image`` as an MP4 frame shows it before compression: yuv420p as FFmpeg converts
    (BT.601, video range, colour per 2 x 2 pixels), back to RGB as PyAV decodes."""
    planes = cv2.cvtColor(np.asarray(image.convert("RGB")), cv2.COLOR_RGB2YUV_I420)
    return av.VideoFrame.from_ndarray(planes, format="yuv420p").to_image()


def pdf_page(data: bytes, width: int) -> Image.Image:
    page = pdfium.PdfDocument(data)[0]
    return page.render(scale=width / page.get_width()).to_pil()


def mp4_frames(data: bytes) -> list[Image.Image]:
    with av.open(io.BytesIO(data)) as container:
        return [frame.to_image() for frame in container.decode(container.streams.video[0])]


@pytest.mark.parametrize("path", cases())
def test_a_moment_is_the_same_picture_as_png_pdf_and_mp4_frame(path):
    template = load(path)
    assert template.video is not None
    frames = mp4_frames(tk.render_video(template).data)
    failures = []
    for moment in moments(template):
        still = Image.open(io.BytesIO(tk.render_image(template, moment=moment).data)).convert("RGB")
        even = (0, 0, still.width // 2 * 2, still.height // 2 * 2)  # yuv420p's sides
        frame = frames[round(moment * template.video.fps)]
        printed = pdf_page(tk.render_pdf(template, moment=moment).data, still.width).resize(still.size)
        pairs = {
            "the MP4 frame": difference(in_video_colours(still.crop(even)), frame.crop(even)),
            "the PDF": difference(still, printed, PDF_SLACK),
        }
        failures += [
            f"at {moment} s the PNG and {name} differ ({mean:.2f}, {p99})"
            for name, (mean, p99) in pairs.items()
            if not (mean < MEAN and p99 < P99)
        ]
    assert not failures, "; ".join(failures)
