"""Loading templates from a path, JSON text, a dict, or a Template."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import attrs

from templatekit import jsontext
from templatekit.errors import TemplateError
from templatekit.model.reading import looks_like_json, parse_json, read_template_file, structure_template
from templatekit.model.template import Template

TemplateSource = Template | dict[str, Any] | str | os.PathLike[str]


def load_template(
    source: TemplateSource, *, strict: bool = False, base_dir: str | os.PathLike[str] | None = None
) -> Template:
    """A Template from a file path, JSON text, a dict, or a Template (returned as is).

    Relative ``src`` paths resolve against the template file's folder (or ``base_dir``).
    With ``strict``, unknown fields are errors; otherwise they are dropped and listed
    in ``template.load_warnings``. Raises ``TemplateError`` listing every problem.
    """
    if isinstance(source, Template):
        return source if base_dir is None else attrs.evolve(source, base_dir=Path(base_dir))
    folder = Path(base_dir) if base_dir is not None else None
    if isinstance(source, dict):
        data, name = source, "template"
        try:  # as JSON text may: reading deeper would overflow the stack
            jsontext.check_depth(source)
        except jsontext.JSONTextError as exc:
            raise TemplateError([str(exc)], name) from None
    elif isinstance(source, str) and looks_like_json(source):
        data, name = parse_json(source, "template"), "template"
    elif not isinstance(source, (str, os.PathLike)) or source == "":
        shown = type(source).__name__ if source != "" else "empty text"
        raise TemplateError([f"(template): a dict, JSON text or a file's path (got {shown})"], "template")
    else:
        path = Path(source)
        data, name = read_template_file(path), str(path)
        folder = folder or path.resolve().parent
    loaded = structure_template(data, strict=strict, source=name)
    return attrs.evolve(loaded.template, base_dir=folder, load_warnings=loaded.warnings)
