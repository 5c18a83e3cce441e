"""Template details: what a client needs to build modifications for a template."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from templatekit.loading import TemplateSource, load_template
from templatekit.model.convert import converter
from templatekit.model.layers import Layer, UnknownLayer, layer_paths


def describe(template: TemplateSource) -> dict[str, Any]:
    """``{name, id, layers: [{name, id, type, suggestInput, path}]}`` of a template: every
    layer, those in frames after their frame, each with its path (``layers[0].layers[1]``).

    Ids are the template's own when it has them; otherwise they are derived from
    names, so that they stay the same from one load to the next.
    """
    loaded = load_template(template)
    return {
        "name": loaded.name,
        "id": loaded.id or f"tpl_{_slug(loaded.name)}",
        "layers": [
            {
                "name": layer.name,
                "id": layer_id(layer),
                "type": layer.kind,
                "suggestInput": suggest_input(layer),
                "path": path,
            }
            for path, layer, _ in layer_paths(loaded.layers)
        ],
    }


def layer_id(layer: Layer) -> str:
    """The layer's ``id``, or one derived from its name (names are unique in a template)."""
    return layer.id or "lyr_" + hashlib.sha256(layer.name.encode("utf-8")).hexdigest()[:12]


def suggest_input(layer: Layer) -> str:
    """The layer's ``suggestInput``, or a sample of its main field as text: its text, its
    src, its code, its rating, or the JSON text of its rows."""
    if layer.suggest_input is not None:
        return layer.suggest_input
    if isinstance(layer, UnknownLayer) or layer.MAIN_FIELD is None:
        return ""
    value = converter.unstructure(getattr(layer, layer.MAIN_FIELD))
    if value is None:  # a shape without a fill: nothing to suggest, not the text "null"
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "template"
