"""The memory budget of a render: what would take too much memory is refused before it
is taken, naming the layer and the figure; layers far larger than the canvas cost what
the canvas does."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from typing import Any

import pytest
from PIL import Image

import templatekit as tk
from templatekit import budget
from tests.conftest import data_uri
from tests.conftest import one_bit_png as png


def template(*layers: dict, width: int = 400, height: int = 300) -> dict:
    return {"name": "budget", "width": width, "height": height, "background": "#ffffff", "layers": list(layers)}


def image_layer(name: str, src: str, size: int = 300) -> dict:
    return {"type": "image", "name": name, "x": 0, "y": 0, "width": size, "height": size, "src": src}


class DecodeCounter(tk.AssetLoader):
    """Counts the images it decodes."""

    decoded = 0

    def _decode_raster(self, data: bytes, digest: str) -> Any:
        self.decoded += 1
        return super()._decode_raster(data, digest)


def test_images_over_the_budget_are_refused_from_their_headers_before_any_is_decoded():
    photos = [data_uri(png((3000 + n, 3000))) for n in range(3)]  # 36 MB each once decoded
    layers = [image_layer(f"photo{n}", photo) for n, photo in enumerate(photos)]
    loader = DecodeCounter()
    started = time.perf_counter()
    with pytest.raises(tk.LimitError) as caught:
        tk.render_image(template(*layers), memory_limit=80_000_000, assets=loader)
    assert time.perf_counter() - started < 1
    message = str(caught.value)
    assert message.startswith(
        "layer 'photo2': decoding the images up to this layer (this one 3,002x3,000 px) needs 108.0 MB, more than the "
    )
    assert "memory budget (80.0 MB; TEMPLATEKIT_RENDER_MEMORY sets it)" in message
    assert caught.value.layer == "photo2"
    assert loader.decoded == 0
    assert tk.render_image(template(*layers[:2]), memory_limit=80_000_000).width == 400


def test_an_image_decoded_over_the_budget_is_refused_naming_its_layer():
    background = {"src": data_uri(png((3000, 3000))), "fit": "cover"}
    with pytest.raises(tk.LimitError) as caught:
        tk.render_image({**template(), "background": background}, memory_limit=30_000_000)
    assert str(caught.value).startswith("layer 'background': the image decoded (3,000x3,000 px) needs 36.0 MB")


def test_the_default_budget_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv(budget.ENV, "50000000")
    with pytest.raises(tk.LimitError, match=r"layer 'photo0'.*budget \(50.0 MB"):
        tk.render_image(template(image_layer("photo0", data_uri(png((4000, 4000))))))
    monkeypatch.setenv(budget.ENV, "lots")
    with pytest.raises(tk.LimitError, match="TEMPLATEKIT_RENDER_MEMORY='lots' is not a number of bytes"):
        tk.render_image(template())


def test_the_canvas_is_in_the_budget():
    with pytest.raises(tk.LimitError, match=r"the canvas \(40,000x30,000 px\) needs 4.8 GB"):
        tk.render_image(template(), scale=100)


def svg_with(image: bytes) -> str:
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100">'
        f'<image width="100" height="100" xlink:href="{data_uri(image)}"/></svg>'
    )
    return data_uri(svg.encode(), "image/svg+xml")


def test_an_image_inside_an_svg_is_held_to_the_pixel_limit_and_the_budget():
    with pytest.raises(
        tk.AssetError, match=r"layer 'logo': .*the SVG embeds a 9000x9000 px image, more than the 50 MP"
    ):
        tk.render_image(template(image_layer("logo", svg_with(png((9000, 9000))))))
    with pytest.raises(tk.LimitError, match=r"layer 'logo': an image inside the SVG \(5,000x5,000 px\) needs 100.0 MB"):
        tk.render_image(template(image_layer("logo", svg_with(png((5000, 5000))))), memory_limit=60_000_000)
    with pytest.raises(tk.AssetError, match="the SVG embeds data that is not a PNG, JPEG, WebP or GIF image"):
        tk.render_image(template(image_layer("logo", svg_with(b"not an image"))))
    small = tk.render_image(template(image_layer("logo", svg_with(png((50, 50))))))
    assert Image.open(io.BytesIO(small.data)).getpixel((150, 150))[:3] == (255, 255, 255)


@pytest.mark.parametrize(
    ("svg", "reason"),
    [
        ("<g>" * 50_000 + "</g>" * 50_000, "the SVG nests elements more than 256 deep"),
        ("<rect/>" * 200_001, "the SVG has more than 200,000 elements"),
    ],
)
def test_svgs_too_deep_or_too_large_are_refused(svg, reason):
    document = f'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">{svg}</svg>'
    with pytest.raises(tk.AssetError, match=reason):
        tk.render_image(template(image_layer("art", data_uri(document.encode(), "image/svg+xml"))))


def test_a_video_frame_is_painted_within_the_budget():
    pytest.importorskip("av")
    moving = {
        "type": "shape",
        "name": "box",
        "x": 0,
        "y": 0,
        "width": 1000,
        "height": 1000,
        "fill": "#ff0000",
        "animations": [{"property": "x", "keyframes": [{"time": 0, "value": 0}, {"time": 0.2, "value": 200}]}],
    }
    video = {**template(moving), "video": {"duration": 0.2, "fps": 10}}
    from templatekit.video.movie import AHEAD, PAINTERS

    frames = (AHEAD + PAINTERS + 1) * 480_000  # the frames painted ahead of the encoder, 480 kB each
    with pytest.raises(tk.LimitError, match="layer 'box'"):
        tk.render_video(video, memory_limit=frames + 3_000_000)  # canvases fit; the 4 MB moving layer does not
    assert tk.render_video(video).width == 400


OVERSIZED = """
import json, resource, sys
import templatekit as tk
from PIL import Image
import io
template = json.loads(sys.argv[1])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = tk.render_image(template, scale=2)
image = Image.open(io.BytesIO(result.data)).convert("RGB")
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"grown_mb": (peak - before) / 1024, "centre": image.getpixel((400, 300)), "size": image.size}))
"""


@pytest.mark.parametrize(
    "layer",
    [
        {"type": "shape", "name": "s", "x": -9800, "y": -9850, "width": 20000, "height": 20000, "rotation": 45},
        {"type": "star", "name": "s", "x": -14800, "y": -14850, "width": 30000, "height": 30000, "star": 1, "max": 1},
        {"type": "shape", "name": "s", "x": -9800, "y": -9850, "width": 20000, "height": 20000, "opacity": 0.5},
        {"type": "shape", "name": "s", "x": -9800, "y": -9850, "width": 20000, "height": 20000, "radius": 3000},
    ],
)
def test_a_layer_far_larger_than_the_canvas_costs_what_the_canvas_does(layer):
    done = subprocess.run(
        [sys.executable, "-c", OVERSIZED, json.dumps(template(layer))], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["size"] == [800, 600]
    assert report["grown_mb"] < 150  # a 20,000 px layer at scale 2 drawn whole would take 6.4 GB
    assert report["centre"] != [255, 255, 255]  # and it is drawn: the canvas's centre is inside it


TITLE = {"type": "text", "name": "title", "x": 0, "y": 0, "width": 300, "height": 100, "text": "Hi"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"width": 1e9},
            "modifications[0] (layer 'title'): width: must be at most 100000 (got 1000000000.0)",
        ),
        ({"x": -2e5}, "must be between -100000 and 100000 (got -200000.0)"),
        ({"size": 1e6}, "size: must be between 0.1 and 10000 (got 1000000.0)"),
        (
            {"size": 10**5000},
            "size (layer 'title'): must be a number of at most 1e308 (got an integer of about 5,000 digits)",
        ),
    ],
)
def test_sizes_beyond_any_design_are_refused_naming_the_field(change, message):
    with pytest.raises(tk.ModificationError) as caught:
        tk.render_image(template(TITLE), [{"name": "title", **change}])
    assert message in str(caught.value)


def test_rows_beyond_the_limit_are_refused_at_once():
    rows = [{"label": str(i), "value": i} for i in range(10_001)]
    chart = {"type": "chart", "name": "c", "x": 0, "y": 0, "width": 300, "height": 300, "rows": rows}
    started = time.perf_counter()
    with pytest.raises(tk.TemplateError, match=r"layers\[0\].rows: must have at most 10,000 items \(got 10,001\)"):
        tk.render_image(template(chart))
    assert time.perf_counter() - started < 5
    series = [{"name": f"s{n}", "data": rows[:4000]} for n in range(3)]
    with pytest.raises(tk.TemplateError, match="must have at most 10,000 data points in all \\(got 12,000\\)"):
        tk.render_image(template({**chart, "rows": series}))


def test_a_template_with_many_problems_lists_the_first_fifty():
    layers = [{**TITLE, "name": f"title{n}", "size": -1} for n in range(80)]
    with pytest.raises(tk.TemplateError) as caught:
        tk.render_image(template(*layers))
    assert len(caught.value.problems) == 51
    assert caught.value.problems[-1] == "… and 30 more problems like these"


def test_reading_a_list_stops_at_its_eleventh_bad_item():
    table = {"type": "table", "name": "t", "x": 0, "y": 0, "width": 300, "height": 300, "rows": [["a"]] * 5000}
    with pytest.raises(tk.TemplateError) as caught:
        tk.render_image(template(table))
    problems = caught.value.problems
    expected = "a row must be an object of column keys and cells (got ['a'])"
    assert problems[:2] == [f"layers[0].rows[{n}]: {expected}" for n in range(2)]
    assert problems[10:] == ["layers[0].rows: reading stopped after 10 items that could not be read"]


def cbdt_font(ppem: int, glyph_px: int) -> bytes:
    """A colour bitmap (CBDT) font whose one glyph, 'A', is a one-pixel red PNG strike
    in a box of ``glyph_px`` pixels at ``ppem`` pixels an em: (1, 255) is a glyph 255 em
    wide, in 788 bytes."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    strike = io.BytesIO()
    Image.new("RGBA", (1, 1), (255, 0, 0, 255)).save(strike, "PNG")
    builder = FontBuilder(1000, isTTF=True)
    builder.setupGlyphOrder([".notdef", "A"])
    builder.setupCharacterMap({ord("A"): "A"})
    builder.setupGlyf({".notdef": TTGlyphPen(None).glyph(), "A": TTGlyphPen(None).glyph()})
    builder.setupHorizontalMetrics({".notdef": (500, 0), "A": (1000, 0)})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({"familyName": "Bitmap", "styleName": "Regular"})
    builder.setupOS2()
    builder.setupPost()
    metrics = "".join(f'<{name} value="{value}"/>' for name, value in [("ascender", 1), ("descender", 0)])
    metrics += f'<widthMax value="{glyph_px}"/>' + "".join(
        f'<{name} value="0"/>'
        for name in ("caretSlopeNumerator", "caretSlopeDenominator", "caretOffset", "minOriginSB", "minAdvanceSB")
    )
    metrics += "".join(f'<{name} value="0"/>' for name in ("maxBeforeBL", "minAfterBL", "pad1", "pad2"))
    builder.font.importXML(
        io.StringIO(
            f"""<?xml version="1.0" encoding="UTF-8"?><ttFont>
<CBDT><header version="3.0"/><strikedata index="0"><cbdt_bitmap_format_17 name="A"><SmallGlyphMetrics>
<height value="{glyph_px}"/><width value="{glyph_px}"/><BearingX value="0"/><BearingY value="{min(glyph_px, 127)}"/>
<Advance value="{glyph_px}"/></SmallGlyphMetrics><rawimagedata>{strike.getvalue().hex()}</rawimagedata>
</cbdt_bitmap_format_17></strikedata></CBDT>
<CBLC><header version="3.0"/><strike index="0"><bitmapSizeTable>
<sbitLineMetrics direction="hori">{metrics}</sbitLineMetrics>
<sbitLineMetrics direction="vert">{metrics}</sbitLineMetrics>
<colorRef value="0"/><startGlyphIndex value="1"/><endGlyphIndex value="1"/><ppemX value="{ppem}"/>
<ppemY value="{ppem}"/><bitDepth value="32"/><flags value="1"/></bitmapSizeTable>
<eblc_index_sub_table_1 imageFormat="17" firstGlyphIndex="1" lastGlyphIndex="1"><glyphLoc name="A"/>
</eblc_index_sub_table_1></strike></CBLC></ttFont>"""
        )
    )
    out = io.BytesIO()
    builder.font.save(out)
    return out.getvalue()


def bitmap_text(font: bytes, size: float) -> dict:
    text = {**TITLE, "name": "bomb", "text": "A", "font": "Bitmap", "size": size}
    return {**template(text), "fonts": [{"family": "Bitmap", "src": data_uri(font, "font/ttf")}]}


COLOR_GLYPHS = """
import json, resource, sys
import templatekit as tk
template, output = json.loads(sys.argv[1]), sys.argv[2]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    {"pdf": tk.render_pdf, "mp4": tk.render_video}.get(output, tk.render_image)(template)
    error = None
except tk.LimitError as exc:
    error = str(exc)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"grown_mb": (peak - before) / 1024, "error": error}))
"""


@pytest.mark.parametrize(
    ("size", "output", "drawn"),
    [
        (60, "png", "15,300x15,300 px"),
        (100, "png", "25,500x25,500 px"),
        (60, "pdf", "61,200x61,200 px"),
        (60, "mp4", "15,300x15,300 px"),
    ],
)
def test_colour_bitmap_glyphs_are_asked_of_the_budget_before_they_are_drawn(size, output, drawn):
    font = cbdt_font(1, 255)
    assert len(font) < 1000
    if output == "mp4":
        pytest.importorskip("av")
    video = {"video": {"duration": 0.2, "fps": 10}} if output == "mp4" else {}
    done = subprocess.run(
        [sys.executable, "-c", COLOR_GLYPHS, json.dumps({**bitmap_text(font, size), **video}), output],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["error"].startswith(f"layer 'bomb': drawing the text's colour glyphs ({drawn}) needs"), report
    assert report["grown_mb"] < 100  # drawn, the PNG's took 2.7 GB at size 60 and 5 GB at 100; the PDF's 23 GB


def test_colour_bitmap_glyphs_of_a_sane_font_are_drawn():
    image = Image.open(io.BytesIO(tk.render_image(bitmap_text(cbdt_font(100, 100), 40)).data)).convert("RGB")
    assert image.getpixel((20, 20)) == (255, 0, 0)  # the glyph: 40 px of its red strike
    assert image.getpixel((60, 20)) != (255, 0, 0)


def test_glyphs_are_in_the_budget():
    huge = {**TITLE, "width": 60_000, "height": 12_000, "size": 10_000, "autoFit": "none", "text": "Budget"}
    with pytest.raises(tk.LimitError, match=r"layer 'title': the text's glyphs \(\d[\d,]*x\d[\d,]* px\) needs"):
        tk.render_image(template(huge), memory_limit=500_000_000)


class FetchCounter(tk.AssetLoader):
    fetched = 0

    def fetch(self, src: str, base_dir: Any = None) -> bytes:
        self.fetched += 1
        return super().fetch(src, base_dir)


def test_image_sizes_are_read_once_and_again_when_the_file_changes(tmp_path):
    path = tmp_path / "photo.png"
    path.write_bytes(png((300, 200)))
    loader = FetchCounter()
    assert loader.raster_size(str(path)) == (300, 200)
    assert loader.raster_size(str(path)) == (300, 200)
    assert loader.fetched == 1  # the budget's check before decoding reads no file twice
    path.write_bytes(png((640, 480)))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
    assert loader.raster_size(str(path)) == (640, 480)
    uri = data_uri(png((30, 20)))
    assert loader.raster_size(uri) == loader.raster_size(uri) == (30, 20)
    assert loader.fetched == 3
