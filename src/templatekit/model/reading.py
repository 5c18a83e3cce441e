"""Template data read into the model: sizes measured first, then the converter, then the
checks; every problem of a file listed in one run, unknown fields kept aside as warnings."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError, IterableValidationError

from templatekit import jsontext
from templatekit.errors import TemplateError, listed
from templatekit.model import plotly_settings
from templatekit.model.convert import (
    Path_,
    as_json,
    converter,
    describe_error,
    format_path,
    iter_errors,
    model_problems,
)
from templatekit.model.layers import LAYER_KINDS, BarcodeLayer, QRCodeLayer, UnknownLayer, layer_paths
from templatekit.model.sizes import template_problems
from templatekit.model.template import Template


@attrs.frozen
class Loaded:
    template: Template
    warnings: tuple[str, ...]


def _node(data: Any, path: Path_) -> Any:
    for step in path:
        data = data[step]
    return data


def _remove(data: Any, path: Path_, keys: Iterable[str]) -> bool:
    """Delete keys of the object at ``path``; False if there is nothing to delete."""
    try:
        node = _node(data, path)
    except (KeyError, IndexError, TypeError):
        return False
    if not isinstance(node, dict):
        return False
    present = [key for key in keys if key in node]
    for key in present:
        del node[key]
    return bool(present)


def _stand_in(data: Any, path: Path_) -> bool:
    try:
        node = _node(data, path[:-1])
    except (KeyError, IndexError, TypeError):
        return False
    if not isinstance(node, dict) or path[-1] in node:
        return False
    node[path[-1]] = "1"  # reads as text, a source and a number alike
    return True


def structure_template(data: Any, *, strict: bool, source: str = "template") -> Loaded:
    """Structure and check template data; raise ``TemplateError`` listing every problem.

    ``strict`` makes unknown fields errors (``templatekit validate``); otherwise they
    are dropped with a warning, so that older renderers can read newer files. ``strict``
    also refuses codes whose colours a scanner may not read (renders warn of them). A field
    that cannot be read is reported and removed, and the rest is read again, so that
    one run lists the problems of the whole file.
    """
    if not isinstance(data, dict):
        raise TemplateError([f"(template): must be a JSON object (got {type(data).__name__})"], source)
    oversized = template_problems(data)
    if oversized:  # refused by sizes alone, before anything is copied or read
        raise TemplateError(oversized, source)
    try:
        data = json.loads(json.dumps(data, default=as_json))  # a private copy: reading edits it
    except (TypeError, ValueError) as exc:
        raise TemplateError([f"(template): must be JSON data ({exc})"], source) from None
    problems: dict[str, str] = {}
    warnings: list[str] = [*_migrate_charts(data), *_unused_positions(data.get("layers"), "layers")]
    template: Template | None = None
    while template is None:
        try:
            template = converter.structure(data, Template)
        except (ClassValidationError, IterableValidationError) as exc:
            if not _set_aside(data, exc, strict, problems, warnings):
                raise TemplateError(list(problems.values()), source, warnings) from None
    for path, layer, _ in layer_paths(template.layers):  # frames' layers too
        if isinstance(layer, UnknownLayer):
            kinds = ", ".join(LAYER_KINDS)
            if strict:
                problems[f"{path}.type"] = f"{path}.type: must be one of {kinds} (got {layer.kind!r})"
            else:
                warnings.append(f"{path}: unknown layer type {layer.kind!r}; kept but not drawn")
    for problem in model_problems(template):
        problems.setdefault(problem.split(": ", 1)[0], problem)
    if strict:
        for index, layer in enumerate(template.layers):
            unreadable = layer.scan_problem() if isinstance(layer, (BarcodeLayer, QRCodeLayer)) else None
            if unreadable:
                problems.setdefault(f"layers[{index}].color", f"layers[{index}].color: may not scan: {unreadable}")
    if problems:
        raise TemplateError(list(problems.values()), source, warnings)
    return Loaded(template, tuple(listed(warnings, "warnings")))


def _unused_positions(layers: Any, at: str) -> list[str]:
    """A warning for each ``x`` or ``y`` of a layer in a row or column frame: the frame
    places its layers one after another, so these are not used."""
    found: list[str] = []
    if not isinstance(layers, list):
        return found
    for index, layer in enumerate(layers):
        if not isinstance(layer, dict):
            continue
        path = f"{at}[{index}]"
        layout = layer.get("layout")
        children = layer.get("layers")
        if layer.get("type") == "frame" and layout in ("row", "column") and isinstance(children, list):
            for number, child in enumerate(children):
                given = [key for key in ("x", "y") if isinstance(child, dict) and key in child]
                if given:
                    where = f"{path}.layers[{number}]"
                    found.append(f"{where}: {' and '.join(given)} not used: a {layout} frame places its layers itself")
        if layer.get("type") == "frame":
            found.extend(_unused_positions(children, f"{path}.layers"))
    return found


def _migrate_charts(data: dict[str, Any]) -> list[str]:
    """Charts' ``plotly`` settings read as chart fields; the warnings of those left out."""
    warnings: list[str] = []
    layers = data.get("layers")
    for index, layer in enumerate(layers if isinstance(layers, list) else []):
        if isinstance(layer, dict) and layer.get("type") == "chart" and plotly_settings.FIELD in layer:
            chart_type = layer.get("chartType", "bar")
            warnings += plotly_settings.migrate(layer, str(chart_type), f"layers[{index}]")
    return warnings


def _set_aside(data: Any, exc: BaseException, strict: bool, problems: dict[str, str], warnings: list[str]) -> bool:
    """Record the errors of one reading and remove what caused them; False when
    nothing could be removed (the same errors would come back)."""
    progressed = False
    for path, error in iter_errors(exc):
        if isinstance(error, ForbiddenExtraKeysError):
            extra = sorted(error.extra_fields)
            if strict:
                problems.setdefault(f"{format_path(path)}:extra", f"{format_path(path)}: {describe_error(error)}")
            else:
                warnings.extend(f"{format_path((*path, key))}: unknown field ignored" for key in extra)
            progressed |= _remove(data, path, extra)
            continue
        where = format_path(path)
        if where in problems:
            # A required field whose bad value was removed comes back missing: a
            # stand-in lets the rest of the file be read (its problem is listed).
            if isinstance(error, KeyError) and path and isinstance(path[-1], str):
                progressed |= _stand_in(data, path)
            continue
        problems[where] = f"{where}: {describe_error(error)}"
        if path and isinstance(path[-1], str):
            progressed |= _remove(data, path[:-1], [path[-1]])
    return progressed


def parse_json(text: str, source: str) -> Any:
    try:
        return jsontext.parse(text, pairs_hook=jsontext.unique_fields)
    except jsontext.JSONTextError as exc:
        raise TemplateError([f"(json): {exc}"], source) from None


def read_template_file(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte order mark, as editors on Windows write, is no text
    except OSError as exc:
        raise TemplateError([f"(file): cannot read {path}: {exc.strerror}"], str(path)) from None
    except UnicodeDecodeError as exc:
        byte = f"byte 0x{exc.object[exc.start]:02x} at offset {exc.start}"
        problem = f"(file): {path} is not UTF-8 text ({byte}); save it as UTF-8"
        raise TemplateError([problem], str(path)) from None
    return parse_json(text, str(path))


def looks_like_json(text: str) -> bool:
    return bool(re.match(r"\s*[{\[]", text))
