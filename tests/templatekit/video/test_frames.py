"""Effects in video frames: a moving layer keeps its shadows, blur, mask and blend mode,
and keyframes animate the effects that are numbers (blur, the first shadow, an image's
filters), decoded from the MP4 a player gets."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

import templatekit as tk
from templatekit.errors import TemplateError
from tests.conftest import data_uri, layer
from tests.templatekit.paint.test_effects import EDGE, deviation
from tests.templatekit.video.test_movie import probe, video

pytest.importorskip("av")


def ramp(name: str, values: tuple[float, float], seconds: float = 1.0) -> dict[str, object]:
    keyframes = [{"time": 0, "value": values[0]}, {"time": seconds, "value": values[1]}]
    return {"property": name, "keyframes": keyframes}


def square(**fields: object) -> dict[str, object]:
    return layer("shape", "box", **{"x": 80, "y": 50, "width": 60, "height": 60, "fill": "#ffffff", **fields})


def test_a_moving_layer_keeps_its_shadow():
    shadowed = square(shadows=[{"x": 30, "y": 0, "blur": 0, "color": "#ff0000"}], animations=[ramp("opacity", (0, 1))])
    last = np.asarray(probe(tk.render_video(video(shadowed, width=240, height=160)).data)["frames"][-1])
    assert last[80, 110].min() > 230  # the square
    assert last[80, 160, 0] > 200 and last[80, 160, 1] < 60  # its red shadow, 30 px right


def test_keyframes_blur_a_layer_and_move_its_shadow():
    blurred = square(animations=[ramp("blur", (0, 24))])
    frames = probe(tk.render_video(video(blurred, width=240, height=160)).data)["frames"]
    first, last = (np.asarray(frame.convert("L"))[80, 60:100].astype(int) for frame in (frames[0], frames[-1]))
    assert np.count_nonzero((first > 40) & (first < 215)) <= 4  # a sharp edge at x 80
    assert np.count_nonzero((last > 40) & (last < 215)) >= 12  # a soft one

    moving = square(shadows=[{"x": 0, "y": 0, "blur": 0, "color": "#00ff00"}], animations=[ramp("shadowX", (0, 50))])
    frames = probe(tk.render_video(video(moving, width=240, height=160)).data)["frames"]
    rows = [np.asarray(frame).astype(int)[80] for frame in frames[5:]]
    green = [int(np.nonzero(row[:, 1] - row[:, 0] > 100)[0].max(initial=0)) for row in rows]
    assert green == sorted(green) and green[-1] > green[0] + 30  # the shadow's right edge moves right


def test_a_keyframed_blur_is_css_filter_blur_its_value_the_deviation():
    edge = {**EDGE, "fill": "#ffffff", "animations": [ramp("blur", (0, 10))]}
    last = probe(tk.render_video(video(edge, width=200, height=200)).data)["frames"][-1]
    levels = [255 - last.convert("L").getpixel((x, 100)) for x in range(50, 150)]  # dark first
    assert deviation(levels) == pytest.approx(10, abs=0.7)


def test_keyframes_animate_an_image_filter():

    buffer = io.BytesIO()
    Image.new("RGB", (40, 40), (200, 60, 60)).save(buffer, "PNG")
    photo = layer(
        "image", "photo", x=40, y=40, width=80, height=80, src=data_uri(buffer.getvalue()),
        animations=[ramp("brightness", (0.2, 1.0))],
    )  # fmt: skip
    frames = probe(tk.render_video(video(photo, width=160, height=160)).data)["frames"]
    reds = [int(np.asarray(frame)[80, 80, 0]) for frame in frames[:30:5]]
    assert reds == sorted(reds) and reds[0] < 70 and reds[-1] > 170  # darker, then its own colour


def test_a_blend_mode_mixes_with_what_is_under_it_in_every_frame():
    under = layer("shape", "under", x=0, y=0, width=240, height=160, fill="#3366cc", animations=[ramp("x", (0, 0))])
    multiplied = square(fill="#808080", blend="multiply")
    frame = np.asarray(probe(tk.render_video(video(under, multiplied, width=240, height=160)).data)["frames"][-1])
    assert tuple(frame[80, 110]) == pytest.approx((26, 51, 102), abs=6)  # 0.5 of the blue under it
    moving = {**multiplied, "animations": [ramp("opacity", (1, 1))]}
    frame = np.asarray(probe(tk.render_video(video(under, moving, width=240, height=160)).data)["frames"][-1])
    assert tuple(frame[80, 110]) == pytest.approx((26, 51, 102), abs=6)


def test_a_filter_keyframe_on_a_layer_that_is_not_an_image_is_refused():
    with pytest.raises(TemplateError, match=r"animations\[0\]\.property: 'sepia' animates an image's filters"):
        tk.render_video(video(square(animations=[ramp("sepia", (0, 1))])))
