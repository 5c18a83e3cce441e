"""Effects and rich text against Chromium drawing the same design in CSS: image filters,
blend modes and box shadows compared pixel by pixel (mean difference per channel, of
255); rich text by where each styled span's ink lands (anti-aliasing differs)."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageChops, ImageStat

import templatekit as tk
from tests.conftest import decode, layer, template

pytestmark = pytest.mark.slow

SIZE = (320, 200)
#: Mean difference per channel allowed, of 255: the formulas are the same, Skia's blur
#: approximates the Gaussian with three box blurs and rounds in 8 bits between steps.
TOLERANCE = 2.5
#: For hard-edged shapes: a shape's edge a pixel off along its length is more.
SHAPE_TOLERANCE = 1.0


def gradient_png(folder: Path) -> Path:
    image = Image.new("RGB", (160, 100))
    image.putdata([(x * 255 // 159, y * 255 // 99, 150) for y in range(100) for x in range(160)])
    path = folder / "gradient.png"
    image.save(path)
    return path


def chromium_shot(page, body: str) -> Image.Image:
    page.set_viewport_size({"width": SIZE[0], "height": SIZE[1]})
    page.set_content(
        "<!doctype html><html><head><style>html,body{margin:0;background:#fff}"
        " div,img{position:absolute;display:block}</style></head>"
        f"<body>{body}</body></html>"
    )
    page.wait_for_load_state("load")
    return Image.open(io.BytesIO(page.screenshot(type="png"))).convert("RGB")


def ours(*layers: dict[str, object]) -> Image.Image:
    return decode(tk.render_image(template(*layers, width=SIZE[0], height=SIZE[1], background="#ffffff")).data).convert(
        "RGB"
    )


def mean_difference(a: Image.Image, b: Image.Image) -> float:
    return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3


@pytest.mark.parametrize(
    ("css", "fields"),
    [
        ("brightness(1.6)", {"brightness": 1.6}),
        ("contrast(2)", {"contrast": 2}),
        ("saturate(0.2)", {"saturation": 0.2}),
        ("saturate(2.5)", {"saturation": 2.5}),
        ("hue-rotate(120deg)", {"hueRotate": 120}),
        ("sepia(1)", {"sepia": 1}),
        ("invert(0.7)", {"invert": 0.7}),
        ("brightness(1.2) contrast(1.4) saturate(0.5) hue-rotate(45deg) sepia(0.3) invert(0.1)",
         {"brightness": 1.2, "contrast": 1.4, "saturation": 0.5, "hueRotate": 45, "sepia": 0.3, "invert": 0.1}),
    ],
)  # fmt: skip
def test_image_filters_match_css(page, tmp_path, css, fields):
    source = gradient_png(tmp_path)
    uri = "data:image/png;base64," + base64.b64encode(source.read_bytes()).decode()
    theirs = chromium_shot(page, f'<img src="{uri}" style="left:40px;top:50px;width:160px;height:100px;filter:{css}">')
    mine = ours(layer("image", "photo", x=40, y=50, width=160, height=100, src=str(source), filters=fields))
    assert mean_difference(mine, theirs) < TOLERANCE


@pytest.mark.parametrize(("css", "filters"), [("grayscale(1)", {}), ("sepia(0.5) grayscale(1)", {"sepia": 0.5})])
def test_grayscale_is_css_grayscale(page, tmp_path, css, filters):
    source = gradient_png(tmp_path)
    uri = "data:image/png;base64," + base64.b64encode(source.read_bytes()).decode()
    theirs = chromium_shot(page, f'<img src="{uri}" style="left:40px;top:50px;width:160px;height:100px;filter:{css}">')
    photo = layer("image", "photo", x=40, y=50, width=160, height=100, src=str(source), grayscale=True, filters=filters)
    difference = ImageChops.difference(ours(photo), theirs)
    assert max(high for _, high in difference.getextrema()) <= 1  # the same matrix: rounding apart


@pytest.mark.parametrize(
    "mode",
    ["multiply", "screen", "overlay", "darken", "lighten", "color-dodge", "color-burn", "hard-light",
     "soft-light", "difference", "exclusion", "hue", "saturation", "color", "luminosity"],
)  # fmt: skip
def test_blend_modes_match_css(page, mode):
    theirs = chromium_shot(
        page,
        '<div style="left:0;top:0;width:320px;height:200px;background:linear-gradient(90deg,#1e3a8a,#fbbf24)"></div>'
        '<div style="left:60px;top:40px;width:200px;height:120px;'
        f'background:linear-gradient(180deg,#ef4444,#22c55e);mix-blend-mode:{mode}"></div>',
    )
    mine = ours(
        layer(
            "shape", "under", x=0, y=0, width=320, height=200, fill={"from": "#1e3a8a", "to": "#fbbf24", "angle": 90}
        ),
        layer(
            "shape",
            "over",
            x=60,
            y=40,
            width=200,
            height=120,
            fill={"from": "#ef4444", "to": "#22c55e", "angle": 180},
            blend=mode,
        ),
    )
    assert mean_difference(mine, theirs) < TOLERANCE


@pytest.mark.parametrize(
    ("css", "shadow"),
    [
        ("12px 10px 0 0 #ef4444", {"x": 12, "y": 10, "blur": 0, "color": "#ef4444"}),
        ("0 12px 24px 0 rgba(15,23,42,0.45)", {"x": 0, "y": 12, "blur": 24, "color": "#0f172a73"}),
        ("-8px 6px 16px 6px rgba(79,70,229,0.6)", {"x": -8, "y": 6, "blur": 16, "spread": 6, "color": "#4f46e599"}),
    ],
)
def test_shadows_match_css_box_shadow(page, css, shadow):
    theirs = chromium_shot(
        page, f'<div style="left:90px;top:50px;width:140px;height:90px;background:#fff;box-shadow:{css}"></div>'
    )
    mine = ours(layer("shape", "card", x=90, y=50, width=140, height=90, fill="#ffffff", shadows=[shadow]))
    assert mean_difference(mine, theirs) < TOLERANCE


@pytest.mark.parametrize(
    ("geometry", "radius", "spread", "blur"),
    [
        ({"radius": 16}, "16px", 24, 0),  # the corners grow to 40 px
        ({"radius": 16}, "16px", 30, 0),
        ({"radius": 16}, "16px", 20, 10),
        ({"radius": 8}, "8px", 24, 0),  # less rounded than the spread: grown less
        ({"radius": 0}, "0", 20, 0),  # sharp corners stay sharp
        ({"shape": "ellipse"}, "50%", 16, 0),
        ({"radius": 24}, "24px", -12, 0),  # shrunk to 12 px
        ({"radius": 8}, "8px", -12, 0),  # shrunk to nothing: sharp
    ],
)
def test_spread_grows_the_shape_and_its_corners_as_css_box_shadow(page, geometry, radius, spread, blur):
    theirs = chromium_shot(
        page,
        '<div style="left:100px;top:60px;width:120px;height:80px;background:#fff;'
        f'border-radius:{radius};box-shadow:10px 8px {blur}px {spread}px #1e3a8a"></div>',
    )
    shadow = {"x": 10, "y": 8, "blur": blur, "spread": spread, "color": "#1e3a8a"}
    card = layer("shape", "card", x=100, y=60, width=120, height=80, fill="#ffffff", shadows=[shadow], **geometry)
    assert mean_difference(ours(card), theirs) < SHAPE_TOLERANCE


@pytest.mark.parametrize("blur", [12, 24])
def test_layer_blur_matches_css_filter_blur(page, blur):
    """``blur: N`` is CSS's ``filter: blur(Npx)``: a Gaussian of standard deviation N px."""
    theirs = chromium_shot(
        page, f'<div style="left:90px;top:50px;width:140px;height:90px;background:#4f46e5;filter:blur({blur}px)"></div>'
    )
    mine = ours(layer("shape", "card", x=90, y=50, width=140, height=90, fill="#4f46e5", blur=blur))
    assert mean_difference(mine, theirs) < TOLERANCE


def test_radial_gradients_match_css(page):
    theirs = chromium_shot(
        page, '<div style="left:30px;top:20px;width:260px;height:160px;background:radial-gradient(#fde68a,#7c3aed)">'
    )
    fill = {"from": "#fde68a", "to": "#7c3aed", "kind": "radial"}
    mine = ours(layer("shape", "glow", x=30, y=20, width=260, height=160, fill=fill))
    assert mean_difference(mine, theirs) < TOLERANCE


# ------------------------------------------------------------------ rich text

FONTS = Path(tk.__file__).parent / "fonts"
#: px a span's ink may be off from Chromium's: the same shaping and line breaking, but
#: glyphs are placed on whole pixels differently.
TEXT_OFF = 3


def font_faces() -> str:
    """The bundled Inter as a web font, so that Chromium sets the very same glyphs."""
    faces = [
        ("Regular", 400, "normal"),
        ("Bold", 700, "normal"),
        ("Italic", 400, "italic"),
        ("ExtraBold", 800, "normal"),
    ]
    return "".join(
        f"@font-face{{font-family:Inter;src:url(data:font/otf;base64,"
        f"{base64.b64encode((FONTS / f'Inter-{name}.otf').read_bytes()).decode()});"
        f"font-weight:{weight};font-style:{style}}}"
        for name, weight, style in faces
    )


def chromium_text(page, html: str, css: str) -> Image.Image:
    page.set_viewport_size({"width": SIZE[0], "height": SIZE[1]})
    page.set_content(
        f"<!doctype html><html><head><style>{font_faces()} html,body{{margin:0;background:#fff}}"
        f" div{{position:absolute;left:20px;top:20px;width:280px;font-family:Inter;{css}}}</style></head>"
        f"<body><div>{html}</div></body></html>"
    )
    page.evaluate("document.fonts.ready")
    return Image.open(io.BytesIO(page.screenshot(type="png"))).convert("RGB")


def ink_box(image: Image.Image, where: str) -> tuple[int, int, int, int]:
    """The box around the pixels of one kind: the red span, the yellow highlight, or any
    dark ink."""
    pixels = np.asarray(image).astype(int)
    red, green, blue = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    mask = {
        "red": (red > 180) & (green < 90),
        "highlight": (red > 240) & (green > 200) & (blue < 170),
        "ink": pixels.sum(-1) < 200,
    }[where]
    ys, xs = np.nonzero(mask)
    assert len(xs), f"no {where} pixels"
    return int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())


def test_rich_text_spans_land_where_chromium_puts_them(page):
    markup = (
        'Sale <span style="color: #e11d48; font-weight: 800">70% off</span> on <i>every</i> <u>mug</u>'
        ' and <s>cup</s> <span style="background-color: #fde68a">today</span> only'
    )
    html = markup.replace("; ", ";")
    theirs = chromium_text(page, html, "font-size:26px;line-height:1.2;color:#0f172a")
    text = layer("text", "t", x=20, y=20, width=280, height=170, text=markup, markup=True, size=26, color="#0f172a")
    mine = ours(text)
    for where in ("red", "highlight", "ink"):  # the bold span, the highlight, the whole paragraph's lines
        assert ink_box(mine, where) == pytest.approx(ink_box(theirs, where), abs=TEXT_OFF), where


def test_rich_text_of_mixed_sizes_shares_a_baseline_as_in_chromium(page):
    markup = 'Only <span style="font-size: 60px; color: #e11d48; font-weight: 700">$9</span> a month, billed yearly'
    css = "font-size:22px;line-height:1.2;color:#0f172a;text-align:center"
    theirs = chromium_text(page, markup.replace("; ", ";"), css)
    fields = {"markup": True, "size": 22, "color": "#0f172a", "align": "center"}
    text = layer("text", "t", x=20, y=20, width=280, height=170, text=markup, **fields)
    mine = ours(text)
    for where in ("red", "ink"):
        assert ink_box(mine, where) == pytest.approx(ink_box(theirs, where), abs=TEXT_OFF), where


SHY = "\u00ad"
STEAMER = f"Donau{SHY}dampf{SHY}schiff{SHY}fahrt{SHY}gesell{SHY}schaft"


def runs(line: np.ndarray) -> list[tuple[int, int]]:
    """The first and last index of each run of True."""
    edges = np.diff(np.concatenate([[0], line.astype(int), [0]]))
    return list(zip(np.nonzero(edges == 1)[0].tolist(), (np.nonzero(edges == -1)[0] - 1).tolist(), strict=True))


def ink_lines(image: Image.Image, size: int) -> list[tuple[tuple[int, int, int, int], bool]]:
    """Each line's ink box (the lines apart by blank rows), and whether it ends with a
    hyphen: its last 0.15 em of ink a thin bar well below the line's top (these lines all
    have a letter with an ascender), where a letter's is taller, or an ``r``'s arm higher."""
    mask = np.asarray(image).astype(int).sum(-1) < 600
    found = []
    for top, bottom in runs(mask.any(1)):
        columns = np.nonzero(mask[top : bottom + 1].any(0))[0]
        left, right = int(columns.min()), int(columns.max())
        end = np.nonzero(mask[top : bottom + 1, right - int(0.15 * size) : right + 1].any(1))[0]
        hyphen = end.max() - end.min() < 0.15 * size and end.min() > 0.3 * size
        found.append(((left, top, right, bottom), bool(hyphen)))
    return found


@pytest.mark.parametrize(
    ("text", "width", "size", "hyphens"),
    [
        (STEAMER, 150, 28, [True, True, True, True, False]),  # Donau‐ dampf‐ schifffahrt‐ gesell‐ schaft
        (STEAMER, 190, 28, [True, True, False]),  # Donaudampf‐ schifffahrt‐ gesellschaft
        (STEAMER, 250, 28, [True, True, False]),  # Donaudampf‐ schifffahrtgesell‐ schaft
        # none at a break: each draws nothing (Ein kurzer Satz mit / weichen Trennstrichen)
        (f"Ein kur{SHY}zer Satz mit wei{SHY}chen Trenn{SHY}strichen", 280, 26, [False, False]),
        # the word moves to the next line, then breaks at its last soft hyphen; the others draw nothing
        (f"Wir fahren mit der Donau{SHY}dampf{SHY}schiff{SHY}fahrt bis nach Wien", 280, 26, [False, True, False]),
    ],
)
def test_soft_hyphens_break_lines_and_show_where_chromium_shows_them(page, text, width, size, hyphens):
    """U+00AD under CSS's ``hyphens: manual`` (the default): the lines break at the same
    soft hyphens as Chromium's, each line's ink within ``TEXT_OFF`` px of Chromium's, a
    hyphen at the end of each line broken at one and nothing where a line goes on."""
    css = f"width:{width}px;font-size:{size}px;line-height:1.2;color:#0f172a;hyphens:manual"
    theirs = chromium_text(page, text, css)
    mine = ours(layer("text", "t", x=20, y=20, width=width, height=170, text=text, size=size, color="#0f172a"))
    expected = ink_lines(theirs, size)
    assert [hyphen for _, hyphen in expected] == hyphens  # Chromium breaks them so (the measure holds)
    found = ink_lines(mine, size)
    assert [hyphen for _, hyphen in found] == hyphens
    for (box, _), (chromium_box, _) in zip(found, expected, strict=True):
        assert box == pytest.approx(chromium_box, abs=TEXT_OFF)
