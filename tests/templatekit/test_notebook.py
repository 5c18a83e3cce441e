"""The example notebook runs from top to bottom, and templates and results show
themselves in it."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

pytest.importorskip("nbformat")
pytest.importorskip("nbclient")

import nbformat
from nbclient import NotebookClient

import templatekit as tk
from templatekit.notebook import template_html
from tests.conftest import decode, layer, template

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_example_notebook_runs_and_shows_its_renders():
    notebook = nbformat.read(EXAMPLES / "design-a-template.ipynb", as_version=4)
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(EXAMPLES)}}
    ).execute()
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert not [output for output in outputs if output.output_type == "error"]
    pictures = [output for output in outputs if "image/png" in output.get("data", {})]
    tables = [output for output in outputs if "<table" in output.get("data", {}).get("text/html", "")]
    assert len(pictures) >= 5 and len(tables) == 2
    printed = "".join(output.get("text", "") for output in outputs if output.output_type == "stream")
    assert "nickname" in printed and "sunset-ish" in printed and "%PDF" in printed


def test_a_template_shows_a_preview_and_its_layers():
    loaded = tk.load_template(template(layer("text", "title", text="Hi <there>"), layer("shape", "box", fill="#f00")))
    html = template_html(loaded)
    assert html.count("<tr>") == 3 and "<code>title</code>" in html and "Hi &lt;there&gt;" in html
    assert 'src="data:image/png;base64,' in html


def test_a_template_without_a_preview_says_why():
    broken = tk.load_template(template(layer("image", "photo", src="missing.png")))
    assert "No preview: " in template_html(broken) and "missing.png" in template_html(broken)


def test_preview_fits_a_notebook_and_can_show_the_boxes():
    loaded = tk.load_template(template(layer("text", "title", text="Hi"), width=1600, height=400))
    plain, debug = tk.preview(loaded), tk.preview(loaded, debug=True)
    assert (plain.width, plain.height) == (800, 200) == (debug.width, debug.height)
    assert decode(plain.data).tobytes() != decode(debug.data).tobytes()
    assert plain._repr_png_() == plain.data
