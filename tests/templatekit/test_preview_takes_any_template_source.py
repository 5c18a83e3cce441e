"""``tk.preview`` takes a template as every other function does (a path, a dict, JSON
text), or says what it got; not an AttributeError from inside."""

from __future__ import annotations

import json

import pytest

import templatekit as tk
from tests.conftest import layer, template

CARD = template(layer("text", "title", text="Hi"), width=1600, height=400)


def test_preview_takes_a_path_a_dict_and_json_text(tmp_path):
    path = tmp_path / "card.json"
    path.write_text(json.dumps(CARD))
    expected = tk.preview(tk.load_template(CARD)).data
    for source in (path, str(path), CARD, json.dumps(CARD)):
        shown = tk.preview(source)
        assert (shown.width, shown.height) == (800, 200) and shown.data == expected


def test_preview_of_what_is_no_template_is_a_template_error():
    with pytest.raises(tk.TemplateError, match="a dict, JSON text or a file's path"):
        tk.preview(None)
