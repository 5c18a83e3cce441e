"""Chart bars filled as boxes: known again from their path, with a mask that is exact on
their straight sides and drawn finely at their corners, and painted as the path painter
would have painted them."""

from __future__ import annotations

import math

import pytest
from PIL import Image as PILImage
from PIL import ImageChops, ImageDraw

from templatekit.layout.charts import marks
from templatekit.model.values import Color
from templatekit.paint import boxes, canvas, raster
from templatekit.scene import Path, Rect, Scene
from templatekit.scene.geometry import rounded_box_commands

hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies
given, settings, example = hypothesis.given, hypothesis.settings, hypothesis.example

BLUE, WHITE = Color(59, 130, 246), Color(255, 255, 255)
ENDS = ["top", "bottom", "left", "right", None]
CORNERS = {
    "top": (True, True, False, False),
    "bottom": (False, False, True, True),
    "left": (True, False, False, True),
    "right": (False, True, True, False),
    None: (False, False, False, False),
}

coordinate = st.floats(min_value=-50, max_value=400, allow_nan=False)
extent = st.floats(min_value=0.5, max_value=300, allow_nan=False)


@given(
    x=coordinate,
    y=coordinate,
    width=extent,
    height=extent,
    radius=st.one_of(st.just(0.0), st.floats(0.01, 20)),
    end=st.sampled_from(ENDS),
)
def test_every_bar_a_chart_draws_is_known_again(x, y, width, height, radius, end):
    bar = marks.bar(x, y + height, x + width, y, radius, end, BLUE)
    found = boxes.rounded_box(bar)
    assert found is not None
    box, r, corners = found
    assert box == pytest.approx((x, y, x + width, y + height), abs=1e-9)
    expected_r = min(radius, width / 2, height / 2) if end else 0.0
    assert r == pytest.approx(expected_r, abs=1e-9)
    assert corners == (CORNERS[end] if r > 0 else (False,) * 4)


def test_other_paths_are_left_to_the_path_painter():
    commands = rounded_box_commands((10, 10, 50, 90), 6, (True, True, False, False))
    moved = tuple((c[0], *(v + (0.5 if i == 3 else 0) for i, v in enumerate(c[1:]))) for c in commands)
    others = [
        moved,  # a control point off its quarter circle
        commands[:-1],  # not closed
        (*commands[:-1], ("L", 10, 20), ("Z",)),  # one more side
        rounded_box_commands((10, 10, 50, 90), 6, (True, False, True, False)) * 2,  # two contours
        tuple(marks.slice_(50, 50, 40, 0, 0.2, 1.4, BLUE).commands),
        (("M", 0, 0), ("L", 10, 0), ("L", 10, 10), ("L", 0, 20), ("L", 0, 0), ("Z",)),  # not a box
    ]
    for path in others:
        assert boxes.rounded_box(Path(path, fill=BLUE)) is None


def reference_mask(size: tuple[int, int], box, radius: float, corners) -> PILImage.Image:
    """The box drawn at 64x64 samples a pixel: its edges placed to within a 128th of a
    pixel (at 32 samples, a reference edge a 64th off and one of ours a 32nd off the
    other way made a straight edge 8 levels apart all along)."""
    k = 64
    big = PILImage.new("L", (size[0] * k, size[1] * k), 0)
    left, top, right, bottom = (round(v * k) for v in box)
    ImageDraw.Draw(big).rounded_rectangle(
        (left, top, right - 1, bottom - 1), radius=radius * k, fill=255, corners=corners
    )
    return big.reduce(k)


@settings(max_examples=60, deadline=None)
@example(left=0.84375, top=0.84375, width=12.0, height=12.0, radius=1.7890625, end="top")  # 26 levels off
@example(
    left=0.0, top=0.0, width=12.0, height=12.890789324239833, radius=4.0, end="bottom"
)  # 6.1 on average at 32 samples
@given(
    left=st.floats(0, 0.99),
    top=st.floats(0, 0.99),
    width=st.floats(12, 60),
    height=st.floats(12, 120),
    radius=st.floats(0.5, 5),
    end=st.sampled_from(["top", "bottom", "left", "right"]),
)
def test_the_mask_is_the_box_to_within_a_few_levels(left, top, width, height, radius, end):
    box = (left, top, left + width, top + height)
    size = (math.ceil(box[2]), math.ceil(box[3]))
    mask = boxes.box_mask(size, box, radius, CORNERS[end])
    assert mask is not None
    difference = ImageChops.difference(mask, reference_mask(size, box, radius, CORNERS[end]))
    histogram = difference.histogram()
    # two drawings of the same arcs, at 16 and 64 samples a pixel: within a tenth of a
    # pixel anywhere (25.5 levels, each side rounded to a level), and a few levels on
    # average along the edges
    assert max(level for level, count in enumerate(histogram) if count) <= 26
    # the pixels the arcs cross, counted from the arcs too: a box on whole pixels with
    # small corners has only a couple of pixels between 0 and 255 to average over
    arc_pixels = sum(CORNERS[end]) * math.ceil(math.pi * radius / 2 + 1)
    edge_pixels = max(sum(mask.histogram()[1:255]), arc_pixels)
    assert sum(level * count for level, count in enumerate(histogram)) / edge_pixels <= 6
    margin = math.ceil(radius) + 1
    inside = (
        math.ceil(left) + margin,
        math.ceil(top) + margin,
        math.floor(box[2]) - margin,
        math.floor(box[3]) - margin,
    )
    if inside[2] > inside[0] and inside[3] > inside[1]:
        assert mask.crop(inside).getextrema() == (255, 255)


def test_a_box_too_small_for_its_corners_is_left_to_the_path_painter():
    assert boxes.box_mask((4, 4), (0.3, 0.3, 3.8, 3.9), 1.5, (True, True, False, False)) is None


def painted(items: tuple, *, as_boxes: bool, scale: float = 1.0, monkeypatch: pytest.MonkeyPatch) -> PILImage.Image:
    canvas.forget()
    with monkeypatch.context() as patch:
        if not as_boxes:
            patch.setattr(raster, "rounded_box", lambda path: None)
        return canvas.paint(Scene(200, 120, WHITE, items), scale).convert("RGB")


@pytest.mark.parametrize("scale", [1.0, 2.0, 1.37])
def test_bars_are_painted_as_the_path_painter_paints_them(scale, monkeypatch):
    bars = tuple(
        marks.bar(10.3 + 38.7 * i, 110.2, 10.3 + 38.7 * i + 29.4, 110.2 - 17.9 * (i + 1), 4.2, end, BLUE)
        for i, end in enumerate(["top", "bottom", "left", "right", None])
    ) + (marks.bar(-12.4, 5.5, 30.6, 40.25, 4.2, "right", BLUE),)  # partly off the canvas
    fast = painted(bars, as_boxes=True, scale=scale, monkeypatch=monkeypatch)
    paths = painted(bars, as_boxes=False, scale=scale, monkeypatch=monkeypatch)
    histogram = ImageChops.difference(fast, paths).convert("L").histogram()
    assert max(level for level, count in enumerate(histogram) if count) <= 40  # edges: exact against 4x4 samples
    edges = sum(2 * (bar.bounds()[2] - bar.bounds()[0] + bar.bounds()[3] - bar.bounds()[1]) for bar in bars) * scale
    assert sum(histogram[8:]) < edges  # and only at edges
    assert fast.getpixel((round(25 * scale), round(100 * scale))) == BLUE.rgba[:3]  # the core, whole


def test_a_bar_path_is_filled_as_a_box_and_a_rounded_rect_keeps_its_own_mask(monkeypatch):
    made = []
    real = raster.box_mask
    monkeypatch.setattr(raster, "box_mask", lambda *args: made.append(args[0]) or real(*args))
    bar = marks.bar(10.5, 100, 40.5, 20.25, 4, "top", BLUE)
    canvas.forget()
    canvas.paint(Scene(200, 120, WHITE, (bar, Rect(60.25, 20.5, 100, 80, BLUE, radius=12))), 1.0)
    assert made == [(31, 80)]  # the bar's pixels; the rectangle keeps its own mask


def test_filling_the_core_whole_and_the_frame_through_the_mask_is_filling_through_the_mask(monkeypatch):
    """Bars and rounded rectangles: the split into a core and a frame changes no pixel."""
    items = (
        marks.bar(10.5, 100, 40.5, 20.25, 4, "top", BLUE),
        marks.bar(50.3, 10.7, 81.9, 70.2, 4.4, "bottom", BLUE),
        Rect(90.25, 20.5, 100, 80, BLUE, radius=12),
        Rect(5.5, 104.3, 180, 12.6, BLUE, radius=3),
    )

    def through_mask(surface, fill, mask, x0, y0, box, radius, corners=(True,) * 4):
        raster._fill_through(surface, fill, mask.size, mask, x0, y0)

    canvas.forget()
    split = canvas.paint(Scene(200, 120, WHITE, items), 1.0).tobytes()
    monkeypatch.setattr(raster, "_fill_rounded", through_mask)
    canvas.forget()
    whole = canvas.paint(Scene(200, 120, WHITE, items), 1.0).tobytes()
    canvas.forget()
    assert split == whole
