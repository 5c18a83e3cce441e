"""A layer kind added by one module (its model and its layout) works as the built-in
ones do: templates load it, modifications set it, PNG and PDF draw it, the JSON Schema
describes it, and mistakes in adding it are named."""

from __future__ import annotations

import io
import subprocess

import pytest
from attrs import frozen
from PIL import Image

import templatekit as tk
from templatekit.apply import forget_fields
from templatekit.layout.compose import ADDED_LAYOUTS
from templatekit.layout.context import LayoutContext
from templatekit.model.checks import between, field
from templatekit.model.layers import LAYER_KINDS, Layer
from templatekit.model.schema import ModelSchema, layer_schema
from templatekit.model.values import Color
from templatekit.scene import Item, Rect
from tests.conftest import template


@frozen(kw_only=True)
class ProgressBar(Layer):
    """A bar filled to ``progress`` (0–1) in ``color``: the kind this test adds."""

    TYPE = "progress"
    MAIN_FIELD = "progress"

    progress: float = field(0.0, check=between(0, 1))
    color: Color = Color(0, 128, 255)


def progress_layout(layer: ProgressBar, ctx: LayoutContext) -> list[Item]:
    track = Rect(layer.x, layer.y, layer.width, layer.height, Color(230, 230, 230))
    return [track, Rect(layer.x, layer.y, layer.width * layer.progress, layer.height, layer.color)]


BAR = {"type": "progress", "name": "done", "x": 0, "y": 0, "width": 200, "height": 20, "progress": 0.25}


@pytest.fixture(autouse=True)
def added():
    """The kind, added for each test and taken away after it (the other tests see the
    built-in kinds only)."""
    kinds, layouts = dict(LAYER_KINDS), dict(ADDED_LAYOUTS)
    tk.add_layer_kind(ProgressBar, progress_layout)
    yield
    LAYER_KINDS.clear()
    LAYER_KINDS.update(kinds)
    ADDED_LAYOUTS.clear()
    ADDED_LAYOUTS.update(layouts)
    forget_fields()


def test_an_added_kind_loads_takes_modifications_and_is_drawn():
    loaded = tk.load_template(template(BAR, width=200, height=20), strict=True)
    assert isinstance(loaded.layers[0], ProgressBar)
    image = Image.open(io.BytesIO(tk.render_image(loaded, {"done": 0.75}).data)).convert("RGB")
    assert image.getpixel((140, 10)) == (0, 128, 255) and image.getpixel((160, 10)) == (230, 230, 230)
    red = Image.open(io.BytesIO(tk.render_image(loaded, [{"name": "done", "color": "#ff0000"}]).data)).convert("RGB")
    assert red.getpixel((10, 10)) == (255, 0, 0)


def test_an_added_kind_is_checked_and_described_like_the_others():
    with pytest.raises(tk.ModificationError, match="progress"):
        tk.render_image(template(BAR), {"done": 2})
    schema = layer_schema(ModelSchema(), "progress")
    assert schema["properties"]["progress"]["maximum"] == 1 and schema["properties"]["type"]["const"] == "progress"


def test_an_added_kind_fills_a_row_frame_and_refuses_to_hug():
    bar = {"type": "progress", "name": "done", "width": "fill", "height": 20, "progress": 1}
    label = {"type": "text", "name": "pct", "width": 40, "height": 20, "text": "100%", "size": 14}
    row = {"type": "frame", "name": "row", "x": 10, "y": 10, "width": 200, "height": "hug", "layout": "row"}
    spec = template({**row, "gap": 10, "layers": [bar, label]}, width=220, height=40)
    image = Image.open(io.BytesIO(tk.render_image(tk.load_template(spec, strict=True)).data)).convert("RGB")
    assert image.getpixel((12, 20)) == image.getpixel((158, 20)) == (0, 128, 255)  # 200 - 10 gap - 40 label
    assert image.getpixel((162, 20)) != (0, 128, 255)
    with pytest.raises(tk.TemplateError, match="a progress layer has none"):
        tk.load_template(template({**row, "layers": [{**bar, "width": "hug"}]}), strict=True)


def test_an_added_kind_is_in_the_pdf(tmp_path):
    (tmp_path / "bar.pdf").write_bytes(tk.render_pdf(template(BAR, width=200, height=20)).data)
    subprocess.run(["pdftoppm", "-r", "96", "-png", "-singlefile", str(tmp_path / "bar.pdf"), str(tmp_path / "p")])
    page = Image.open(tmp_path / "p.png").convert("RGB")
    assert page.getpixel((20, 10)) == (0, 128, 255) and page.getpixel((150, 10)) == (230, 230, 230)


def test_mistakes_in_adding_a_kind_are_named():
    with pytest.raises(ValueError, match="exists already"):
        tk.add_layer_kind(type("Text", (ProgressBar,), {"TYPE": "text"}), progress_layout)
    with pytest.raises(ValueError, match="MAIN_FIELD"):
        tk.add_layer_kind(
            frozen(kw_only=True)(type("Odd", (ProgressBar,), {"TYPE": "odd", "MAIN_FIELD": "nope"})), progress_layout
        )
    with pytest.raises(TypeError, match="attrs class"):
        tk.add_layer_kind(int, progress_layout)  # type: ignore[arg-type]
