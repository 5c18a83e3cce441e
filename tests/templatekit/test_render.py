"""The public render API, end to end: bytes out, decoded and inspected."""

from __future__ import annotations

import re
import stat
from pathlib import Path

import pytest

import templatekit as tk
from tests.conftest import decode, layer, needs_chrome, template

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "templates"
SIMPLE = template(
    layer("shape", "box", x=0, y=0, width=400, height=200, fill="#2563eb"),
    layer("text", "title", x=20, y=20, width=360, height=60, text="Hello", color="#ffffff", size=40),
    background="#ffffff",
)


@pytest.mark.parametrize(
    ("fmt", "media_type", "pil_format"),
    [
        ("png", "image/png", "PNG"),
        ("jpeg", "image/jpeg", "JPEG"),
        ("jpg", "image/jpeg", "JPEG"),
        ("webp", "image/webp", "WEBP"),
    ],
)
def test_formats(fmt, media_type, pil_format):
    result = tk.render_image(SIMPLE, format=fmt)
    image = decode(result.data)
    assert result.media_type == media_type and image.format == pil_format
    assert (result.width, result.height) == image.size == (400, 200)
    red, green, blue = image.convert("RGB").getpixel((300, 150))
    assert abs(red - 0x25) < 8 and abs(green - 0x63) < 8 and abs(blue - 0xEB) < 8


def test_transparent_canvas_stays_transparent_in_png_and_turns_white_in_jpeg():
    data = template(layer("shape", "dot", x=0, y=0, width=10, height=10, fill="#000"), width=50, height=50)
    png = decode(tk.render_image(data).data)
    assert png.mode == "RGBA" and png.getpixel((40, 40))[3] == 0
    jpeg = decode(tk.render_image(data, format="jpeg").data)
    assert all(channel > 245 for channel in jpeg.getpixel((40, 40)))


def test_unknown_format_names_the_choices():
    with pytest.raises(ValueError, match=r"format: must be one of png, jpeg, webp \(got 'gif'\)"):
        tk.render_image(SIMPLE, format="gif")
    with pytest.raises(ValueError, match=r"format: must be one of png, jpeg, webp \(got None\)"):
        tk.render_image(SIMPLE, format=None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"scale": 0}, "scale: must be a positive number (got 0)"),
        ({"scale": -1}, "scale: must be a positive number (got -1)"),
        ({"scale": float("nan")}, "scale: must be a positive number (got nan)"),
        ({"scale": "2"}, "scale: must be a positive number (got '2')"),
        ({"moment": float("inf")}, "moment: must be a number of seconds, 0 or more (got inf)"),
        ({"moment": -1}, "moment: must be a number of seconds, 0 or more (got -1)"),
    ],
)
def test_arguments_out_of_their_range_are_named(arguments, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        tk.render_image(SIMPLE, **arguments)
    with pytest.raises(ValueError, match=re.escape("created: must be a datetime (got 'yesterday')")):
        tk.render_pdf(SIMPLE, created="yesterday")  # type: ignore[arg-type]


def test_thumbnail_longest_side_is_320():
    wide = tk.render_image(template(width=1200, height=630), thumbnail=True)
    assert (wide.width, wide.height) == (320, 168) == decode(wide.data).size
    small = tk.render_image(template(width=200, height=100), thumbnail=True)
    assert (small.width, small.height) == (200, 100)


def test_debug_draws_each_layer_box_and_name():
    plain = decode(tk.render_image(SIMPLE).data).convert("RGB")
    debug = decode(tk.render_image(SIMPLE, debug=True).data).convert("RGB")
    assert plain.getpixel((20, 70)) != debug.getpixel((20, 70))
    r, g, b = debug.getpixel((200, 79))  # bottom edge of the title box
    assert r > 200 and g < 120 and b > 110


def test_debug_draws_the_boxes_of_layers_in_frames():
    inner = {"type": "shape", "name": "inner", "x": 40, "y": 40, "width": 60, "height": 30, "fill": "#ffffff"}
    holder = {"type": "frame", "name": "holder", "x": 100, "y": 50, "width": 200, "height": 120, "layers": [inner]}
    spec = template(holder, background="#ffffff")
    plain = decode(tk.render_image(spec).data).convert("RGB")
    debug = decode(tk.render_image(spec, debug=True).data).convert("RGB")
    r, g, b = debug.getpixel((140, 110))  # the inner shape's left edge: the frame's corner plus its x and y
    assert plain.getpixel((140, 110)) == (255, 255, 255) and r > 200 and g < 120 and b > 110


def test_debug_labels_of_layers_at_the_same_corner_do_not_cover_each_other():
    """The notebook's badge: a name and a role line that both start at (48, 140)."""
    from templatekit.model.values import Color
    from templatekit.scene import Rect

    same_corner = template(
        layer("text", "name", x=48, y=140, width=300, height=90, text="Ada", size=64),
        layer("text", "role", x=48, y=140, width=300, height=40, text="Speaker", size=28),
        layer("text", "note", x=48, y=140, width=300, height=40, text="Note", size=28),
        width=400,
        height=300,
    )
    scene = tk.prepare(same_corner, debug=True).scene
    labels = [item for item in scene.items if isinstance(item, Rect) and item.fill == Color(236, 72, 153)]
    assert len(labels) == 3
    for index, one in enumerate(labels):
        for other in labels[index + 1 :]:
            apart = (
                one.x + one.width <= other.x
                or other.x + other.width <= one.x
                or one.y + one.height <= other.y
                or other.y + other.height <= one.y
            )
            assert apart, (one, other)
    assert all(label.y >= 0 and label.y + label.height <= 300 for label in labels)


def test_warnings_collect_from_loading_modifying_and_layout():
    data = template(layer("text", "title", text="x", font="No Such Font"), extra=True)
    result = tk.render_image(data, {"title": "y", "missing": "z"})
    assert result.warnings == (
        "extra: unknown field ignored",
        "modifications[1]: no layer named 'missing'; ignored",
        "layer 'title': font 'No Such Font' is not available; using Inter",
    )


def _last_inked_column(data: bytes, scale: float) -> float:
    import numpy as np

    return float(np.flatnonzero(np.asarray(decode(data).convert("L")).min(axis=0) < 128)[-1]) / scale


@pytest.mark.parametrize(
    ("size", "scale", "blur"),
    [(240, 1, 0), (80, 4, 3)],  # a line of 5,400 px; 1,800 px drawn at 4x, blurred (as PDFs picture it)
)
def test_a_line_wider_than_4096_pixels_is_drawn_to_its_end(size, scale, blur):
    def last(count: int) -> float:
        text = layer("text", "t", x=50, y=20, width=5900, height=260, text="H" * count, size=size, blur=blur)
        card = template(text, width=6000, height=300, background="#ffffff")
        return _last_inked_column(tk.render_image(card, scale=scale).data, scale)

    advance = (last(11) - last(1)) / 10  # each line is narrower than 4,096 px
    assert last(30) == pytest.approx(last(1) + 29 * advance, rel=0.005)  # it stopped at 4,096 px


def test_hidden_layers_are_not_drawn():
    hidden = decode(tk.render_image(SIMPLE, {"box": {"visible": False}}).data)
    assert hidden.getpixel((300, 150))[:3] == (255, 255, 255)


def test_missing_image_names_the_layer_and_the_file(tmp_path):
    data = template(layer("image", "photo", src="nope.png"))
    with pytest.raises(tk.AssetError) as caught:
        tk.render_image(tk.load_template(data, base_dir=tmp_path))
    assert "layer 'photo'" in str(caught.value) and "nope.png" in str(caught.value)


def test_template_fonts_are_loaded_and_used(tmp_path):
    font = Path(tk.__file__).parent / "fonts" / "DancingScript-Bold.otf"
    (tmp_path / "brand.ttf").write_bytes(font.read_bytes())
    data = template(
        layer("text", "t", text="Brand", font="Brand", width=300), fonts=[{"family": "Brand", "src": "brand.ttf"}]
    )
    prepared = tk.prepare(tk.load_template(data, base_dir=tmp_path))
    run = prepared.scene.items[0].items[0]
    assert run.font.path.startswith("template-font:") and run.font.data == font.read_bytes()
    assert prepared.warnings == ()
    assert tk.prepare(tk.load_template(data, base_dir=tmp_path)).scene == prepared.scene  # same book, same fonts
    bad = template(fonts=[{"family": "Brand", "src": "data:font/ttf;base64,AAAA"}])
    with pytest.raises(tk.AssetError, match=r"fonts\[0\] \('Brand'\): .* is not a font file"):
        tk.render_image(bad)


@pytest.mark.parametrize("flavor", ["woff", "woff2"])
def test_a_web_font_is_unpacked_and_drawn_and_embedded_as_its_font(tmp_path, flavor):
    # a WOFF2 was refused as "not a font file", though a server took it as a font asset
    from fontTools.ttLib import TTFont

    font = TTFont(Path(tk.__file__).parent / "fonts" / "DancingScript-Bold.otf")
    font.flavor = flavor
    font.save(tmp_path / f"brand.{flavor}")
    data = template(
        layer("text", "t", text="Brand", font="Brand", width=300, size=48),
        fonts=[{"family": "Brand", "src": f"brand.{flavor}"}],
    )
    loaded = tk.load_template(data, base_dir=tmp_path)
    run = tk.prepare(loaded).scene.items[0].items[0]
    assert run.font.path.startswith("template-font:") and run.font.data[:4] == b"OTTO"  # the CFF font it holds
    with_otf = template(layer("text", "t", text="Brand", font="Dancing Script", weight=700, width=300, size=48))
    assert decode(tk.render_image(loaded).data).tobytes() == decode(tk.render_image(with_otf).data).tobytes()


def test_results_save_and_show_in_jupyter(tmp_path):
    png = tk.render_image(SIMPLE)
    assert png.save(tmp_path / "a.png").read_bytes() == png.data
    assert png._repr_png_() == png.data and png._repr_jpeg_() is None
    assert tk.render_image(SIMPLE, format="jpeg")._repr_jpeg_() is not None
    assert tk.render_image(SIMPLE, format="webp")._repr_html_().startswith('<img src="data:image/webp;base64,')
    assert "image/png, 400x200" in repr(png)


def test_a_save_that_fails_leaves_the_file_that_was_there(tmp_path, monkeypatch):
    """A full disk halfway through: the file keeps what it held, and no partial file stays."""
    target = tmp_path / "card.png"
    target.write_bytes(b"the earlier render")
    result = tk.render_image(SIMPLE)

    def half_then_full(self: Path, data: bytes) -> int:
        with open(self, "wb") as handle:
            handle.write(data[: len(data) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", half_then_full)
    with pytest.raises(OSError, match="No space left"):
        result.save(target)
    monkeypatch.undo()
    assert target.read_bytes() == b"the earlier render" and [p.name for p in tmp_path.iterdir()] == ["card.png"]
    assert decode(result.save(target).read_bytes()).size == (400, 200)


def test_a_save_through_a_symbolic_link_replaces_the_file_it_points_to_keeping_its_permissions(tmp_path):
    (tmp_path / "site").mkdir()
    pointed = tmp_path / "site" / "card.png"
    pointed.write_bytes(b"the earlier render")
    link = tmp_path / "card.png"
    link.symlink_to(pointed)
    result = tk.render_image(SIMPLE)
    result.save(link)
    assert link.is_symlink() and pointed.read_bytes() == result.data
    pointed.chmod(0o640)  # and a file keeps its permissions
    result.save(link)
    assert stat.S_IMODE(pointed.stat().st_mode) == 0o640
    assert sorted(p.name for p in (tmp_path / "site").iterdir()) == ["card.png"]


def test_a_video_stopped_halfway_leaves_the_file_that_was_there(tmp_path):
    pytest.importorskip("av")
    target = tmp_path / "clip.mp4"
    target.write_bytes(b"the earlier video")
    moving = {**SIMPLE, "video": {"duration": 1, "fps": 10}}

    def stop(done: int, total: int) -> None:
        if done >= 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        tk.render_video(moving, path=target, on_progress=stop)
    assert target.read_bytes() == b"the earlier video" and [p.name for p in tmp_path.iterdir()] == ["clip.mp4"]


def test_a_video_templates_image_is_its_poster_frame():
    """The frame at ``poster`` seconds, as the video shows it: a layer not yet on screen
    is left out, a fade is halfway."""
    data = template(
        layer("shape", "early", x=0, y=0, width=100, height=100, fill="#ff0000"),
        layer("shape", "late", x=100, y=0, width=100, height=100, fill="#00ff00", start=3),
        layer("shape", "fading", x=200, y=0, width=100, height=100, fill="#ffffff",
              animations=[{"preset": "fade-in", "duration": 4, "easing": "linear"}]),
        video={"duration": 4, "fps": 30, "poster": 2}, background="#000000",
    )  # fmt: skip
    assert tk.prepare(data).template.video.poster == 2
    image = decode(tk.render_image(data).data).convert("RGB")
    assert image.size == (400, 200)
    assert image.getpixel((50, 50)) == (255, 0, 0)
    assert image.getpixel((150, 50)) == (0, 0, 0)
    assert image.getpixel((250, 50)) == pytest.approx((128, 128, 128), abs=2)


def test_a_moment_without_a_background_is_over_black_as_the_frame():
    data = template(layer("shape", "box", x=0, y=0, width=100, height=100, fill="#ff0000"), video={"duration": 2})
    data.pop("background", None)
    image = decode(tk.render_image(data, moment=1).data)
    assert image.mode == "RGB" and image.getpixel((150, 50)) == (0, 0, 0) and image.getpixel((50, 50)) == (255, 0, 0)
    assert decode(tk.render_image(data).data).getpixel((150, 50))[3] == 0  # the design at rest keeps its transparency


@pytest.mark.parametrize(
    "name",
    [
        "social-card",
        "product-card",
        "event-ticket",
        "quote-card",
        "invoice",
        "certificate",
        pytest.param("dashboard", marks=needs_chrome),
    ],
)
def test_examples_render_without_warnings(name):
    result = tk.render_image(EXAMPLES / f"{name}.json")
    assert result.warnings == ()
    image = decode(result.data)
    assert image.size == (result.width, result.height)
    assert len(image.convert("RGB").getcolors(1 << 24)) > 500  # a real design, not a blank canvas


def test_quote_card_draws_arabic_hebrew_and_emoji():
    prepared = tk.prepare(EXAMPLES / "quote-card.json")
    runs = {item.text.strip(): item for group in prepared.scene.items for item in group.items if hasattr(item, "rtl")}
    assert runs["البساطة هي روح الكفاءة"].rtl and runs["הפשטות היא נשמת היעילות"].rtl
    image = decode(tk.render_image(EXAMPLES / "quote-card.json").data).convert("RGB")
    arabic = runs["البساطة هي روح الكفاءة"]
    region = image.crop((int(arabic.x), int(arabic.y - 40), int(arabic.x + arabic.width), int(arabic.y + 15)))
    assert sum(1 for p in region.get_flattened_data() if max(p) < 160) > 500  # dark glyph ink
    emoji = [item for item in runs.values() if item.font.path.endswith("NotoColorEmoji-Regular.ttf")]
    assert {e.text for e in emoji} == {"✨", "🚀", "🌿"}
    rocket = next(e for e in emoji if e.text == "🚀")
    region = image.crop((int(rocket.x), int(rocket.y - rocket.size), int(rocket.x + rocket.width), int(rocket.y)))
    assert len(region.getcolors(1 << 16) or ()) > 100  # drawn in colour, not as a box


def test_layer_rotation_and_opacity_apply_to_the_whole_layer():
    bar = layer("shape", "bar", x=100, y=90, width=200, height=20, fill="#000000")
    straight = decode(tk.render_image(template(bar, background="#ffffff")).data).convert("RGB")
    turned = decode(tk.render_image(template({**bar, "rotation": 90}, background="#ffffff")).data).convert("RGB")
    faded = decode(tk.render_image(template({**bar, "opacity": 0.25}, background="#ffffff")).data).convert("RGB")
    assert straight.getpixel((120, 100)) == (0, 0, 0) and straight.getpixel((200, 30)) == (255, 255, 255)
    assert turned.getpixel((120, 100)) == (255, 255, 255) and turned.getpixel((200, 30)) == (0, 0, 0)
    assert faded.getpixel((120, 100))[0] == pytest.approx(191, abs=2)


def test_background_image_fills_the_canvas(tmp_path):
    from PIL import Image

    Image.new("RGB", (40, 20), (200, 30, 30)).save(tmp_path / "bg.png")
    data = template(background={"src": "bg.png", "fit": "cover"}, width=300, height=300)
    image = decode(tk.render_image(tk.load_template(data, base_dir=tmp_path)).data).convert("RGB")
    assert image.getpixel((5, 5)) == image.getpixel((295, 295)) == (200, 30, 30)


def test_a_gradient_background_fills_the_canvas_in_png_and_pdf():
    import io

    pdfium = pytest.importorskip("pypdfium2")
    data = template(background={"from": "#ff0000", "to": "#0000ff", "angle": 90}, width=300, height=200)
    png = decode(tk.render_image(data).data).convert("RGB")
    page = pdfium.PdfDocument(io.BytesIO(tk.render_pdf(data).data))[0].render(scale=4 / 3).to_pil().convert("RGB")
    for image in (png, page.resize(png.size)):
        left, middle, right = (image.getpixel((x, 100)) for x in (2, 150, 297))
        assert left[0] > 240 and left[2] < 15 and right[2] > 240 and right[0] < 15, (left, right)
        assert abs(middle[0] - 128) < 12 and abs(middle[2] - 128) < 12, middle  # halfway, in sRGB as CSS mixes


def test_a_background_that_is_neither_colour_gradient_nor_image_names_what_it_may_be():
    with pytest.raises(tk.TemplateError) as error:
        tk.load_template(template(background={"colour": "red"}), strict=True)
    assert 'background: must be a colour, a gradient {"from": …, "to": …} or an image {"src": …}' in str(error.value)


def test_unchanged_layers_are_laid_out_once_and_keep_their_warnings(monkeypatch, tmp_path):
    from PIL import Image

    from templatekit.layout import compose, text

    Image.new("RGB", (10, 10), (0, 128, 0)).save(tmp_path / "dot.png")
    data = template(
        layer("text", "title", text="Hello"),
        layer("text", "note", y=100, text="x", font="Missing Font"),
        layer("image", "dot", x=300, src="dot.png"),
    )
    loaded = tk.load_template(data, base_dir=tmp_path)
    calls = []
    original = text.layout

    def counting(layer, ctx):
        calls.append(layer.text)
        return original(layer, ctx)

    monkeypatch.setattr(text, "layout", counting)
    compose._built_in_layout.cache_clear()
    compose._DONE.clear()  # what earlier renders in this process saw (it keeps a layout once asked twice)
    try:
        first = tk.prepare(loaded, {"title": "One"})
        second = tk.prepare(loaded, {"title": "Two"})
        third = tk.prepare(loaded, {"title": "Three"})
    finally:
        compose._built_in_layout.cache_clear()
    assert calls == ["One", "x", "Two", "Three"]  # "note" held from its first layout, reused after
    assert third.warnings == first.warnings == ("layer 'note': font 'Missing Font' is not available; using Inter",)
    assert third.scene.items[1] is second.scene.items[1]
    assert third.scene.items[2] is not second.scene.items[2]  # images are read again: the file may change
    Image.new("RGB", (10, 10), (200, 0, 0)).save(tmp_path / "dot.png")
    repainted = decode(tk.render_image(loaded).data).convert("RGB")
    assert repainted.getpixel((305, 5)) == (200, 0, 0)


def test_what_is_painted_over_an_opaque_background_stays_opaque():
    """The PNG encoder drops the alpha channel of such a scene's image without looking."""
    from templatekit.paint.canvas import is_opaque, paint

    examples = Path(__file__).resolve().parents[2] / "examples" / "templates"
    checked = 0
    for path in sorted(examples.glob("*.json")):
        scene = tk.prepare(path).scene
        if is_opaque(scene):
            assert paint(scene, 1.0).getchannel("A").getextrema()[0] == 255, path.name
            checked += 1
    assert checked >= 6
