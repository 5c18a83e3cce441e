"""Frames and auto layout: the boxes a frame gives its layers (flexbox arithmetic, text
that hugs measured by the text engine), checked on the arranged template and on the
pixels of the PNG and the PDF."""

from __future__ import annotations

import io
import subprocess
import sys
from typing import Any

import attrs
import numpy as np
import pytest

import templatekit as tk
from templatekit.layout.arrange import LAYOUT_UNIT, _check_bounded
from templatekit.layout.table import table_rows_layout
from templatekit.layout.text import measure, min_content_width
from templatekit.model.layers import walk_layers
from templatekit.options import RenderOptions
from templatekit.pipeline import resolve
from templatekit.service import converter
from tests.conftest import decode, template

TITLE_SIZE, LINE_HEIGHT = 40, 1.2


def text(name: str, value: str, **fields: Any) -> dict[str, Any]:
    return {"type": "text", "name": name, "width": "fill", "height": "hug", "text": value, **fields}


def frame(name: str, *layers: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {
        "type": "frame",
        "name": name,
        "x": 20,
        "y": 20,
        "width": 500,
        "height": "hug",
        "layers": list(layers),
        **fields,
    }


def card(title: str) -> dict[str, Any]:
    return template(
        frame(
            "card",
            text("title", title, size=TITLE_SIZE, weight=700),
            text("subtitle", "Follows the title", size=20, color="#dc2626"),
            layout="column",
            gap=12,
            padding=24,
            fill="#ffffff",
        ),
        width=560,
        height=400,
        background="#0f172a",
    )


def boxes(spec: dict[str, Any], modifications: Any = None) -> dict[str, tuple[float, float, float, float]]:
    """Each layer's arranged box, by name: x, y, width, height on the canvas."""
    arranged, _, _ = resolve(spec, modifications, RenderOptions())
    return {layer.name: (layer.x, layer.y, layer.width, layer.height) for layer in walk_layers(arranged.layers)}


def ink_top(image: Any, colour: tuple[int, int, int]) -> int:
    """The first row with a pixel near ``colour``."""
    pixels = np.asarray(image.convert("RGB")).astype(int)
    rows = np.nonzero((np.abs(pixels - colour).sum(axis=2) < 60).any(axis=1))[0]
    return int(rows[0])


def test_the_subtitle_follows_a_title_of_one_to_three_lines():
    one, three = "Short", "A much longer title that takes three lines here"
    line = TITLE_SIZE * LINE_HEIGHT
    short, long = boxes(card(one)), boxes(card(three))
    assert short["title"][3] == pytest.approx(line) and long["title"][3] == pytest.approx(3 * line)
    assert long["subtitle"][1] - short["subtitle"][1] == pytest.approx(2 * line)
    assert long["card"][3] - short["card"][3] == pytest.approx(2 * line)  # the card grows with it
    assert short["subtitle"][1] == pytest.approx(20 + 24 + line + 12)  # frame top, padding, title, gap
    red = (220, 38, 38)
    moved = ink_top(decode(tk.render_image(card(three)).data), red) - ink_top(
        decode(tk.render_image(card(one)).data), red
    )
    assert abs(moved - 2 * line) <= 1


def test_a_title_that_shrinks_to_its_lines_hugs_the_lines_it_draws():
    words = "A title far too long for three lines at forty pixels, so it is set smaller to fit in them all"
    spec = card(words)
    spec["layers"][0]["layers"][0].update(autoFit="shrink", minSize=12, maxLines=3)
    laid = boxes(spec)
    title = laid["title"]
    # three lines, each smaller than at the size given: the subtitle follows the last of them
    assert title[3] < 3 * TITLE_SIZE * LINE_HEIGHT - 4
    assert laid["subtitle"][1] == pytest.approx(title[1] + title[3] + 12)
    rendered = tk.render_image(spec)
    assert not rendered.warnings  # nothing was cut
    subtitle_top = ink_top(decode(rendered.data), (220, 38, 38))
    inside = np.asarray(decode(rendered.data).convert("RGB")).astype(int)[:subtitle_top, 50:500]  # the white card
    title_ink = np.nonzero((inside.sum(axis=2) < 150).any(axis=1))[0]
    # from the title's last line to the subtitle: the gap and a line's leading, no more
    assert 12 <= subtitle_top - title_ink[-1] <= 12 + TITLE_SIZE * 0.5


@pytest.mark.parametrize("auto_fit", ["none", "shrink"])
def test_a_new_title_measured_by_its_frame_is_not_typeset_again_in_its_box(monkeypatch, auto_fit):
    """The frame measures the text (in any height) to size its box; drawing the text in
    that box takes the lines measured, even for a title no render had before (which is
    not kept for later renders)."""
    from templatekit.text import typeset

    title = f"A title no render has had before ({auto_fit}), on three lines or so"
    spec = card(title)
    spec["layers"][0]["layers"][0].update(autoFit=auto_fit, minSize=12, maxLines=3)
    heights: list[float | None] = []  # the height each typesetting of the title was given
    original = typeset._typeset

    def noting(text: Any, style: Any, book: Any, width: float, lines: Any, height: float | None, *rest: Any) -> Any:
        if text == title:
            heights.append(height)
        return original(text, style, book, width, lines, height, *rest)

    monkeypatch.setattr(typeset, "_typeset", noting)
    tk.render_image(spec)
    assert heights and set(heights) == {None}


def test_a_badge_hugs_its_text_and_padding():
    badge = {"type": "text", "name": "badge", "width": "hug", "height": "hug", "text": "SALE -20%", "size": 18}
    badge.update(padding=[6, 10], background="#2563eb", color="#ffffff")
    spec = template({**frame("row", badge, layout="row", width="hug"), "x": 40, "y": 30}, background="#ffffff")
    arranged, ctx, _ = resolve(spec, None, RenderOptions())
    inner = arranged.layers[0].layers[0]
    advance, lines = measure(inner, ctx, None)
    assert boxes(spec)["badge"] == pytest.approx((40, 30, advance, lines), abs=LAYOUT_UNIT)  # in layout units
    assert advance > 20 and lines == pytest.approx(18 * 1.2 + 12)
    pixels = np.asarray(decode(tk.render_image(spec).data).convert("RGB")).astype(int)
    blue = np.nonzero(np.abs(pixels[int(30 + lines / 2)] - (37, 99, 235)).sum(axis=1) < 30)[0]
    assert abs((blue[-1] - blue[0] + 1) - advance) <= 1.5  # the drawn background is that wide


def fixed(name: str, width: float | str = 50, height: float | str = 30, **fields: Any) -> dict[str, Any]:
    return {"type": "shape", "name": name, "width": width, "height": height, "fill": "#888", **fields}


def test_space_between_fill_and_gap_match_flexbox_arithmetic():
    between = frame("between", fixed("a"), fixed("b"), fixed("c"), layout="row", justify="space-between", padding=10)
    found = boxes(template(between))
    assert [found[n][0] for n in "abc"] == pytest.approx([30, 245, 460])  # 20 + 10; the rest shared by two gaps
    shared = frame(
        "shared",
        fixed("fixed", 100),
        fixed("first", "fill"),
        fixed("second", "fill"),
        layout="row",
        gap=10,
        width=400,
    )
    found = boxes(template(shared))
    assert found["first"][2] == found["second"][2] == pytest.approx((400 - 100 - 20) / 2)
    assert found["second"][0] == pytest.approx(20 + 100 + 10 + 140 + 10)


def test_align_across_the_layout_and_fill_across_it_stretch():
    column = frame(
        "column",
        fixed("start"),
        fixed("centre", 80),
        layout="column",
        align="center",
        width=300,
    )
    found = boxes(template(column))
    assert found["start"][0] == pytest.approx(20 + (300 - 50) / 2)
    assert found["centre"][0] == pytest.approx(20 + (300 - 80) / 2)
    stretched = frame("stretched", fixed("wide", "fill"), layout="column", width=300, padding=[0, 15])
    assert boxes(template(stretched))["wide"] == pytest.approx((35, 20, 270, 30))


def test_a_hidden_layer_takes_no_space_and_a_modification_hiding_one_closes_the_gap():
    spec = template(frame("list", fixed("a"), fixed("b"), fixed("c"), layout="column", gap=5))
    assert boxes(spec)["c"][1] == pytest.approx(20 + 30 + 5 + 30 + 5)
    assert boxes(spec, [{"name": "b", "visible": False}])["c"][1] == pytest.approx(20 + 30 + 5)


def test_rows_wrap_and_frames_nest():
    tags = frame("tags", *(fixed(f"t{n}", 120) for n in range(5)), layout="row", wrap=True, gap=10, width=400)
    found = boxes(template(tags, height=300))
    corners = [value for n in range(5) for value in found[f"t{n}"][:2]]
    assert corners == pytest.approx([20, 20, 150, 20, 280, 20, 20, 60, 150, 60])
    assert found["tags"][3] == pytest.approx(70)
    inner = {**frame("inner", fixed("dot", 10, 10, x=5, y=7), width="hug", padding=3), "x": 0, "y": 0}
    outer = frame("outer", fixed("head", 60), inner, layout="row", gap=4, padding=2)
    found = boxes(template(outer))
    assert found["inner"][:2] == pytest.approx((20 + 2 + 60 + 4, 22))
    assert found["inner"][2:] == pytest.approx((5 + 10 + 3, 7 + 10 + 3))  # a none frame hugs its layers' boxes
    assert found["dot"][:2] == pytest.approx((86 + 5, 22 + 7))  # from the inner frame's corner


def test_a_clipping_frame_cuts_its_layers_at_its_rounded_box():
    big = {"type": "shape", "name": "big", "x": -40, "y": -40, "width": 300, "height": 300, "fill": "#16a34a"}
    spec = template(
        frame("window", big, width=100, height=80, clip=True, radius=20), width=200, height=150, background="#ffffff"
    )
    image = np.asarray(decode(tk.render_image(spec).data).convert("RGB"))
    assert tuple(image[60, 70]) == (22, 163, 74)  # inside
    assert tuple(image[60, 130]) == (255, 255, 255) and tuple(image[110, 60]) == (255, 255, 255)  # outside the box
    assert tuple(image[21, 21]) == (255, 255, 255)  # cut by the rounded corner


def test_modifications_reach_layers_in_frames_by_name():
    changed = boxes(card("Short"), {"title": "A much longer title that takes three lines here"})
    assert changed["subtitle"][1] == pytest.approx(
        boxes(card("A much longer title that takes three lines here"))["subtitle"][1]
    )


@pytest.mark.parametrize(
    ("spec", "path", "words"),
    [
        (frame("f", {"type": "qrcode", "name": "q", "width": "hug", "height": 50, "qrcode": "x"}, layout="row"),
         "layers[0].layers[0].width", "a qrcode layer has none"),
        ({"type": "text", "name": "t", "x": 0, "y": 0, "width": "fill", "height": 20, "text": "x"},
         "layers[0].width", "outside a frame"),
        (frame("f", fixed("s", "fill", x=0, y=0)), "layers[0].layers[0].width", 'layout is "none"'),
        ({"type": "text", "name": "t", "x": 0, "y": 0, "width": "hug", "height": 20, "text": "x"},
         "layers[0].width", "outside any: give a number"),
        (frame("f", fixed("same"), frame("g", fixed("same"), layout="row"), layout="column"),
         "layers[0].layers[1].layers[0].name", "used by an earlier layer"),
    ],
)  # fmt: skip
def test_a_size_word_where_it_means_nothing_is_refused_with_its_path(spec, path, words):
    with pytest.raises(tk.TemplateError) as error:
        tk.load_template(template(spec), strict=True)
    assert any(problem.startswith(path) and words in problem for problem in error.value.problems), error.value


def test_the_pdf_places_the_layers_of_frames_as_the_png_does():
    pdfium = pytest.importorskip("pypdfium2")
    spec = card("A title over two lines for the pdf check")
    png = np.asarray(decode(tk.render_image(spec).data).convert("RGB")).astype(int)
    document = pdfium.PdfDocument(io.BytesIO(tk.render_pdf(spec).data))
    page = document[0].render(scale=1.0).to_pil().convert("RGB").resize((png.shape[1], png.shape[0]))
    difference = np.abs(np.asarray(page).astype(int) - png)
    assert difference.mean() < 3.0, difference.mean()  # text anti-aliased by another rasteriser
    red = (220, 38, 38)
    assert abs(ink_top(page, red) - ink_top(decode(tk.render_image(spec).data), red)) <= 1


def test_an_image_hugs_its_pixels_or_their_proportions(tmp_path):
    from PIL import Image

    Image.new("RGB", (120, 80), (200, 0, 0)).save(tmp_path / "photo.png")
    photo = {"type": "image", "name": "both", "width": "hug", "height": "hug", "src": "photo.png"}
    tall = {"type": "image", "name": "wide", "width": "fill", "height": "hug", "src": "photo.png"}
    spec = template(frame("column", photo, tall, layout="column", width=300, align="start"), height=500)
    arranged, _, _ = resolve(tk.load_template(spec, base_dir=tmp_path), None, RenderOptions())
    found = {layer.name: (layer.width, layer.height) for layer in walk_layers(arranged.layers)}
    assert found["both"] == pytest.approx((120, 80))
    assert found["wide"] == pytest.approx((300, 200))  # the frame's width, in the photo's proportions


def test_an_image_that_hugs_keeps_its_size_and_proportions_in_a_row_too_small(tmp_path):
    """Yoga would shrink it, and its fixed side with it through the proportions."""
    from PIL import Image

    Image.new("RGB", (200, 100), (200, 0, 0)).save(tmp_path / "photo.png")
    row = frame(
        "row",
        {"type": "image", "name": "both", "width": "hug", "height": "hug", "src": "photo.png"},
        {"type": "image", "name": "tall", "width": "hug", "height": 80, "src": "photo.png"},
        fixed("block", 200, 30),
        layout="row",
        width=250,
    )
    column = frame(
        "column",
        {"type": "image", "name": "wide", "width": 120, "height": "hug", "src": "photo.png"},
        fixed("under", 30, 80),
        layout="column",
        width="hug",
        height=100,
        y=300,
    )
    arranged, _, _ = resolve(
        tk.load_template(template(row, column, height=600), base_dir=tmp_path), None, RenderOptions()
    )
    found = {layer.name: (layer.x, layer.width, layer.height) for layer in walk_layers(arranged.layers)}
    assert found["both"] == pytest.approx((20, 200, 100))
    assert found["tall"] == pytest.approx((220, 160, 80))  # its fixed height stays, its width follows
    assert found["block"] == pytest.approx((380, 200, 30))  # past the row's end, as in CSS
    assert found["wide"] == pytest.approx((20, 120, 60))


def test_x_and_y_in_a_row_frame_are_not_used_and_a_warning_says_so():
    spec = template(frame("row", fixed("a", x=5, y=9), fixed("b"), layout="row"))
    loaded = tk.load_template(spec)
    assert loaded.load_warnings == ("layers[0].layers[0]: x and y not used: a row frame places its layers itself",)
    assert boxes(spec)["a"][:2] == pytest.approx((20, 20))
    written = converter.unstructure(tk.load_template(template(frame("row", fixed("a"), layout="row"))))
    assert "x" not in written["layers"][0]["layers"][0]  # written back without them: read again, no warning


def test_a_table_hugs_its_adaptive_size_and_the_layer_after_it_follows():
    rows = [
        {"name": "Ada", "city": "London"},
        {"name": "Grace", "city": "New York"},
        {"name": "Alan", "city": "Wilmslow"},
    ]
    table = {"type": "table", "name": "people", "width": "hug", "height": "hug", "rows": rows, "size": 14}
    note = fixed("note", 100, 10)
    spec = template(frame("list", table, note, layout="column", gap=6, width=380), height=300)
    found = boxes(spec)
    arranged, ctx, _ = resolve(spec, None, RenderOptions())
    measured = attrs.evolve(arranged.layers[0].layers[0], width=380, width_mode="adaptive")
    adaptive = table_rows_layout(measured, ctx.fonts)
    assert found["people"][2:] == pytest.approx((adaptive.width, adaptive.height))
    assert found["people"][2] < 380 and found["note"][1] == pytest.approx(20 + adaptive.height + 6)


def test_a_none_frame_hugs_what_it_holds_at_its_own_size_frames_that_hug_included():
    words = {"type": "text", "name": "words", "x": 0, "y": 0, "width": "hug", "height": "hug", "text": "Inner words"}
    inner = {**frame("inner", words, width="hug", padding=4), "x": 10, "y": 50}
    line = {"type": "text", "name": "line", "x": 5, "y": 7, "width": "hug", "height": "hug", "text": "A longer line"}
    spec = template(frame("outer", line, inner, width="hug", padding=[0, 8, 6, 0]), width=800, height=400)
    found = boxes(spec)
    arranged, ctx, _ = resolve(spec, None, RenderOptions())
    inner_words = measure(arranged.layers[0].layers[1].layers[0], ctx, None)
    # its longest line: not wrapped by a frame still sized
    assert found["words"][2:] == pytest.approx(inner_words, abs=LAYOUT_UNIT)
    assert found["inner"][2:] == pytest.approx((inner_words[0] + 4, inner_words[1] + 4), abs=LAYOUT_UNIT)
    right = max(5 + found["line"][2], 10 + found["inner"][2])
    assert found["outer"][2:] == pytest.approx((right + 8, 50 + found["inner"][3] + 6))


def test_frames_nest_sixteen_deep_with_what_they_hold_and_no_deeper():
    def nested(depth: int) -> dict[str, Any]:
        inner: dict[str, Any] = {"type": "text", "name": "deep", "width": "hug", "height": "hug", "text": "Deep"}
        for level in range(depth):
            inner = {"type": "frame", "name": f"f{level}", "width": "hug", "height": "hug", "layout": "column",
                     "padding": 1, "layers": [inner]}  # fmt: skip
        return template({**inner, "x": 0, "y": 0}, width=200, height=100)

    assert boxes(nested(16))["deep"][:2] == pytest.approx((16, 16))  # inside sixteen paddings of 1 px
    with pytest.raises(tk.TemplateError, match="frames nest more than 16 deep"):
        tk.load_template(nested(17))


_THREADS = """
import random, threading
from concurrent.futures import ThreadPoolExecutor
import templatekit as tk

badge = {"type": "frame", "name": "row", "x": 10, "y": 10, "width": 300, "height": "hug", "layout": "row", "gap": 6,
         "layers": [{"type": "text", "name": f"t{n}", "text": "word " * n, "width": "hug", "height": "hug"}
                    for n in range(1, 6)]}
card = {"name": "t", "width": 320, "height": 200, "layers": [badge]}
stop = False

def churn():
    while not stop:
        tk.set_cache_limit(random.choice([0, 1, 256]))

def render(n):
    return tk.render_image(card, {f"t{1 + n % 5}": "new words " * (n % 7 + 1)}).data[:8]

churner = threading.Thread(target=churn)
churner.start()
with ThreadPoolExecutor(6) as pool:
    drawn = list(pool.map(render, range(300)))
stop = True
churner.join()
assert set(drawn) == {b"\\x89PNG\\r\\n\\x1a\\n"}
print("ok")
"""


def test_frames_are_laid_out_from_many_threads_at_once_without_waiting_for_ever():
    """Yoga's binding holds a lock while it calls back into Python to measure text: two
    threads laying out frames at once, with caches filling and emptying, could wait for
    each other for ever. The child process must finish (a race: a pass shows no hang this
    time, not that none can happen)."""
    done = subprocess.run([sys.executable, "-c", _THREADS], capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def squeezed(*layers: dict[str, Any], width: float = 20) -> dict[str, Any]:
    """A row far narrower than its layers that hug."""
    row = {"type": "frame", "name": "row", "x": 10, "y": 10, "layout": "row", "width": width, "height": "hug"}
    return {**row, "layers": list(layers)}


@pytest.mark.parametrize("word", ["zeta", "iota", "mu", "gamma delta", "internationalization"])
def test_layers_squeezed_in_a_narrow_row_keep_their_minimums(word):
    """Yoga divided by a sum of shrink factors that cancelled to a hair over nothing, for
    some measured widths ("zeta" at 12 px: 24.426 px), and made such a text 550 million
    px wide, refused as unbounded. Sizes now go to Yoga in layout units (1/64 px), where
    that sum is exactly nothing."""
    inside = {**fixed("inside", 40, 30)}
    frame_layer = {"type": "frame", "name": "frame", "layout": "column", "width": "hug", "height": 20, "padding": 8}
    word_layer = {"type": "text", "name": "word", "text": word, "size": 12, "width": "hug", "height": "hug"}
    spec = template(squeezed(fixed("wide", 90, 40), word_layer, {**frame_layer, "layers": [inside]}))
    found = boxes(spec)
    arranged, ctx, _ = resolve(spec, None, RenderOptions())
    widest = min_content_width(arranged.layers[0].layers[1], ctx)
    assert found["word"][0] == pytest.approx(100) and widest <= found["word"][2] < widest + 1
    assert found["frame"][0] == pytest.approx(100 + found["word"][2]) and found["frame"][2] == 56  # padding + 40


def test_a_box_left_unbounded_is_refused_naming_the_layer():
    """A size Yoga might still leave unbounded is refused by name before painting meets
    it (it met an OverflowError)."""
    spec = template(squeezed(fixed("inside")))
    arranged, ctx, _ = resolve(spec, None, RenderOptions())
    frame_layer = arranged.layers[0]
    broken = attrs.evolve(frame_layer, layers=(attrs.evolve(frame_layer.layers[0], width=2.0**32),))
    with pytest.raises(tk.TemplateError, match="layer 'inside': auto layout gave it no bounded box"):
        _check_bounded(broken, ctx)
