"""A table whose rows continue on more pages keeps its mask on every page, in every
renderer, as the PNG shows it; a table drawn only as another layer's mask does not
continue: it masks as its first rows, on one page."""

from __future__ import annotations

import json

import pytest

import templatekit as tk
from tests import pdf_readers
from tests.conftest import layer, template

RENDERERS = list(pdf_readers.RENDERERS)
MEAN_LIMIT = 5.0  # the limits of test_readers.py
LOCAL_LIMIT = 40
ROWS = [{"item": f"Item {i:02d}", "qty": i} for i in range(1, 31)]  # three rows a page: ten pages
TABLE = {"x": 20, "y": 20, "width": 300, "height": 150}
MASKS = {
    "shape": [layer("table", "tb", **TABLE, rows=ROWS, mask={"shape": "ellipse"})],
    "layer": [
        layer("shape", "m", **{**TABLE, "height": 100}, shape="ellipse"),
        layer("table", "tb", **TABLE, rows=ROWS, mask={"layer": "m"}),
    ],
}


def design(case: str, rows: list[dict]) -> dict:
    layers = [{**each, "rows": rows} if each["type"] == "table" else each for each in MASKS[case]]
    return template(*layers, width=400, height=200, background="#ffffff")


def pages_in(renderer: str, pdf: bytes) -> list:
    if not pdf_readers.available(renderer):
        pytest.skip(f"{renderer} is not installed")
    return pdf_readers.rasterise(pdf, renderer)


@pytest.mark.parametrize("renderer", RENDERERS)
@pytest.mark.parametrize("case", list(MASKS))
def test_a_masked_table_is_masked_on_every_page(case, renderer):
    """Page 1 as the PNG of the design, page 2 as the PNG of its own rows: both masked
    (the pages once showed the whole table, unmasked: LOCAL 65 to 78 in every reader)."""
    pdf = tk.render_pdf(tk.load_template(json.dumps(design(case, ROWS))))
    assert pdf.pages == 10
    pages = pages_in(renderer, pdf.data)
    for number, rows in ((0, ROWS), (1, ROWS[3:6])):
        png = tk.render_image(tk.load_template(json.dumps(design(case, rows)))).data
        mean, local = pdf_readers.difference(pages[number], pdf_readers.flatten(png))
        assert mean <= MEAN_LIMIT and local <= LOCAL_LIMIT, f"page {number + 1}: mean {mean:.2f}, local {local}"


def test_a_table_drawn_only_as_a_mask_makes_one_page():
    """Its rows that do not fit are not drawn: ten pages of the same picture once."""
    photo = layer("shape", "photo", x=0, y=0, width=400, height=200, fill="#2563eb", mask={"layer": "tb"})
    design = template(layer("table", "tb", **TABLE, rows=ROWS), photo, width=400, height=200)
    pdf = tk.render_pdf(tk.load_template(json.dumps(design)))
    assert pdf.pages == 1
    png = tk.render_image(tk.load_template(json.dumps(design))).data
    for renderer in RENDERERS:
        if pdf_readers.available(renderer):
            mean, local = pdf_readers.difference(pages_in(renderer, pdf.data)[0], pdf_readers.flatten(png))
            assert mean <= MEAN_LIMIT and local <= LOCAL_LIMIT, f"{renderer}: mean {mean:.2f}, local {local}"
