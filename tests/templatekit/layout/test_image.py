"""Image layout: the Scene for each fit mode and focus, corner clips, borders, grayscale
and errors; a few pixel checks through the raster painter."""

from __future__ import annotations

import base64
import io
from typing import Any

import numpy as np
import pytest
import resvg_py
from PIL import Image as PILImage

import templatekit as tk
from templatekit.assets import AssetLoader, MemoryAssetLoader
from templatekit.errors import AssetError
from templatekit.layout import image
from templatekit.layout.context import LayoutContext
from templatekit.model.layers import Border, Focus, ImageLayer
from templatekit.model.values import Color, Length
from templatekit.paint.canvas import paint
from templatekit.scene import Clip, Ellipse, Group, Image, Rect, Scene
from templatekit.text.fonts import FontBook

RED, BLUE, GREEN = (255, 0, 0), (0, 0, 255), (0, 160, 0)
NAVY = Color(0, 0, 128)


def png(size: tuple[int, int], *stripes: tuple[int, int, int], mode: str = "RGB") -> bytes:
    """Vertical stripes of equal width, one per colour."""
    canvas = PILImage.new(mode, size)
    width = size[0] // len(stripes)
    for index, colour in enumerate(stripes):
        canvas.paste(colour, (index * width, 0, (index + 1) * width, size[1]))
    buffer = io.BytesIO()
    canvas.save(buffer, "PNG")
    return buffer.getvalue()


SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10">'
    b'<rect width="10" height="10" fill="red"/><rect x="10" width="10" height="10" fill="blue"/></svg>'
)

FILES = {
    "wide.png": png((400, 200), RED, BLUE),
    "tall.png": png((100, 300), RED),
    "square.png": png((100, 100), RED),
    "small.png": png((50, 30), GREEN),
    "rgba.png": png((40, 40), (*RED, 255), (*BLUE, 0), mode="RGBA"),
    "logo.svg": SVG,
}


@pytest.fixture
def ctx() -> LayoutContext:
    return LayoutContext(fonts=FontBook([]), assets=MemoryAssetLoader(FILES))


def image_layer(src: str = "wide.png", **fields: Any) -> ImageLayer:
    spec = {"name": "photo", "x": 10, "y": 20, "width": 100, "height": 100, "src": src}
    return ImageLayer(**{**spec, **fields})


def only_image(items: list) -> Image:
    assert len(items) == 1 and isinstance(items[0], Image)
    return items[0]


def box(item: Image | Clip | Rect | Ellipse) -> tuple[float, float, float, float]:
    return (item.x, item.y, item.width, item.height)


# ------------------------------------------------------------------ fit modes


@pytest.mark.parametrize(
    ("focus", "crop"),
    [
        (Focus(), (100, 0, 300, 200)),
        (Focus(x=0), (0, 0, 200, 200)),
        (Focus(x=1), (200, 0, 400, 200)),
        (Focus(x=0.3), (20, 0, 220, 200)),
    ],
)
def test_cover_crops_a_wide_source_around_the_focus(ctx: LayoutContext, focus: Focus, crop: tuple) -> None:
    item = only_image(image.layout(image_layer(focus=focus), ctx))
    assert box(item) == (10, 20, 100, 100)
    assert item.image.size == (200, 200)  # source resolution, not the box's
    assert item.key.endswith("/crop={},{},{},{}".format(*crop))


@pytest.mark.parametrize(("focus_y", "top"), [(0.5, 100), (0, 0), (1, 200), (0.4, 70)])
def test_cover_crops_a_tall_source_vertically(ctx: LayoutContext, focus_y: float, top: int) -> None:
    item = only_image(image.layout(image_layer("tall.png", focus=Focus(y=focus_y)), ctx))
    assert item.image.size == (100, 100)
    assert item.key.endswith(f"/crop=0,{top},100,{top + 100}")


def test_cover_crop_keeps_the_box_aspect(ctx: LayoutContext) -> None:
    item = only_image(image.layout(image_layer(width=300, height=100), ctx))
    assert box(item) == (10, 20, 300, 100)
    assert item.image.size == (400, 133)


def test_cover_without_crop_uses_the_decoded_image(ctx: LayoutContext) -> None:
    item = only_image(image.layout(image_layer("square.png"), ctx))
    assert item.image is ctx.assets.load_image("square.png").image
    assert "crop" not in item.key


def test_cover_pixels_follow_the_focus(ctx: LayoutContext) -> None:
    left = only_image(image.layout(image_layer(focus=Focus(x=0)), ctx))
    right = only_image(image.layout(image_layer(focus=Focus(x=1)), ctx))
    assert left.image.getcolors() == [(200 * 200, RED)]
    assert right.image.getcolors() == [(200 * 200, BLUE)]


def test_contain_scales_to_fit_and_centres(ctx: LayoutContext) -> None:
    item = only_image(image.layout(image_layer(fit="contain"), ctx))
    assert box(item) == (10, 45, 100, 50)
    assert item.image.size == (400, 200)


def test_contain_a_tall_source(ctx: LayoutContext) -> None:
    item = only_image(image.layout(image_layer("tall.png", fit="contain", width=200, height=150), ctx))
    assert box(item) == pytest.approx((10 + 75, 20, 50, 150))


def test_fill_stretches_into_the_box(ctx: LayoutContext) -> None:
    item = only_image(image.layout(image_layer(fit="fill"), ctx))
    assert box(item) == (10, 20, 100, 100)
    assert item.image.size == (400, 200)


def test_none_keeps_the_natural_size_and_centres(ctx: LayoutContext) -> None:
    item = only_image(image.layout(image_layer("small.png", fit="none"), ctx))
    assert box(item) == (10 + 25, 20 + 35, 50, 30)
    assert item.image.size == (50, 30)


def test_none_cuts_a_larger_image_to_the_box(ctx: LayoutContext) -> None:
    item = only_image(image.layout(image_layer(fit="none"), ctx))
    assert box(item) == (10, 20, 100, 100)
    assert item.image.size == (100, 100)
    assert item.key.endswith("/crop=150,50,250,150")


def test_svg_is_rasterised_for_the_box(ctx: LayoutContext) -> None:
    item = only_image(image.layout(image_layer("logo.svg"), ctx))
    assert box(item) == (10, 20, 100, 100)
    assert item.image.size == (200, 200)  # 400x200 drawn for a 2x box, then cropped
    assert item.key.endswith("@400x200/crop=100,0,300,200")


def test_svg_with_fit_none_is_drawn_at_its_natural_size(ctx: LayoutContext) -> None:
    item = only_image(image.layout(image_layer("logo.svg", fit="none"), ctx))
    assert box(item) == (10 + 40, 20 + 45, 20, 10)


CIRCLE = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><circle cx="32" cy="32" r="24" fill="#0f172a"/></svg>'
)


def test_an_svg_is_shrunk_by_averaging_without_a_halo() -> None:
    """The SVG is drawn at twice the box, then shrunk to it by averaging: as resvg draws it
    at the box's own size to within edge rounding, and the background two pixels off its
    edge untouched (Lanczos, a filter for photos, left a halo of 200 pixels there)."""
    template = {
        "name": "logo",
        "width": 96,
        "height": 96,
        "background": "#ffffff",
        "layers": [
            {"type": "image", "name": "logo", "x": 16, "y": 16, "width": 64, "height": 64, "src": svg_uri(CIRCLE)}
        ],
    }
    drawn = np.asarray(PILImage.open(io.BytesIO(tk.render_image(template).data)).convert("RGB")).astype(int)[
        16:80, 16:80
    ]
    alone = PILImage.open(io.BytesIO(bytes(resvg_py.svg_to_bytes(svg_string=CIRCLE.decode(), width=64, height=64))))
    expected = PILImage.new("RGBA", (64, 64), "white")
    expected.alpha_composite(alone.convert("RGBA"))
    difference = np.abs(drawn - np.asarray(expected.convert("RGB")).astype(int))
    assert difference.mean() < 0.45 and difference.max() <= 32
    rows, columns = np.mgrid[0:64, 0:64]
    off_the_edge = np.hypot(columns + 0.5 - 32, rows + 0.5 - 32) > 26
    assert (drawn[off_the_edge] == 255).all()


def svg_uri(document: bytes) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(document).decode()


# ------------------------------------------------------------------ corners, border, grayscale


def test_no_radius_no_clip(ctx: LayoutContext) -> None:
    assert isinstance(image.fitted_image("wide.png", "cover", 0, 0, 50, 50, ctx, owner="photo"), Image)


@pytest.mark.parametrize(
    ("radius", "clip"),
    [
        ("50%", Clip(10, 20, 100, 60, ellipse=True)),
        ("80%", Clip(10, 20, 100, 60, ellipse=True)),
        ("10%", Clip(10, 20, 100, 60, radius=6)),
        (12, Clip(10, 20, 100, 60, radius=12)),
        (500, Clip(10, 20, 100, 60, radius=30)),
    ],
)
def test_radius_becomes_a_clip(ctx: LayoutContext, radius: float | str, clip: Clip) -> None:
    [group] = image.layout(image_layer(height=60, radius=Length.parse(radius)), ctx)
    assert isinstance(group, Group) and group.clip == clip
    assert isinstance(group.items[0], Image)


def test_border_is_drawn_on_top_inside_the_box(ctx: LayoutContext) -> None:
    items = image.layout(image_layer(radius=Length(12), border=Border(width=4, color=NAVY)), ctx)
    assert isinstance(items[0], Group)
    assert items[1] == Rect(10, 20, 100, 100, stroke=NAVY, stroke_width=4, radius=12)


def test_border_of_a_circle(ctx: LayoutContext) -> None:
    items = image.layout(image_layer(radius=Length.parse("50%"), border=Border(width=3, color=NAVY)), ctx)
    assert items[1] == Ellipse(10, 20, 100, 100, stroke=NAVY, stroke_width=3)


def test_border_of_width_zero_is_not_drawn(ctx: LayoutContext) -> None:
    assert len(image.layout(image_layer(border=Border(width=0, color=NAVY)), ctx)) == 1


def test_grayscale_is_converted_at_layout_and_cached(ctx: LayoutContext) -> None:
    layer = image_layer("rgba.png", fit="fill", grayscale=True)
    item = only_image(image.layout(layer, ctx))
    assert item.key.endswith("/gray")
    assert item.image.mode == "RGBA"
    red_gray, blue_gray = item.image.getpixel((5, 5)), item.image.getpixel((35, 5))
    assert red_gray[0] == red_gray[1] == red_gray[2] and red_gray[3] == 255
    assert blue_gray[3] == 0
    assert only_image(image.layout(layer, ctx)).image is item.image


def test_keys_name_content_crop_and_grayscale(ctx: LayoutContext) -> None:
    keys = {
        only_image(image.layout(image_layer(**fields), ctx)).key
        for fields in ({}, {"grayscale": True}, {"focus": Focus(x=0)}, {"fit": "fill"})
    }
    assert len(keys) == 4


# ------------------------------------------------------------------ errors


def test_an_unknown_source_names_the_layer_and_the_url(ctx: LayoutContext) -> None:
    with pytest.raises(AssetError) as caught:
        image.layout(image_layer("missing.png"), ctx)
    assert caught.value.layer == "photo" and caught.value.url == "missing.png"
    assert str(caught.value).startswith("layer 'photo': cannot fetch missing.png: ")


def test_a_refused_address_names_the_layer_and_the_cause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TEMPLATEKIT_FETCH_ALLOW", raising=False)
    ctx = LayoutContext(fonts=FontBook([]), assets=AssetLoader())
    with pytest.raises(AssetError) as caught:
        image.layout(image_layer("http://127.0.0.1:9/logo.png"), ctx)
    assert str(caught.value) == (
        "layer 'photo': cannot fetch http://127.0.0.1:9/logo.png: 127.0.0.1 is a loopback address "
        "(allow it with TEMPLATEKIT_FETCH_ALLOW)"
    )


def test_background_errors_are_owned_by_the_background(ctx: LayoutContext) -> None:
    with pytest.raises(AssetError) as caught:
        image.fitted_image("nope.png", "cover", 0, 0, 400, 200, ctx, owner="background")
    assert caught.value.layer == "background"


# ------------------------------------------------------------------ pixels


def test_circle_clip_leaves_the_corners_transparent(ctx: LayoutContext) -> None:
    items = image.layout(image_layer("square.png", x=0, y=0, radius=Length.parse("50%")), ctx)
    canvas = paint(Scene(100, 100, None, tuple(items)))
    assert canvas.getpixel((2, 2))[3] == 0 and canvas.getpixel((97, 97))[3] == 0
    assert canvas.getpixel((50, 50)) == (*RED, 255)
    assert canvas.getpixel((50, 2)) == (*RED, 255)


def test_border_pixels(ctx: LayoutContext) -> None:
    items = image.layout(image_layer("square.png", x=0, y=0, border=Border(width=10, color=NAVY)), ctx)
    canvas = paint(Scene(100, 100, None, tuple(items)))
    assert canvas.getpixel((0, 50)) == NAVY.rgba and canvas.getpixel((5, 50)) == NAVY.rgba
    assert canvas.getpixel((15, 50)) == (*RED, 255)


def test_contain_pixels_leave_the_bars_empty(ctx: LayoutContext) -> None:
    items = image.layout(image_layer(x=0, y=0, fit="contain"), ctx)
    canvas = paint(Scene(100, 100, Color(255, 255, 255), tuple(items)))
    assert canvas.getpixel((50, 10)) == (255, 255, 255, 255)
    assert canvas.getpixel((25, 50)) == (*RED, 255) and canvas.getpixel((75, 50)) == (*BLUE, 255)


def test_grayscale_pixels(ctx: LayoutContext) -> None:
    items = image.layout(image_layer("square.png", x=0, y=0, grayscale=True), ctx)
    r, g, b, a = paint(Scene(100, 100, None, tuple(items))).getpixel((50, 50))
    assert r == g == b == 54 and a == 255  # CSS grayscale(1) of red: 0.2126 x 255
