"""Modifications: four equivalent forms, a pure apply, warnings for what does not fit."""

from __future__ import annotations

import copy
import json
import re

import pytest

pytest.importorskip("hypothesis")

from hypothesis import given, settings
from hypothesis import strategies as st

import templatekit as tk
from tests.conftest import layer, template

BASE = tk.load_template(
    template(
        layer("text", "title", text="Hello"),
        layer("text", "Title", text="Case"),
        layer("image", "photo", src="a.png"),
        layer("qrcode", "qr", qrcode="abc"),
        layer("barcode", "code", barcode="123"),
        layer("star", "rating", star=2),
        layer("table", "grid", rows=[{"a": 1}]),
    )
)

MAIN_VALUES = {
    "title": st.text(max_size=40),
    "photo": st.sampled_from(["b.png", "https://example.com/x.jpg"]),
    "qr": st.text(min_size=1, max_size=30).filter(str.strip),
    "code": st.from_regex(r"[0-9]{1,12}", fullmatch=True),
    "rating": st.sampled_from([0.5, 1, 2.5, 5]),
    "grid": st.lists(st.fixed_dictionaries({"a": st.integers(0, 99)}), max_size=3),
}
MAIN_FIELD = {"title": "text", "photo": "src", "qr": "qrcode", "code": "barcode", "rating": "star", "grid": "rows"}


@st.composite
def plain_modifications(draw):
    names = draw(st.lists(st.sampled_from(sorted(MAIN_VALUES)), unique=True, max_size=6))
    return {name: draw(MAIN_VALUES[name]) for name in names}


@settings(max_examples=60, deadline=None)
@given(plain_modifications())
def test_the_four_forms_are_equivalent(values):
    as_object = values
    as_list = [{"name": name, MAIN_FIELD[name]: value} for name, value in values.items()]
    as_fields = {name: {MAIN_FIELD[name]: value} for name, value in values.items()}
    results = [
        tk.apply(BASE, form) for form in (as_object, as_list, as_fields, json.dumps(as_list), json.dumps(as_object))
    ]
    assert all(r.template == results[0].template for r in results)
    if not values:
        assert tk.apply(BASE, None).template == results[0].template == BASE


@settings(max_examples=60, deadline=None)
@given(plain_modifications())
def test_apply_never_mutates_the_template(values):
    before = copy.deepcopy(BASE)
    tk.apply(BASE, values)
    assert before == BASE
    assert [layer.text for layer in BASE.layers[:2]] == ["Hello", "Case"]


def test_names_match_exactly_and_case_sensitively():
    result = tk.apply(BASE, {"title": "new", "TITLE": "ignored", " title": "ignored too"})
    assert result.template.layer("title").text == "new"
    assert result.template.layer("Title").text == "Case"
    assert result.warnings == (
        "modifications[1]: no layer named 'TITLE'; ignored",
        "modifications[2]: no layer named ' title'; ignored",
    )


def test_fields_that_do_not_fit_and_star_zero_are_warnings():
    result = tk.apply(
        BASE,
        [
            {"name": "title", "src": "x.png", "color": "#f00"},
            {"name": "rating", "star": 0},
            {"name": "photo", "type": "text"},
            {"name": "rating", "star": ""},
        ],
    )
    assert result.template.layer("title").color.hex == "#ff0000"
    assert result.template.layer("rating").star == 2
    assert result.warnings == (
        "modifications[0].src: layer 'title' (text) has no such field; ignored",
        "modifications[1].star: a rating of 0 is ignored",
        "modifications[2].type: layer 'photo' (image) has no such field; ignored",
        "modifications[3].star: an empty rating is ignored",
    )


def test_visible_works_on_every_layer():
    hidden = {name: {"visible": False} for name in ("title", "Title", "photo", "qr", "code", "rating", "grid")}
    result = tk.apply(BASE, hidden)
    assert not any(layer.visible for layer in result.template.layers)
    assert result.warnings == ()


@pytest.mark.parametrize(
    ("mods", "message"),
    [
        (
            [{"name": "title", "size": -1}],
            "modifications[0] (layer 'title'): size: must be a positive number (got -1.0)",
        ),
        ([{"name": "title", "color": "blurple"}], "modifications[0].color (layer 'title'): not a colour: 'blurple'"),
        ({"rating": 9}, "modifications[0] (layer 'rating'): star: must not be more than max (9 > 5)"),
        (
            [{"name": "title", "italic": "maybe"}],
            "modifications[0].italic (layer 'title'): must be true or false (got 'maybe')",
        ),
        ([{"text": "no name"}], "modifications[0]: must be an object with a string 'name'"),
        ("{not json", "modifications: not valid JSON"),
        (42, "modifications: must be a list, an object, JSON text or null (got int)"),
        (
            [{"name": "title", "text": "x" * 20_001}],
            "text (layer 'title'): must be at most 20,000 characters (got 20,001)",
        ),
    ],
)
def test_bad_values_are_modification_errors(mods, message):
    with pytest.raises(tk.ModificationError) as caught:
        tk.apply(BASE, mods)
    assert message in str(caught.value)


def test_later_modifications_win_and_numbers_become_text():
    result = tk.apply(BASE, [{"name": "title", "text": "a"}, {"name": "title", "text": 42}])
    assert result.template.layer("title").text == "42"


def test_modification_objects_are_accepted():
    result = tk.apply(BASE, [tk.Modification("title", {"text": "obj"})])
    assert result.template.layer("title").text == "obj"


def test_too_many_modifications():
    with pytest.raises(tk.ModificationError, match="at most 500"):
        tk.apply(BASE, [{"name": "title", "text": str(i)} for i in range(501)])


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
layer_names = st.sampled_from(["title", "photo", "qr", "code", "rating", "grid", "nope"])
fields = st.sampled_from(["text", "src", "qrcode", "barcode", "star", "rows", "color", "size", "x", "opacity", "name"])


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        json_values,
        st.lists(st.dictionaries(fields, json_values, max_size=3), max_size=4),
        st.lists(
            st.builds(lambda name, more: {"name": name, **more}, layer_names, st.dictionaries(fields, json_values))
        ),
        st.dictionaries(layer_names, json_values | st.dictionaries(fields, json_values, max_size=3), max_size=4),
    ).flatmap(lambda value: st.sampled_from([value, json.dumps(value)]))
)
def test_any_json_is_applied_or_refused_with_a_modification_error(value):
    """Whatever a client sends as modifications, the answer is a template or a
    ModificationError that names what is wrong; never another exception."""
    try:
        applied = tk.apply(BASE, value)
    except tk.ModificationError as exc:
        assert str(exc)
    else:
        assert isinstance(applied.template, tk.Template)


@pytest.mark.parametrize(
    "form",
    [
        [{"name": "title", "text": "Hi", "color": None, "size": None}],
        {"title": {"text": "Hi", "color": None}},
        json.dumps([{"name": "title", "text": "Hi", "font": None}]),
        [{"name": "title", "text": "Hi"}, {"name": "photo", "src": None}, {"name": "rating", "star": None}],
    ],
)
def test_null_means_not_set_in_every_form(form):
    applied = tk.apply(BASE, form)
    assert applied.template.layer("title").text == "Hi"
    assert applied.template.layer("title").color == BASE.layer("title").color
    assert applied.template.layer("photo") == BASE.layer("photo")
    assert applied.warnings == ()
    assert tk.apply(BASE, {"title": None}).template == BASE


def test_a_modification_sizes_a_layer_of_a_frame_by_a_number_hug_or_fill():
    """What a template may write for a size, a modification may too; a number makes the
    size fixed (it was left unread beside the mode), and what the frame around cannot
    work out is refused, naming the path."""
    row = layer("frame", "f", width=400, height="hug", layout="row", layers=[
        {"type": "text", "name": "a", "text": "hello", "width": "hug", "height": "hug"},
        {"type": "shape", "name": "s", "width": 50, "height": 20},
    ])  # fmt: skip
    source = template(row, layer("shape", "top"))

    def widths(modifications):
        return [(child.name, child.width) for child in tk.prepare(source, modifications).template.layers[0].layers]

    assert widths({"a": {"width": 120}}) == [("a", 120), ("s", 50)]
    assert widths({"a": {"width": "fill"}}) == [("a", 350), ("s", 50)]
    assert widths({"s": {"width": 80}, "a": {"width": "fill"}}) == [("a", 320), ("s", 80)]
    for modifications, message in [
        ({"a": {"width": "fill"}, "f": {"layout": "none"}}, 'layers[0].layers[0].width: "fill"'),
        ({"top": {"width": "fill"}}, 'layers[1].width: "fill" takes the space a row or column frame leaves'),
        ({"s": {"width": "hug"}}, 'layers[0].layers[1].width: "hug" means the size of the content'),
    ]:
        with pytest.raises(tk.ModificationError, match=re.escape(message)):
            tk.prepare(source, modifications)
