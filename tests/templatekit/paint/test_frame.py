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


def test_a_photo_covering_the_frame_hides_what_is_under_it():
    """A zoomed opaque picture whose samples all fall inside it covers every pixel: the
    frame is the same without what lies under it, and as the raster painter paints it."""
    photo = picture(badge((300, 200), opaque=True).convert("RGB"), 0, 0, 1.25, "photo")  # 240x160 at 1.25x
    zoomed = Group(
        (Group((photo,), transform=Transform.zoom(1.13, (101.3, 77.7))),),
        clip=Clip(0, 0, 240, 160),
    )
    under = picture(badge((240, 160)), 0, 0, 1.0, "under")
    frame = paint_frame(Scene(240, 160, Color(255, 0, 255), (under, zoomed)))
    assert np.array_equal(frame, paint_frame(Scene(240, 160, BLACK, (zoomed,))))
    png = np.asarray(paint(Scene(240, 160, BLACK, (zoomed,))).convert("RGBA")).astype(np.int16)
    difference = np.abs(frame.astype(np.int16) - png)[..., :3]
    # the raster painter resamples the zoomed group twice: they differ at the badge's edges only
    assert difference.mean() < 0.25 and np.percentile(difference, 95) <= 1, difference.mean()
    assert not (frame[..., :3] == (255, 0, 255)).all(axis=2).any()  # no background shows through


def test_a_placement_inside_its_source_writes_its_whole_box():
    """Where ``inside`` holds, no sample reaches past the source: warping onto what was
    there and onto a blank border give the same pixels; where a sample does, they differ."""
    pixels = np.asarray(badge((160, 90), opaque=True).convert("RGB").convert("RGBA"))

    def both(scale: float, dx: float, dy: float) -> tuple[bool, np.ndarray, np.ndarray]:
        placed = placement(Transform.zoom(scale, (80, 45), dx, dy), (160, 90), (0.0, 0.0, 150.0, 80.0))
        assert placed is not None
        was = np.full((placed.size[1], placed.size[0], 4), 77, np.uint8)
        kept = resample.warp(pixels, placed.matrix, placed.size, was.copy(), within_source=False)
        blank = resample.warp(pixels, placed.matrix, placed.size, was.copy(), within_source=True)
        return resample.inside(placed, pixels), kept, blank

    for scale, dx, dy in [(1.13, 3.3, -2.7), (1.6, -0.4, 0.6), (1.02, 0.0, 0.0)]:
        inside, kept, blank = both(scale, dx, dy)
        assert inside and np.array_equal(kept, blank), (scale, dx, dy)
    inside, kept, blank = both(1.0, 0.5, 0.25)  # half a pixel past the left edge, a quarter past the top
    assert not inside and not np.array_equal(kept, blank)
