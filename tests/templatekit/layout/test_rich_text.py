"""Rich text in one text layer: the markup subset, spans of their own style wrapping as
one paragraph, highlight, underline and strike-through, in PNG and PDF."""

from __future__ import annotations

import base64
import io
import math
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import templatekit as tk
from templatekit.errors import ModificationError, TemplateError
from templatekit.model.markup import MarkupError, Span, SpanStyle
from templatekit.model.markup_parser import parse_markup
from templatekit.model.values import Color
from templatekit.render import prepare
from templatekit.scene import GlyphRun, Group, Item
from templatekit.text.fonts import FontBook
from tests.conftest import decode, layer, template
from tests.pdf_readers import pdf_objects

RED = (255, 0, 0)
INK = (17, 24, 39)


def rich(text: str, **fields: object) -> dict[str, object]:
    base = {"x": 10, "y": 10, "width": 580, "height": 180, "size": 40, "color": "#111827", "markup": True}
    return template(
        layer("text", "headline", text=text, **{**base, **fields}), width=600, height=200, background="#fff"
    )


def pixels(text: str, **fields: object) -> list[tuple[int, int, int]]:
    image = decode(tk.render_image(rich(text, **fields)).data).convert("RGB")
    return list(image.get_flattened_data())


def columns_of(image_rgb: list[tuple[int, int, int]], colour: tuple[int, int, int], width: int = 600) -> set[int]:
    return {index % width for index, pixel in enumerate(image_rgb) if _near(pixel, colour)}


def _near(pixel: tuple[int, int, int], colour: tuple[int, int, int], tolerance: int = 24) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour, strict=True))


# ------------------------------------------------------------------ the markup


def test_the_subset_makes_spans_and_joins_neighbours_of_one_style():
    spans = parse_markup('One <b>bold</b> and <span style="color: #f00; font-size: 20px">red</span><br>two')
    assert spans == (
        Span("One "),
        Span("bold", SpanStyle(weight=700)),
        Span(" and "),
        Span("red", SpanStyle(color=Color(255, 0, 0), size=20.0)),
        Span("\ntwo"),
    )
    nested = parse_markup("<b><i>both</i></b><u><s>lines</s></u>")
    assert nested == (
        Span("both", SpanStyle(weight=700, italic=True)),
        Span("lines", SpanStyle(underline=True, strike=True)),
    )


def test_what_is_outside_the_subset_is_shown_as_written():
    text = '<script>alert("x")</script> <img src=x onerror=y> a < b &lt;i&gt; <!-- note -->'
    assert parse_markup(text) == (Span('<script>alert("x")</script> <img src=x onerror=y> a < b <i> <!-- note -->'),)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ok <b>open", "position 3: <b> is not closed"),
        ("<b><i>x</b></i>", "position 7: </b> closes <i>"),
        ("x</u>", "position 1: </u> closes nothing"),
        ('<span style="margin: 2px">x</span>', "position 0: style property 'margin' is not one of"),
        ('<span style="color: nope">x</span>', "style color: not a colour: 'nope'"),
        ('<span style="font-size: 0px">x</span>', "style font-size: '0px' must be more than 0"),
        ("<b class=x>x</b>", "<b> does not take the attribute 'class'"),
    ],
)
def test_bad_markup_names_its_position(text, message):
    with pytest.raises(MarkupError, match=message.replace("(", r"\(")):
        parse_markup(text)


def test_bad_markup_is_a_template_error_or_a_modification_error_naming_the_field():
    with pytest.raises(TemplateError, match=r"layers\[0\]\.text.*position 0: <b> is not closed"):
        tk.load_template(rich("<b>open"))
    good = tk.load_template(rich("fine"))
    with pytest.raises(ModificationError, match=r"text.*<i> is not closed"):
        tk.render_image(good, {"headline": "now <i>broken"})
    plain = tk.load_template(rich("<b>shown as it is</b>", markup=False))
    assert tk.render_image(plain, {"headline": "<i>not markup here"}).warnings == ()


# ------------------------------------------------------------------ drawn


def test_one_word_in_another_colour_is_drawn_in_it_and_the_rest_in_the_layer_colour():
    drawn = pixels('Plain <span style="color: #ff0000">red</span> plain')
    red, ink = columns_of(drawn, RED), columns_of(drawn, INK)
    assert red and ink
    assert min(red) > min(ink) and max(red) < max(ink)  # the red word sits between the plain ones
    changed = tk.render_image(tk.load_template(rich("x")), {"headline": 'Now <span style="color:#f00">all</span>'})
    assert columns_of(list(decode(changed.data).convert("RGB").get_flattened_data()), RED)


def test_bold_and_bigger_spans_take_more_room_and_a_taller_line():
    regular = tk.load_template(rich("word word"))
    block_width = {}
    for markup in ("word word", "<b>word</b> word", 'word <span style="font-size: 80px">word</span>'):
        image = decode(tk.render_image(regular, {"headline": markup}).data).convert("L")
        box = image.point(lambda v: 255 if v < 128 else 0).getbbox()
        block_width[markup] = box
    plain, bold, big = block_width.values()
    assert bold[2] > plain[2]  # bold is wider
    assert big[3] - big[1] > 1.6 * (plain[3] - plain[1])  # the line grew for the 80 px word


def test_highlight_underline_and_strike_are_drawn_at_the_text():
    yellow = (253, 230, 138)
    drawn = pixels('a <span style="background-color: #fde68a">marked</span> b')
    assert len(columns_of(drawn, yellow)) > 60
    for tag in ("u", "s"):
        image = decode(tk.render_image(rich(f"<{tag}>lined</{tag}>")).data).convert("L")
        rows = [sum(1 for x in range(600) if image.getpixel((x, y)) < 100) for y in range(200)]
        plain = decode(tk.render_image(rich("lined")).data).convert("L")
        plain_rows = [sum(1 for x in range(600) if plain.getpixel((x, y)) < 100) for y in range(200)]
        width = max(plain_rows)
        added = [y for y in range(200) if rows[y] > plain_rows[y] + 0.5 * width]
        assert added, f"<{tag}> drew no line across the word"
        ink_rows = [y for y in range(200) if plain_rows[y]]
        if tag == "u":
            assert min(added) > ink_rows[0] + 0.6 * (ink_rows[-1] - ink_rows[0])  # near the bottom
        else:
            assert ink_rows[0] < min(added) < ink_rows[-1]  # through the letters


def test_an_ellipsis_keeps_the_styles_of_the_text_it_cuts():
    long = "<b>" + "bold words " * 30 + "</b>"
    block = tk.render_image(rich(long, max_lines=1))
    assert any("cut" in warning or "…" in warning or "hidden" in warning for warning in block.warnings)
    from templatekit.layout.text import styled
    from templatekit.text.fonts import FontBook
    from templatekit.text.typeset import TextStyle, typeset

    base = TextStyle(size=40)
    laid = typeset(styled(parse_markup(long), base), base, FontBook.bundled(), 580, max_lines=1)
    assert laid.lines[0].text.endswith("…")
    assert {run.style.weight for run in laid.lines[0].runs} == {700}


def test_shrink_to_fit_shrinks_every_span_in_proportion():
    from templatekit.layout.text import styled
    from templatekit.text.fonts import FontBook
    from templatekit.text.typeset import TextStyle, fit

    base = TextStyle(size=40)
    spans = styled(parse_markup('small <span style="font-size: 80px">big</span> ' * 6), base)
    block = fit(spans, base, FontBook.bundled(), 400, 120, min_size=8)
    sizes = sorted({run.style.size for line in block.lines for run in line.runs})
    assert len(sizes) == 2 and sizes[1] == pytest.approx(2 * sizes[0]) and sizes[0] < 40
    assert block.height <= 120 and not block.truncated


def test_rich_text_in_a_pdf_is_vector_and_searchable():
    pypdf = pytest.importorskip("pypdf")
    pdf = tk.render_pdf(rich('Find <b>this</b> <span style="color:#f00">word</span> <u>here</u>'))
    text = pypdf.PdfReader(io.BytesIO(pdf.data)).pages[0].extract_text()
    assert "Find this word here" in " ".join(text.split())
    assert b"/Image" not in pdf_objects(pdf.data)  # glyphs and lines, no picture of them


# ------------------------------------------------------------------ a span's end

#: Punctuation and spaces right after every kind of span: each takes its own span's style.
AFTER_SPANS = (
    "<b>Far</b>! <i>so</i>, good <strong>x</strong> — y <em>em</em>; <u>under</u>: <s>gone</s>? "
    '<span style="font-weight: 900">heavy</span> word <span style="font-size: 60px">big</span>. '
    '<span style="color: #e11d48">red</span>, <span style="background-color: #fde68a">lit</span>!<br>(<b>both</b>.)'
)


def after_spans_card() -> dict[str, object]:
    """``AFTER_SPANS`` on a card tall enough for all of it."""
    text = layer(
        "text", "t", x=10, y=10, width=580, height=280, text=AFTER_SPANS, markup=True, size=40, color="#111827"
    )
    return template(text, width=600, height=300, background="#fff")


#: px a character's start or its ink's middle may be from Chromium's, and the share its
#: amount of ink may differ by.
GLYPH_OFF = 0.5
INK_OFF = 0.15


def characters(scene_items: tuple[Item, ...]) -> dict[int, tuple[str, float, float]]:
    """The font file, size and pen position (x) each character of a text layer is drawn
    at, by its index in the layer's text."""
    drawn: dict[int, tuple[str, float, float]] = {}
    for item in scene_items:
        if isinstance(item, Group):
            drawn |= characters(item.items)
        elif isinstance(item, GlyphRun):
            for glyph, cluster in enumerate(item.clusters):
                drawn.setdefault(item.offset + cluster, (item.font.path, item.size, item.x + item.positions[glyph][0]))
    return drawn


def test_punctuation_and_spaces_after_a_span_keep_their_own_style():
    spans = parse_markup(AFTER_SPANS)
    expected = {}
    for span in spans:
        style = span.style
        face = FontBook.bundled().match("Inter", style.weight or 400, bool(style.italic)).file.path
        expected |= {len(expected) + i: (face, style.size or 40) for i in range(len(span.text))}
    text = "".join(span.text for span in spans)
    drawn = characters(prepare(after_spans_card()).scene.items)
    assert {text[i] for i in drawn} == set(text) - {"\n"}
    wrong = {i: (text[i], Path(drawn[i][0]).stem, drawn[i][1]) for i in drawn if drawn[i][:2] != expected[i]}
    assert wrong == {}


@pytest.mark.parametrize(
    ("markup", "font"),
    [("<b>مرحبا</b>، عالم", "NotoSansArabic-Regular"), ("<b>你好</b>，世界", "NotoSansCJKSC-Regular")],
)
def test_punctuation_after_a_span_stays_in_the_font_of_its_script_in_its_own_weight(markup, font):
    after = len(parse_markup(markup)[0].text)  # the comma after the bold span
    drawn = characters(prepare(rich(markup)).scene.items)
    assert Path(drawn[after][0]).stem == Path(drawn[after + 1][0]).stem == font


def inter_faces() -> str:
    """Every bundled Inter face as a web font, so that Chromium sets the very same glyphs."""
    faces = []
    for weight in range(100, 1000, 100):
        for italic in (False, True):
            path = Path(FontBook.bundled().match("Inter", weight, italic).file.path)
            data = base64.b64encode(path.read_bytes()).decode()
            style = "italic" if italic else "normal"
            faces.append(
                f"@font-face{{font-family:Inter;src:url(data:font/otf;base64,{data});font-weight:{weight};font-style:{style}}}"
            )
    return "".join(faces)


def chromium_characters(page, markup: str) -> tuple[Image.Image, list[tuple[float, float, float, float]]]:
    """Chromium's rendering of the markup as ``after_spans_card`` lays it out, and the box
    (left, top, right, bottom) of each of its characters."""
    css = "position:absolute;left:10px;top:10px;width:580px;font:40px/1.2 Inter;color:#111827"
    page.set_viewport_size({"width": 600, "height": 300})
    page.set_content(
        f"<!doctype html><html><head><style>{inter_faces()} html,body{{margin:0;background:#fff}}"
        f" div{{{css}}}</style></head><body><div>{markup}</div></body></html>"
    )
    page.evaluate("document.fonts.ready")
    boxes = page.evaluate(
        """() => {
            const boxes = [], walker = document.createTreeWalker(document.querySelector("div"), NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                for (let i = 0; i < node.length; i++) {
                    const range = document.createRange();
                    range.setStart(node, i);
                    range.setEnd(node, i + 1);
                    const box = range.getBoundingClientRect();
                    boxes.push([box.left, box.top, box.right, box.bottom]);
                }
            }
            return boxes;
        }"""
    )
    return Image.open(io.BytesIO(page.screenshot(type="png"))).convert("L"), boxes


def ink(image: Image.Image, box: tuple[float, float, float, float]) -> tuple[float, float]:
    """How much ink there is in a character's box, and where its middle is (x)."""
    left, top, right, bottom = int(box[0]), int(box[1]), math.ceil(box[2]), math.ceil(box[3])
    darkness = 255 - np.asarray(image.crop((left, top, right, bottom)), dtype=float)
    mass = darkness.sum()
    return mass, left + (darkness.sum(axis=0) * np.arange(right - left)).sum() / max(mass, 1)


@pytest.mark.slow
def test_each_glyph_after_a_span_lands_where_chromium_puts_it(page):
    """Where each character starts (from Chromium's layout), and the amount and middle of
    each glyph's ink: a bold comma has more ink, an italic one leans, and a narrower
    space moves everything after it. Measured: starts within 0.05 px of Chromium's, ink
    within 9 % (underlines and strike-throughs are drawn a little thinner), middles
    within 0.2 px; a bold "!" had 63 % more ink, an italic "," its middle 2 px off, and
    the text after a black word's space started 4 px early."""
    theirs, boxes = chromium_characters(page, AFTER_SPANS)
    mine = decode(tk.render_image(after_spans_card()).data).convert("L")
    text = "".join(span.text for span in parse_markup(AFTER_SPANS))
    drawn = characters(prepare(after_spans_card()).scene.items)
    indices = [i for i, character in enumerate(text) if character != "\n"]
    assert len(indices) == len(boxes)
    wrong = {}
    for index, box in zip(indices, boxes, strict=True):
        if index not in drawn:  # a space at the end of a line
            continue
        (mass, middle), (their_mass, their_middle) = ink(mine, box), ink(theirs, box)
        moved = abs(drawn[index][2] - box[0]) > GLYPH_OFF
        inked = text[index] != " " and (
            abs(mass - their_mass) > INK_OFF * their_mass or abs(middle - their_middle) > GLYPH_OFF
        )
        if moved or inked:
            wrong[index] = (
                text[index],
                round(drawn[index][2] - box[0], 2),
                round(float(mass / max(their_mass, 1)) - 1, 2),
                round(float(middle - their_middle), 2),
            )
    assert wrong == {}


# ------------------------------------------------------------------ spans in JSON
# ------------------------------------------------------------------ spans in JSON


def spans_card(spans: list[dict[str, object]], **fields: object) -> dict[str, object]:
    base = {"x": 10, "y": 10, "width": 580, "height": 180, "size": 40, "color": "#111827", "spans": spans}
    return template(layer("text", "headline", **{**base, **fields}), width=600, height=200, background="#fff")


def test_spans_in_json_draw_as_the_markup_does():
    from_json = spans_card(
        [{"text": "Plain "}, {"text": "red", "color": "#ff0000", "weight": 700}, {"text": " and ", "underline": True}]
    )
    from_markup = rich('Plain <span style="color: #f00; font-weight: 700">red</span><u> and </u>')
    assert decode(tk.render_image(from_json).data).tobytes() == decode(tk.render_image(from_markup).data).tobytes()


def test_text_and_spans_replace_each_other_in_modifications():
    card = tk.load_template(spans_card([{"text": "styled", "color": "#ff0000"}]))
    red = columns_of(list(decode(tk.render_image(card).data).convert("RGB").get_flattened_data()), RED)
    assert red
    plain = tk.render_image(card, {"headline": "now plain"})  # the main field: the spans go
    assert not columns_of(list(decode(plain.data).convert("RGB").get_flattened_data()), RED)
    again = tk.render_image(
        tk.load_template(rich("x", markup=False)), {"headline": {"spans": [{"text": "s", "color": "#f00"}]}}
    )
    assert columns_of(list(decode(again.data).convert("RGB").get_flattened_data()), RED)
    with pytest.raises(TemplateError, match=r"spans: a text layer has text or spans, not both"):
        tk.load_template(spans_card([{"text": "a"}], text="b"))
    with pytest.raises(TemplateError, match=r"spans\[0\]\.weight"):
        tk.load_template(spans_card([{"text": "a", "weight": 1000}]))
