"""The raster painter's fast path for video frames paints what the raster painter paints:
pictures placed by the same placement, faded and blended alike."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageDraw

pytest.importorskip("cv2")

from templatekit.model.values import Color  # noqa: E402
from templatekit.paint import resample  # noqa: E402
from templatekit.paint.canvas import paint  # noqa: E402
from templatekit.paint.frame import paint_frame, picture  # noqa: E402
from templatekit.paint.placing import placement  # noqa: E402
from templatekit.scene import Clip, Effects, Group, Scene  # noqa: E402
from templatekit.scene.geometry import Transform  # noqa: E402

BLACK = Color(0, 0, 0)


def badge(size: tuple[int, int] = (120, 60), opaque: bool = False) -> PILImage.Image:
    """A rounded badge with a stripe: edges at every angle, colour and transparency."""
    image = PILImage.new("RGBA", size, (40, 90, 200, 255) if opaque else (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((4, 4, size[0] - 5, size[1] - 5), radius=14, fill=(250, 190, 40, 255))
    draw.line((0, size[1], size[0], 0), fill=(200, 30, 60, 200), width=7)
    return image


def frame_and_png(scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    return paint_frame(scene).astype(np.int16), np.asarray(paint(scene).convert("RGBA")).astype(np.int16)


@pytest.mark.parametrize(
    "group",
    [
        pytest.param(lambda p: Group((p,), transform=Transform.turn(23, (100, 80))), id="turned"),
        pytest.param(lambda p: Group((p,), transform=Transform.zoom(1.7, (100, 80), 13.25, -7.5)), id="zoomed"),
        pytest.param(lambda p: Group((p,), opacity=0.45, transform=Transform.zoom(1, (0, 0), 30, 20)), id="faded"),
        pytest.param(lambda p: Group((p,), effects=Effects(blend="multiply")), id="multiply"),
        pytest.param(
            lambda p: Group(
                (Group((p,), transform=Transform.zoom(1.4, (90, 70))),),
                transform=Transform.zoom(1.1, (100, 80), 5, 3),
                clip=Clip(60, 50, 100, 40),
            ),
            id="ken-burns",
        ),
    ],
)
def test_a_placed_picture_lands_where_the_raster_painter_puts_it(group):
    scenery = picture(badge((240, 160), opaque=True), 0, 0, 1.0, "under")
    placed = group(picture(badge(), 80, 60, 2.0, "badge"))  # painted at twice the scale, as a zooming layer is
    frame, png = frame_and_png(Scene(240, 160, BLACK, (scenery, placed)))
    difference = np.abs(frame - png)[..., :3]
    # the raster painter first paints the group on a surface of its own (a second
    # resample, at the edges only): within two levels at 99 pixels in 100
    assert difference.mean() < 0.25 and np.percentile(difference, 99) <= 2, difference.mean()
    assert (np.abs(frame - np.asarray(badge((240, 160), True))) > 40).any()  # the badge is there


def test_what_the_fast_path_does_not_know_is_painted_by_the_raster_painter():
    turned_in_a_round_clip = Group(
        (picture(badge(), 40, 40, 1.0, "badge"),),
        transform=Transform.turn(30, (100, 70)),
        clip=Clip(45, 45, 110, 50, radius=20),
    )
    frame, png = frame_and_png(Scene(200, 140, Color(250, 250, 250), (turned_in_a_round_clip,)))
    assert np.abs(frame - png).max() <= 2


def test_pillow_samples_the_points_opencv_samples(monkeypatch):
    """Without OpenCV (the core install) a placed group is sampled by Pillow at the same
    points, within a level or two of rounding."""
    pixels = np.asarray(badge((160, 90)).convert("RGBa"))
    to_target = Transform.turn(17, (80, 45)).then(Transform.zoom(1.3, (80, 45), 6.5, 2.25))
    placed = placement(to_target, (160, 90), (0.0, 0.0, 220.0, 160.0))
    assert placed is not None
    with_opencv = resample.sample(placed, pixels).astype(np.int16)
    monkeypatch.setattr(resample, "cv2", None)
    with_pillow = resample.sample(placed, pixels).astype(np.int16)
    assert with_pillow.shape == with_opencv.shape
    assert np.abs(with_pillow - with_opencv).max() <= 2
    assert with_opencv[..., 3].max() == 255 and with_opencv[..., 3].min() == 0  # the badge and around it


def test_a_picture_moved_by_whole_pixels_is_copied_not_resampled():
    placed = placement(Transform(1, 0, 0, 1, 7, -3), (50, 20), (0.0, 0.0, 100.0, 100.0))
    assert placed is not None and placed.box == (7, 0, 57, 17) and placed.shift == (0, 3)
    pixels = np.arange(50 * 20 * 4, dtype=np.uint32).astype(np.uint8).reshape(20, 50, 4)
    assert np.array_equal(resample.sample(placed, pixels), pixels[3:, :])
    half = placement(Transform(1, 0, 0, 1, 7.5, 0), (50, 20), (0.0, 0.0, 100.0, 100.0))
    assert half is not None and half.shift is None and half.box == (7, 0, 58, 20)
