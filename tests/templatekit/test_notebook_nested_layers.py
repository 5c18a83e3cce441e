"""A template in a notebook shows the table of its layers: those inside frames too, which
hold most of what a render changes (a card's title, price and rating), each with its box
as the template gives it ("hug", "fill"), not a placeholder number."""

from __future__ import annotations

import re

import templatekit as tk
from templatekit.notebook import template_html
from tests.conftest import layer, template


def test_the_layer_table_of_a_template_lists_the_layers_in_its_frames_and_their_sizes():
    loaded = tk.load_template(
        template(
            layer("shape", "backdrop", fill="#eeeeee"),
            layer(
                "frame",
                "copy",
                width="hug",
                height="hug",
                layout="column",
                layers=[layer("text", "title", text="Hello", width="hug", height="hug")],
            ),
        )
    )
    html = template_html(loaded)
    shown = re.findall(r"<code>(.*?)</code>", html)
    assert shown == [entry["name"] for entry in tk.describe(loaded)["layers"]] == ["backdrop", "copy", "title"]
    assert "hug × hug" in html and "1 × 1" not in html
