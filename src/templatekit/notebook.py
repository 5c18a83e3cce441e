"""How templates show themselves in Jupyter: a preview and the table of their layers."""

from __future__ import annotations

import base64
from html import escape

from templatekit.describe import suggest_input
from templatekit.errors import TemplatekitError
from templatekit.model.template import Template

PREVIEW_WIDTH = 480
VALUE_CHARACTERS = 60


def template_html(template: Template) -> str:
    """The template's name and size, a preview (or why there is none), and one row per
    layer: name, kind, box and its main value."""
    what = f"{template.width}×{template.height} px"
    if template.video is not None:
        what += f", {template.video.duration:g} s at {template.video.fps} fps"
    try:
        preview = template.preview(width=PREVIEW_WIDTH)
        encoded = base64.b64encode(preview.data).decode("ascii")
        picture = f'<img src="data:image/png;base64,{encoded}" width="{preview.width}" alt="preview">'
    except TemplatekitError as exc:
        picture = f"<p><em>No preview: {escape(str(exc))}</em></p>"
    rows = "".join(
        "<tr>"
        f"<td>{index}</td><td><code>{escape(layer.name)}</code></td><td>{escape(layer.kind)}</td>"
        f"<td>{_box(layer.x, layer.y, layer.width, layer.height)}</td>"
        f"<td>{escape(_short(suggest_input(layer)))}</td>"
        "</tr>"
        for index, layer in enumerate(template.layers)
    )
    header = "<tr><th>#</th><th>name</th><th>type</th><th>x, y, width × height</th><th>value</th></tr>"
    return (
        f"<div><strong>{escape(template.name)}</strong> ({what})<br>{picture}"
        f'<table style="font-size: 90%">{header}{rows}</table></div>'
    )


def _box(x: float, y: float, width: float, height: float) -> str:
    return f"{x:g}, {y:g}, {width:g} × {height:g}"


def _short(text: str) -> str:
    return text if len(text) <= VALUE_CHARACTERS else text[: VALUE_CHARACTERS - 1] + "…"
