"""Template details: names, stable ids, types and sample inputs."""

from __future__ import annotations

from pathlib import Path

import templatekit as tk
from tests.conftest import layer, template

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "templates"


def test_describe_lists_every_layer_with_a_sample_of_its_main_field():
    data = template(
        layer("text", "title", text="Hello"),
        layer("image", "photo", src="a.png"),
        layer("qrcode", "qr", qrcode="https://example.com"),
        layer("barcode", "code", barcode="123456"),
        layer("star", "rating", star=4.5),
        layer("star", "whole", star=4),
        layer("table", "items", rows=[{"sku": "A1", "qty": 2}]),
        layer("chart", "sales", rows=[{"label": "Q1", "value": 3}]),
        layer("keyvalue", "totals", rows=[{"key": "Total", "value": "$5"}]),
        layer("alert", "note", title="Heads up", text="Body"),
        layer("signature", "sig", text="Ada Lovelace"),
        layer("shape", "box", fill="#ff0000"),
        layer("text", "custom", text="x", suggestInput="Your name", id="lyr_custom"),
        name="Everything",
    )
    details = tk.describe(data)
    assert details["name"] == "Everything" and details["id"] == "tpl_everything"
    assert [(d["name"], d["type"], d["suggestInput"]) for d in details["layers"]] == [
        ("title", "text", "Hello"),
        ("photo", "image", "a.png"),
        ("qr", "qrcode", "https://example.com"),
        ("code", "barcode", "123456"),
        ("rating", "star", "4.5"),
        ("whole", "star", "4"),
        ("items", "table", '[{"sku":"A1","qty":2}]'),
        ("sales", "chart", '[{"label":"Q1","value":3.0}]'),
        ("totals", "keyvalue", '[{"key":"Total","value":"$5"}]'),
        ("note", "alert", "Body"),
        ("sig", "signature", "Ada Lovelace"),
        ("box", "shape", "#ff0000"),
        ("custom", "text", "Your name"),
    ]
    assert details["layers"][-1]["id"] == "lyr_custom"


def test_ids_are_stable_and_distinct():
    first = tk.describe(EXAMPLES / "social-card.json")
    again = tk.describe(EXAMPLES / "social-card.json")
    assert first == again and first["id"] == "tpl_social_card"
    ids = [d["id"] for d in first["layers"]]
    assert len(set(ids)) == len(ids) and all(i.startswith("lyr_") for i in ids)
    renamed = tk.describe(template(layer("text", "Title"), layer("text", "title")))
    assert renamed["layers"][0]["id"] != renamed["layers"][1]["id"]


def test_layers_of_unknown_kinds_are_described_by_their_own_type():
    data = template({"type": "sticker", "name": "s", "x": 0, "y": 0, "width": 1, "height": 1})
    described = tk.describe(data)["layers"][0]
    assert (described["name"], described["type"], described["suggestInput"]) == ("s", "sticker", "")
    assert described["id"].startswith("lyr_")


def test_a_main_field_left_empty_suggests_nothing_not_the_word_null():
    described = tk.describe(template(layer("shape", "frame", fill=None, stroke="#000000")))["layers"][0]
    assert described["suggestInput"] == ""
