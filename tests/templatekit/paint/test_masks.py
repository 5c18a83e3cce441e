"""Masks: a layer shown only inside a shape in its own box, or where another layer draws
(that layer then drawn only as the mask), by alpha or luminance, inverted; in PNG, in
PDF (a soft mask, vector) and in video frames."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

import templatekit as tk
from templatekit.errors import TemplateError
from tests.conftest import decode, layer, template
from tests.pdf_readers import pdf_objects
from tests.templatekit.paint.pdf.test_painter import assert_looks_alike, pdf_and_png, rasterise

GALLERY = Path(__file__).parents[3] / "docs" / "gallery" / "masks.json"
WHITE, RED = (255, 255, 255), (255, 0, 0)


def red_box(**fields: object) -> dict[str, object]:
    return layer("shape", "box", x=40, y=40, width=120, height=120, fill="#ff0000", **fields)


def pixels(*layers: dict[str, object], **fields: object) -> list[list[tuple[int, int, int]]]:
    image = decode(tk.render_image(template(*layers, width=200, height=200, background="#ffffff", **fields)).data)
    rgb = image.convert("RGB")
    return [[rgb.getpixel((x, y)) for x in range(200)] for y in range(200)]


def test_a_shape_mask_shows_the_layer_inside_the_shape_only():
    shown = pixels(red_box(mask={"shape": "ellipse"}))
    assert shown[100][100] == RED  # the centre
    assert shown[45][45] == WHITE  # a corner of the box, outside the ellipse
    assert shown[100][42] == RED  # the ellipse touches the box's sides
    star = pixels(red_box(mask={"shape": "polygon", "points": [[0.5, 0], [1, 1], [0, 1]]}))
    assert star[150][100] == RED and star[60][60] == WHITE and star[60][100] == RED


def test_a_layer_mask_shows_the_layer_where_the_other_draws_and_hides_the_mask_itself():
    hole = layer("shape", "window", x=20, y=90, width=60, height=20, fill="#00ff00")
    shown = pixels(red_box(mask={"layer": "window"}), hole)
    assert shown[100][50] == RED  # inside both: the box shows, in its own colour
    assert shown[100][30] == WHITE  # the window alone: it is not drawn on its own
    assert shown[60][100] == WHITE  # the box alone: masked away
    hidden = pixels(red_box(mask={"layer": "window"}), {**hole, "visible": False})
    assert hidden[60][100] == RED  # a hidden mask masks nothing


def test_a_luminance_mask_follows_the_mask_brightness_and_invert_flips_it():
    fade = layer(
        "shape", "fade", x=40, y=40, width=120, height=120, fill={"from": "#ffffff", "to": "#000000", "angle": 90}
    )
    ramp = pixels(red_box(mask={"layer": "fade", "mode": "luminance"}), fade)
    greens = [ramp[100][x][1] for x in range(45, 160, 10)]  # white left: red; black right: white
    assert greens == sorted(greens) and greens[0] < 30 and greens[-1] > 225
    alpha = pixels(red_box(mask={"layer": "fade"}), fade)
    assert alpha[100][150] == RED  # by alpha, the opaque gradient shows everything
    inverted = pixels(red_box(mask={"shape": "ellipse", "invert": True}))
    assert inverted[100][100] == WHITE and inverted[45][45] == RED


def test_a_layer_mask_stays_on_the_canvas_while_the_masked_layer_turns():
    band = layer("shape", "band", x=0, y=40, width=200, height=20, fill="#000000")
    turned = pixels(red_box(rotation=45, mask={"layer": "band"}), band)
    assert turned[50][100] == RED  # in the band and in the turned box (its top corner reaches y 15)
    assert turned[50][50] == WHITE  # in the band, where the unturned box's corner would be
    assert turned[100][100] == WHITE  # in the turned box, below the band
    shaped = pixels(red_box(rotation=180, mask={"shape": "polygon", "points": [[0.5, 0], [1, 1], [0, 1]]}))
    assert shaped[50][60] == RED and shaped[150][60] == WHITE  # a shape mask turns with the layer: apex down


def test_a_masked_layer_casts_the_shadow_of_what_shows():
    shadowed = pixels(red_box(mask={"shape": "ellipse"}, shadows=[{"x": 0, "y": 10, "blur": 0, "color": "#0000ff"}]))
    assert shadowed[165][100] == (0, 0, 255)  # under the ellipse's bottom
    assert shadowed[165][45] == WHITE  # under the box's corner: the corner is masked, it casts nothing


def test_masks_chain_and_bad_masks_are_refused_naming_the_field():
    outer = layer("shape", "outer", x=0, y=90, width=200, height=20, fill="#000", mask={"shape": "rect"})
    inner = layer("shape", "inner", x=90, y=0, width=20, height=200, fill="#000", mask={"layer": "outer"})
    shown = pixels(red_box(mask={"layer": "inner"}), inner, outer)
    assert shown[100][100] == RED and shown[100][60] == WHITE and shown[60][100] == WHITE
    cases = {
        "no layer is named 'nowhere'": [red_box(mask={"layer": "nowhere"})],
        "cannot be its own mask": [red_box(mask={"layer": "box"})],
        "masks go round in a circle": [red_box(mask={"layer": "a"}), {**outer, "name": "a", "mask": {"layer": "box"}}],
        "a mask is another layer": [red_box(mask={"mode": "luminance"})],
        "a polygon needs at least 3 points": [red_box(mask={"shape": "polygon", "points": [[0, 0]]})],
    }
    for message, layers in cases.items():
        with pytest.raises(TemplateError, match=message) as caught:
            tk.render_image(template(*layers))
        assert "layers[0].mask" in str(caught.value)


def frame_of(*layers: dict[str, object]) -> dict[str, object]:
    return layer("frame", "frame", x=0, y=0, width=200, height=200, layers=list(layers))


def test_layers_inside_a_frame_are_masked_by_a_shape_or_by_a_layer_beside_them():
    shaped = pixels(frame_of(red_box(mask={"shape": "ellipse"})))
    assert shaped[100][100] == RED and shaped[45][45] == WHITE
    window = layer("shape", "window", x=20, y=90, width=60, height=20, fill="#00ff00")
    through = pixels(frame_of(red_box(mask={"layer": "window"}), window))
    assert through[100][50] == RED and through[100][30] == WHITE and through[60][100] == WHITE
    page, png = pdf_and_png(template(frame_of(red_box(mask={"layer": "window"}), window), width=200, height=200))
    assert_looks_alike(page, png)


def test_masks_inside_frames_are_checked_naming_their_path():
    window = layer("shape", "window", x=20, y=90, width=60, height=20, fill="#00ff00")
    cases = {
        "layers[0].layers[0].mask.layer: masks go round in a circle (box -> window -> box)": [
            frame_of(red_box(mask={"layer": "window"}), {**window, "mask": {"layer": "box"}})
        ],
        "layers[0].mask.layer: 'box' is not beside this layer: a mask is a layer of the same frame": [
            {**window, "mask": {"layer": "box"}},
            {**frame_of(red_box()), "y": 0},
        ],
        "layers[1].layers[0].mask.layer: 'window' is not beside this layer": [
            window,
            frame_of(red_box(mask={"layer": "window"})),
        ],
    }
    for message, layers in cases.items():
        with pytest.raises(TemplateError, match=re.escape(message)):
            tk.render_image(template(*layers))


def test_masks_a_modification_sets_are_checked_as_a_templates_are():
    other = layer("shape", "other", x=0, y=0, width=50, height=50, fill="#000")
    source = template(red_box(), other)
    cases = {
        "layers[0].mask.layer: no layer is named 'nowhere'": [{"name": "box", "mask": {"layer": "nowhere"}}],
        "layers[0].mask.layer: a layer cannot be its own mask": [{"name": "box", "mask": {"layer": "box"}}],
        "layers[1].mask.layer: masks go round in a circle (other -> box -> other)": [
            {"name": "box", "mask": {"layer": "other"}},
            {"name": "other", "mask": {"layer": "box"}},
        ],
    }
    for message, modifications in cases.items():
        with pytest.raises(tk.ModificationError, match=re.escape(message)):
            tk.render_image(source, modifications)
    masked = decode(tk.render_image(source, [{"name": "box", "mask": {"layer": "other"}}]).data).convert("RGB")
    assert masked.getpixel((45, 45)) == (255, 0, 0) and masked.getpixel((100, 100)) != (255, 0, 0)  # a good one draws


def test_pdf_masks_with_a_soft_mask_and_keeps_masked_text_searchable():
    pypdf = pytest.importorskip("pypdf")
    letters = layer("text", "letters", x=10, y=40, width=380, height=120, text="MASKED", size=90, weight=900)
    photo = layer("shape", "photo", x=0, y=0, width=400, height=200, fill={"from": "#ff0000", "to": "#0000ff"})
    words = layer("text", "words", x=10, y=160, width=380, height=30, text="Seen through a circle", size=20)
    source = template({**photo, "mask": {"layer": "letters"}}, letters, {**words, "mask": {"shape": "ellipse"}})
    pdf = tk.render_pdf(source).data
    objects = pdf_objects(pdf)
    assert b"/SMask" in objects and b"/S /Alpha" in objects
    text = " ".join(pypdf.PdfReader(io.BytesIO(pdf)).pages[0].extract_text().split())
    assert "Seen through a circle" in text  # masked text is still text
    assert "MASKED" not in text  # the mask layer is drawn only as the mask
    assert not list(pypdf.PdfReader(io.BytesIO(pdf)).pages[0].images)  # vector: no picture of it
    page, png = pdf_and_png(source)
    assert_looks_alike(page, png)


def test_the_masks_gallery_sheet_looks_the_same_in_pdf_and_png():
    page, png = pdf_and_png(GALLERY)
    assert_looks_alike(page, png)
    inverted = tk.render_pdf(template(red_box(mask={"shape": "ellipse", "invert": True}), width=200, height=200))
    picture = rasterise(inverted.data)[0]
    assert picture.getpixel((100, 100)) == WHITE and picture.getpixel((45, 45)) == RED  # the soft mask inverted


def test_a_video_frame_masks_and_the_mask_layer_is_not_an_actor(tmp_path):
    av = pytest.importorskip("av")
    window = layer("shape", "window", x=20, y=90, width=60, height=20, fill="#00ff00")
    moving = red_box(mask={"layer": "window"}, animations=[{"preset": "fade-in", "duration": 0.2}])
    source = template(moving, window, width=200, height=200, background="#ffffff", video={"duration": 0.5, "fps": 10})
    out = tmp_path / "masked.mp4"
    out.write_bytes(tk.render_video(source).data)
    with av.open(str(out)) as container:
        last = list(container.decode(video=0))[-1].to_image()
    assert last.getpixel((50, 100))[0] > 200 and last.getpixel((50, 100))[1] < 60  # the box, through the window
    assert min(last.getpixel((30, 100))) > 200  # the window is not drawn on its own
    assert min(last.getpixel((100, 60))) > 200  # the box outside the window is masked away
