"""Templates in notebooks: ``preview``, and the HTML a template shows itself as in
Jupyter (a preview and the table of its layers), registered with IPython's display
formatter so that the model knows nothing of rendering."""

from __future__ import annotations

import base64
import sys
from html import escape
from typing import Any

from templatekit.describe import suggest_input
from templatekit.errors import TemplatekitError
from templatekit.loading import TemplateSource, load_template
from templatekit.model.layers import AnyLayer, layer_paths
from templatekit.model.template import Template
from templatekit.outputs.result import RenderResult
from templatekit.render import render_image

PREVIEW_WIDTH = 800
SHOWN_WIDTH = 480
VALUE_CHARACTERS = 60


def preview(
    template: TemplateSource, modifications: Any = None, *, debug: bool = False, width: int = PREVIEW_WIDTH
) -> RenderResult:
    """A PNG of the template (a path, a dict, JSON text or a Template, as every render
    takes) with ``modifications``, at most ``width`` px wide; ``debug`` draws every
    layer's box and name on top."""
    loaded = load_template(template)  # its width sets the scale
    return render_image(loaded, modifications, debug=debug, scale=min(1.0, width / loaded.width))


def register_jupyter() -> None:
    """Show templates as ``template_html`` in the running IPython shell, if there is one."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None:
        shell.display_formatter.formatters["text/html"].for_type(Template, template_html)


def template_html(template: Template) -> str:
    """The template's name and size, a preview (or why there is none), and one row per
    layer, those in frames after their frame (they hold most of what a render changes):
    name, kind, box and its main value."""
    what = f"{template.width}×{template.height} px"
    if template.video is not None:
        what += f", {template.video.duration:g} s at {template.video.fps} fps"
    try:
        shown = preview(template, width=SHOWN_WIDTH)
        encoded = base64.b64encode(shown.data).decode("ascii")
        picture = f'<img src="data:image/png;base64,{encoded}" width="{shown.width}" alt="preview">'
    except TemplatekitError as exc:
        picture = f"<p><em>No preview: {escape(str(exc))}</em></p>"
    rows = "".join(
        "<tr>"
        f"<td>{index}</td><td><code>{escape(layer.name)}</code></td><td>{escape(layer.kind)}</td>"
        f"<td>{_box(layer)}</td>"
        f"<td>{escape(_short(suggest_input(layer)))}</td>"
        "</tr>"
        for index, (_, layer, _) in enumerate(layer_paths(template.layers))
    )
    header = "<tr><th>#</th><th>name</th><th>type</th><th>x, y, width × height</th><th>value</th></tr>"
    return (
        f"<div><strong>{escape(template.name)}</strong> ({what})<br>{picture}"
        f'<table style="font-size: 90%">{header}{rows}</table></div>'
    )


def _box(layer: AnyLayer) -> str:
    """x, y, width × height as the template gives them: a side that is "hug" or "fill"
    is said so (its number is a placeholder until a frame lays the layer out)."""
    width = f"{layer.width:g}" if layer.width_sizing == "fixed" else layer.width_sizing
    height = f"{layer.height:g}" if layer.height_sizing == "fixed" else layer.height_sizing
    return f"{layer.x:g}, {layer.y:g}, {width} × {height}"


def _short(text: str) -> str:
    return text if len(text) <= VALUE_CHARACTERS else text[: VALUE_CHARACTERS - 1] + "…"
