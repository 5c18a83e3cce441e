"""Loading and validating templates: every problem is reported, with its path."""

from __future__ import annotations

import json
import math
import re

import pytest

import templatekit as tk
from templatekit.model.convert import converter
from templatekit.model.layers import LAYER_KINDS
from templatekit.model.values import cell_text
from tests.conftest import layer, template

EVERY_KIND = [
    layer("text", "t", text="Hi", color="#fff", padding=[4, 8], background={"from": "red", "to": "blue", "angle": 45}),
    layer(
        "image",
        "i",
        src="logo.png",
        fit="contain",
        focus={"x": 0.2, "y": 0.8},
        radius="50%",
        border={"width": 2, "color": "rgba(0,0,0,0.5)"},
        grayscale=True,
    ),
    layer("shape", "s", shape="ellipse", fill="tomato", stroke="#000", strokeWidth=2),
    layer("alert", "a", title="Heads up", text="Body", variant="warning"),
    layer("signature", "sig", text="Jane Doe", title="CEO", date="2026-11-22", lineColor="#999"),
    layer("barcode", "b", barcode="590123412345", symbology="ean13", showText=False),
    layer("qrcode", "q", qrcode="https://example.com", errorCorrection="H", margin=4),
    layer("star", "st", star=3.5, max=5, emptyColor="#eee"),
    layer(
        "table",
        "tb",
        rows=[{"a": 1, "b": "x", "c": None, "d": True}],
        columns=["a", {"key": "b", "header": "B", "align": "right", "width": "30%"}],
        theme="arco",
    ),
    layer(
        "chart",
        "c",
        rows=[{"name": "2025", "data": [{"label": "Q1", "value": 3}]}],
        chartType="line",
        legend=False,
    ),
    layer("keyvalue", "kv", rows=[{"key": "Total", "value": "$10", "valueStyle": {"weight": 700}}]),
    layer("video", "v", src="clip.mp4", loop=True, trim={"start": 1, "end": 3}),
    layer(
        "captions",
        "cap",
        cues=[{"start": 0, "end": 1.5, "text": "Hi <00:00:00.800><b>there</b>"}],
        wordHighlight={"color": "#facc15", "background": "#00000080"},
        padding=[4, 8],
    ),
    layer(
        "frame",
        "f",
        height="hug",
        layout="column",
        gap=8,
        padding=[4, 8],
        fill="#fff",
        layers=[{"type": "text", "name": "inner", "width": "fill", "height": "hug", "text": "Hi"}],
    ),
]


def test_every_layer_kind_loads_and_round_trips():
    data = template(*EVERY_KIND, video={"duration": 5, "fps": 30})
    loaded = tk.load_template(data, strict=True)
    assert [type(layer).TYPE for layer in loaded.layers] == [d["type"] for d in EVERY_KIND]
    assert set(LAYER_KINDS) == {d["type"] for d in EVERY_KIND}
    again = tk.load_template(converter.unstructure(loaded), strict=True)
    assert again == loaded


def test_problems_name_their_path_and_value():
    data = template(
        layer("text", "title", size=-4, color="nope", align="middle"),
        layer("txt", "x"),
        layer("image", "img"),
        width="wide",
    )
    with pytest.raises(tk.TemplateError) as caught:
        tk.load_template(data, strict=True)
    problems = caught.value.problems
    assert "width: must be a number (got 'wide')" in problems
    assert "layers[0].color: not a colour: 'nope'" in problems
    assert "layers[0].align: must be one of left, center, right, justify (got 'middle')" in problems
    assert any(p.startswith("layers[1].type: must be one of text, image") for p in problems)
    assert "layers[2].src: is required" in problems


def test_checks_report_all_problems_at_once():
    data = template(
        layer("text", "a", size=-4, width=0, opacity=2),
        layer("star", "a", star=7),
        width=0,
    )
    with pytest.raises(tk.TemplateError) as caught:
        tk.load_template(data, strict=True)
    assert caught.value.problems == [
        "width: must be between 1 and 10000 (got 0)",
        "layers[0].width: must be a positive number (got 0.0)",
        "layers[0].opacity: must be between 0 and 1 (got 2.0)",
        "layers[0].size: must be a positive number (got -4.0)",
        "layers[1].star: must not be more than max (7 > 5)",
        "layers[1].name: 'a' is used by an earlier layer; names must be unique",
    ]


def test_type_errors_and_unknown_fields_do_not_hide_value_problems():
    data = template(layer("text", "t", size="big", opacity=3, glow=1), width=0, height="tall")
    with pytest.raises(tk.TemplateError) as caught:
        tk.load_template(data, strict=True)
    assert caught.value.problems == [
        "height: must be a number (got 'tall')",
        "layers[0].size: must be a number (got 'big')",
        "layers[0]: unknown field(s): glow",
        "width: must be between 1 and 10000 (got 0)",
        "layers[0].opacity: must be between 0 and 1 (got 3.0)",
    ]


def test_canvas_limit_and_video_layer_needs_video_template():
    with pytest.raises(tk.TemplateError) as caught:
        tk.load_template(template(layer("video", "v", src="a.mp4"), width=10000, height=6000))
    assert caught.value.problems == [
        "width: canvas is 10000x6000, more than 50 MP",
        "layers[0].type: video layers need a video template (add a 'video' field)",
    ]


def test_unknown_fields_are_errors_when_strict_and_warnings_otherwise():
    data = template(layer("text", "t", text="x", shadow=True), future=1)
    with pytest.raises(tk.TemplateError) as caught:
        tk.load_template(data, strict=True)
    assert caught.value.problems == ["layers[0]: unknown field(s): shadow", "(template): unknown field(s): future"]
    lenient = tk.load_template(data)
    assert lenient.load_warnings == ("layers[0].shadow: unknown field ignored", "future: unknown field ignored")
    assert data["layers"][0]["shadow"] is True  # the caller's data is not changed


def test_colours():
    loaded = tk.load_template(
        template(
            layer("shape", "a", fill="#abc"),
            layer("shape", "b", fill="#11223380"),
            layer("shape", "c", fill="rgba(10, 20, 30, 0.5)"),
            layer("shape", "d", fill="transparent"),
            layer("shape", "e", fill="rebeccapurple"),
        )
    )
    assert [s.fill.rgba for s in loaded.layers] == [
        (0xAA, 0xBB, 0xCC, 255),
        (0x11, 0x22, 0x33, 0x80),
        (10, 20, 30, 128),
        (0, 0, 0, 0),
        (102, 51, 153, 255),
    ]


def test_json_text_path_and_bad_json(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(template(layer("text", "t"))))
    assert tk.load_template(path).base_dir == tmp_path
    assert tk.load_template(path.read_text()).name == "test"
    path.write_text('{"name": "x",')
    with pytest.raises(tk.TemplateError, match=r"\(json\): not valid JSON \(Expecting"):
        tk.load_template(path)
    with pytest.raises(tk.TemplateError, match="cannot read"):
        tk.load_template(tmp_path / "missing.json")


def test_layers_of_unknown_kinds_are_kept_when_lenient_and_errors_when_strict():
    newer = {"type": "sticker", "name": "s", "x": 1, "y": 2, "width": 3, "height": 4, "emoji": "🎉"}
    data = template(layer("text", "t", text="x"), newer)
    with pytest.raises(tk.TemplateError, match=r"layers\[1\]\.type: must be one of"):
        tk.load_template(data, strict=True)
    loaded = tk.load_template(data)
    assert loaded.load_warnings == ("layers[1]: unknown layer type 'sticker'; kept but not drawn",)
    assert converter.unstructure(loaded)["layers"][1] == newer  # written back as it came
    result = tk.render_image(loaded, {"s": {"emoji": "x"}})
    assert "modifications[0]: layer 's' is of a kind this version does not know; ignored" in result.warnings


def test_a_layer_of_an_unknown_kind_inside_a_frame_is_named_by_its_path():
    newer = {"type": "sticker", "name": "s", "width": 3, "height": 4}
    data = template(layer("frame", "f", layout="column", layers=[layer("text", "t", text="x"), newer]))
    with pytest.raises(tk.TemplateError, match=r"layers\[0\]\.layers\[1\]\.type: must be one of"):
        tk.load_template(data, strict=True)
    warned = tk.load_template(data).load_warnings
    assert "layers[0].layers[1]: unknown layer type 'sticker'; kept but not drawn" in warned


def test_unstructured_templates_carry_no_loading_details():
    loaded = tk.load_template(template(layer("text", "t"), future=1))
    assert loaded.load_warnings
    assert set(converter.unstructure(loaded)) == {"name", "width", "height", "layers"}


@pytest.mark.parametrize(
    ("data", "path"),
    [
        (template(name="cut \ud800"), "name"),
        (template(layer("qrcode", "code", qrcode="\udc00")), "layers[0].qrcode"),
        (template(layer("table", "orders", rows=[{"item": "mug \ud83d"}])), "layers[0].rows[0]"),
        (template(layer("text", "title\ud800", text="Hi")), "layers[0].name"),
    ],
)
def test_half_a_character_is_refused_wherever_text_goes(data, path):
    """A lone surrogate: valid JSON, but no font draws it and UTF-8, PDF and QR codes cannot hold it."""
    with pytest.raises(tk.TemplateError, match=re.escape(f"{path}: must be Unicode text: character")):
        tk.load_template(data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            template(layer("text", "title", text="Hi", padding=-80)),
            "layers[0].padding: must be 0 or more, as in CSS (got -80)",
        ),
        (
            template(layer("text", "title", text="Hi", padding=[4, -2])),
            "layers[0].padding: must be 0 or more, as in CSS (got -2)",
        ),
        (
            template(layer("table", "orders", rows=[{"a": 1}], columns=[{"key": "a", "header": "A", "width": -50}])),
            "layers[0].columns[0].width: must be 0 or more (got -50)",
        ),
        (
            template(layer("table", "orders", rows=[{"a": 1}], columns=[{"key": "a", "header": "A", "width": "wide"}])),
            """layers[0].columns[0].width: must be px or a percentage such as "50%" (got 'wide')""",
        ),
    ],
)
def test_negative_space_and_lengths_that_are_not_lengths_are_refused_by_name(data, message):
    with pytest.raises(tk.TemplateError, match=re.escape(message)):
        tk.load_template(data)


@pytest.mark.parametrize(("source", "shown"), [([1, 2], "list"), (b"{}", "bytes"), ("", "empty text"), (5, "int")])
def test_what_is_no_template_source_is_named(source, shown):
    with pytest.raises(tk.TemplateError, match=re.escape(f"a dict, JSON text or a file's path (got {shown})")):
        tk.load_template(source)


def test_a_dict_nested_deeper_than_json_text_may_is_refused_not_a_crash():
    deep: dict = {}
    inner = deep
    for _ in range(100_000):  # far past Python's recursion limit
        inner["a"] = {}
        inner = inner["a"]
    with pytest.raises(tk.TemplateError, match=r"  extra(\.a){63}: nested more than 64 levels deep"):
        tk.load_template({**template(), "extra": deep})


def test_frames_nested_too_deep_for_json_are_named_by_their_path():
    inner = layer("text", "t", text="x")
    for n in range(40):
        inner = layer("frame", f"f{n}", layers=[inner])
    where = "layers[0]" + ".layers[0]" * 31
    for source in (template(inner), json.dumps(template(inner))):
        with pytest.raises(tk.TemplateError, match=re.escape(f"{where}: nested more than 64 levels deep")):
            tk.load_template(source)
    text = json.dumps(template(width=10, height=10))[:-2] + "[" * 5000 + "]" * 5000 + "]}"
    with pytest.raises(tk.TemplateError, match=re.escape("(json): nested more than 64 levels deep (at line 1 column")):
        tk.load_template(text)  # too deep for Python's parser: its place in the text


def test_modifications_apply_to_a_template_in_any_form_it_is_read_in():
    data = template(layer("text", "title", text="Before"))
    for source in (data, json.dumps(data), tk.load_template(data)):
        applied = tk.apply(source, {"title": "After"})
        assert applied.template.layer("title").text == "After" and applied.warnings == ()


def test_a_field_given_twice_in_json_text_is_refused_as_the_server_refuses_it():
    """JSON readers take a repeated field differently (the first, the last, an error)."""
    with pytest.raises(tk.TemplateError, match=re.escape("(json): the field 'width' is given twice")):
        tk.load_template('{"name": "a", "width": 10, "width": 20, "height": 10, "layers": []}')
    with pytest.raises(tk.ModificationError, match=re.escape("the field 'title' is given twice")):
        tk.render_image(template(layer("text", "title", text="Hi")), '{"title": "a", "title": "b"}')


@pytest.mark.parametrize("text", ["1_000", "\uff11\uff12", "inf", "nan", "12pt"])
def test_a_number_given_as_text_is_written_as_json_writes_numbers(text):
    data = template(layer("text", "title", text="Hi", size=text))
    with pytest.raises(tk.TemplateError, match=re.escape(f"layers[0].size: must be a number (got {text!r})")):
        tk.load_template(data)
    assert tk.load_template(template(layer("text", "title", text="Hi", size=" 1e1 "))).layers[0].size == 10


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (1234567.5, "1234567.5"),
        (12.0, "12"),
        (1e16, "10000000000000000"),
        (-0.0, "0"),
        (1e-6, "0.000001"),
        (1.5e-7, "1.5e-7"),  # Python pads the exponent: "1.5e-07"
        (-1e-7, "-1e-7"),
        (1e21, "1e+21"),
        (2.0**64, "18446744073709552000"),  # the shortest digits, not "...551616"
        (1.2345678901234567e19, "12345678901234567000"),
        (10**30, str(10**30)),  # an integer keeps all its digits
        (math.nan, "NaN"),
        (-math.inf, "-Infinity"),
    ],
)
def test_a_number_sent_as_text_reads_as_javascript_writes_it(number, text):
    """Python's "g" format made 1234567.5 "1.23457e+06": digits lost from a price or an id.
    A client wrote the number with JavaScript's ``String(n)``, so it reads back as that."""
    applied = tk.apply(template(layer("text", "title", text="Hi")), [{"name": "title", "text": number}])
    assert applied.template.layers[0].text == text
    assert cell_text(number) == text  # a table cell writes it the same way
