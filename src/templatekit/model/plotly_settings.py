"""The ``plotly`` field of earlier charts, read as the engine's own chart settings.

A chart with Plotly layout settings used to be drawn by Plotly; the engine draws it now.
The settings the engine has an equivalent for become its fields when a template or a
modification is read (they win over the layer's own fields, as they did in Plotly), and
every other setting is ignored, named in a warning, so that stored templates keep
rendering and say what they lost.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from templatekit.model.values import Color
from templatekit.numbers import FormatError, NumberFormat

FIELD = "plotly"
#: The axis that carries values, by chart type (pies have none).
VALUE_AXIS = {"bar": "yaxis", "line": "yaxis", "area": "yaxis", "scatter": "yaxis", "horizontalBar": "xaxis"}
#: Plotly's bar modes that the engine draws: stacked or side by side.
BAR_MODES = {"stack": True, "relative": True, "group": False}
BARS = ("bar", "horizontalBar")
#: The value-axis settings that make up a ``valueFormat``.
NUMBER_KEYS = ("tickformat", "tickprefix", "ticksuffix", "separatethousands")


def migrate(fields: dict[str, Any], chart_type: str, where: str) -> list[str]:
    """Replace ``fields[FIELD]`` (a chart layer's or a modification's fields, by JSON
    name) by the native fields it stands for; the warnings of the settings left out."""
    settings = fields.pop(FIELD, None)
    if settings is None:
        return []
    if not isinstance(settings, dict):
        return [f"{where}.{FIELD}: must be an object of Plotly layout settings; ignored"]
    native: dict[str, Any] = {}
    ignored = list(_read(settings, chart_type, native))
    fields.update(native)
    return [f"{where}.{FIELD}.{path}: {_REASON}; ignored" for path in ignored]


_REASON = "charts have no such setting (Plotly draws whole figures only)"


def _read(settings: dict[str, Any], chart_type: str, native: dict[str, Any]) -> Iterator[str]:
    """Fill ``native`` from ``settings``; yield the paths of the settings left out."""
    axis = VALUE_AXIS.get(chart_type)
    for key, value in settings.items():
        if key == "title":
            yield from _title(value, native)
        elif key == "showlegend" and isinstance(value, bool):
            native["legend"] = value
        elif key == "colorway" and _colours(value):
            native["colors"] = list(value)
        elif key == "barmode" and chart_type in BARS and value in BAR_MODES:
            native["stacked"] = BAR_MODES[value]
        elif key == "font" and isinstance(value, dict):
            yield from _font(value, native)
        elif key == axis and isinstance(value, dict):
            yield from _value_axis(value, axis, native)
        else:
            yield key


def _title(value: Any, native: dict[str, Any]) -> Iterator[str]:
    """``"title": "…"`` or ``{"text": "…"}``; its font and placement are the engine's."""
    if isinstance(value, str):
        native["title"] = value
        return
    if not isinstance(value, dict):
        yield "title"
        return
    for key, item in value.items():
        if key == "text" and isinstance(item, str):
            native["title"] = item
        else:
            yield f"title.{key}"


def _font(value: dict[str, Any], native: dict[str, Any]) -> Iterator[str]:
    """The family of all text (the first of a CSS list); sizes and colours are the engine's."""
    for key, item in value.items():
        family = item.split(",")[0].strip().strip("\"'") if key == "family" and isinstance(item, str) else ""
        if family:
            native["font"] = family
        else:
            yield f"font.{key}"


def _value_axis(value: dict[str, Any], axis: str, native: dict[str, Any]) -> Iterator[str]:
    """How the value axis writes numbers, as a ``valueFormat``; the rest of the axis is
    the engine's."""
    for key in value:
        if key not in NUMBER_KEYS:
            yield f"{axis}.{key}"
    number = {key: value[key] for key in NUMBER_KEYS if key in value}
    text = _value_format(number)
    if text is not None:
        native["valueFormat"] = text
    elif number != {"separatethousands": True}:  # thousands separators are the default
        yield from (f"{axis}.{key}" for key in number)


def _value_format(number: dict[str, Any]) -> str | None:
    """``tickformat`` (d3-format, within the engine's ``[$][,][.N][f|d|%|s]``) between
    ``tickprefix`` and ``ticksuffix``; None when there is none or the engine cannot
    write it. Without ``tickformat`` numbers are whole, with thousands separators unless
    ``separatethousands`` is false (Plotly's separators, which the engine's charts had)."""
    if not {"tickformat", "tickprefix", "ticksuffix"} & number.keys():
        return None
    spec, prefix, suffix = (number.get(key, "") for key in ("tickformat", "tickprefix", "ticksuffix"))
    if not all(isinstance(part, str) for part in (spec, prefix, suffix)):
        return None
    if number.get("separatethousands", not spec):
        sign = "$" if spec.startswith("$") else ""
        spec = sign + ("" if spec[len(sign) :].startswith(",") else ",") + spec[len(sign) :]
    text = f"{prefix}{{{spec}}}{suffix}" if prefix or suffix else spec
    try:
        NumberFormat.parse(text)
    except FormatError:
        return None
    return text


def _colours(value: Any) -> bool:
    """Whether ``value`` is a list of colours the format reads."""
    if not isinstance(value, list) or not value:
        return False
    try:
        for item in value:
            Color.parse(item)
    except (ValueError, TypeError):
        return False
    return True
