"""The one cattrs converter between JSON data and the model classes.

JSON keys are camelCase, attribute names snake_case; the converter renames them for
every attrs class. Errors come out as ``path: message`` lines, e.g.
``layers[3].size: must be a positive number (got -4)``.
"""

from __future__ import annotations

import json
import math
import re
import reprlib
import typing
from collections.abc import Callable, Iterable, Iterator
from itertools import islice, repeat
from typing import Any, Literal, Union

import attrs
from cattrs import Converter
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError, IterableValidationError, IterableValidationNote
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from templatekit.jsontext import format_path
from templatekit.model.checks import Check
from templatekit.model.layers import (
    LAYER_KINDS,
    AnyLayer,
    CellValue,
    ChartPoint,
    ChartSeries,
    Column,
    Layer,
    PlotlyFigure,
    UnknownLayer,
)
from templatekit.model.template import BackgroundImage, Template
from templatekit.model.values import (
    CellText,
    Color,
    Gradient,
    Insets,
    Length,
    Source,
    cell_text,
    number_as_text,
    number_text,
)

Path_ = tuple[str | int, ...]


def json_name(attribute: str) -> str:
    """``line_height`` -> ``lineHeight``; ``from_`` -> ``from``; ``_debug`` -> ``_debug``
    (an interface field whose name begins with an underscore)."""
    lead = "_" if attribute.startswith("_") else ""
    head, *rest = attribute.strip("_").split("_")
    return lead + head + "".join(part.title() for part in rest)


def ignores_extra_fields(cls: type) -> bool:
    """Whether JSON fields ``cls`` does not have are ignored rather than refused: request
    bodies of the HTTP interface, whose clients may send more than a version reads."""
    return bool(getattr(cls, "EXTRA_FIELDS_IGNORED", False))


class FieldError(ValueError):
    """A value error that belongs to a sub-field of the value being structured."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(message)


def _number(value: Any, kind: type) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"must be a number (got {shown_value(value)})")
    try:
        number = number_text(value) if isinstance(value, str) else float(value)
    except ValueError:
        raise ValueError(f"must be a number (got {shown_value(value)})") from None
    except OverflowError:
        raise ValueError(f"must be a number of at most 1e308 (got {shown_value(value)})") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError(f"must be a finite number (got {shown_value(value)})")
    if kind is int:
        if number != int(number):
            raise ValueError(f"must be a whole number (got {shown_value(value)})")
        return int(number)
    return number


class _Glimpse(reprlib.Repr):
    """A repr of the first few items and characters of a value, at a cost that does not
    grow with its size (reprlib's sorts a dict's keys first)."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel, self.maxdict, self.maxlist, self.maxtuple, self.maxstring = 2, 3, 4, 4, 60

    def repr_dict(self, value: dict[Any, Any], level: int) -> str:
        if level <= 0:
            return "{...}"
        shown = [f"{self.repr1(k, level - 1)}: {self.repr1(v, level - 1)}" for k, v in islice(value.items(), 3)]
        return "{" + ", ".join(shown) + (", ...}" if len(value) > 3 else "}")


_GLIMPSE = _Glimpse()


def shown_value(value: Any, limit: int = 40) -> str:
    """``value`` as messages show it: its repr, shortened (made from its first items and
    characters only); an integer too long to print (Python refuses over 4,300 digits) by
    its number of digits."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value).bit_length() > 128:
        return f"an integer of about {abs(value).bit_length() * math.log10(2):,.0f} digits"
    text = _GLIMPSE.repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _bool(value: Any, _: type) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if value in (0, 1) and not isinstance(value, float):
        return bool(value)
    raise ValueError(f"must be true or false (got {shown_value(value)})")


#: Half of a character that UTF-16 writes as two (JSON's "\\ud800" alone): no font draws
#: it, and neither UTF-8 nor a PDF or a QR code can hold it.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _unicode(value: str) -> str:
    """``value``, which must be Unicode text (ValueError naming a lone surrogate)."""
    if not value.isascii():
        found = _LONE_SURROGATE.search(value)
        if found is not None:
            raise ValueError(
                f"must be Unicode text: character {found.start() + 1} is U+{ord(found.group()):04X}, half of a"
                " character cut in two (a lone surrogate)"
            )
    return value


def _str(value: Any, _: type) -> str:
    if isinstance(value, str):
        return _unicode(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number_as_text(value)
    raise ValueError(f"must be a string (got {shown_value(value)})")


def _cell_text(value: Any, _: type) -> str:
    if isinstance(value, str):
        return _unicode(value)
    if value is None or isinstance(value, (int, float, bool)):
        return cell_text(value)
    raise ValueError(f"must be a string, number, boolean or null (got {shown_value(value)})")


def _source(value: Any, _: type) -> str:
    if isinstance(value, str):
        return _unicode(value)
    raise ValueError(f"must be a URL, a data URI or a file path, as text (got {shown_value(value)})")


def _color(value: Any, _: type) -> Color:
    if not isinstance(value, str):
        raise ValueError(f"must be a colour string (got {shown_value(value)})")
    return Color.parse(value)


def _is_literal(tp: Any) -> bool:
    return typing.get_origin(tp) is Literal


def _literal(value: Any, tp: Any) -> Any:
    choices = typing.get_args(tp)
    if value not in choices:
        raise ValueError(f"must be one of {', '.join(map(str, choices))} (got {shown_value(value)})")
    return value


def _paint(value: Any, _: Any) -> Color | Gradient:
    if isinstance(value, dict):
        return converter.structure(value, Gradient)
    return _color(value, Color)


def _number_or_colour(value: Any, _: Any) -> float | Color:
    """A keyframe's value: a number, or a colour as text (which of the two its property
    takes is the animation's check)."""
    if not isinstance(value, str):
        return _number(value, float)
    try:
        return _color(value, Color)
    except ValueError:
        raise ValueError(f"must be a number, or a colour as text (got {value!r})") from None


def _background(value: Any, _: Any) -> Color | Gradient | BackgroundImage | None:
    """A colour, a gradient (``from`` and ``to``) or an image (``src``)."""
    if value is None:
        return None
    if isinstance(value, dict) and "src" in value:
        return converter.structure(value, BackgroundImage)
    if isinstance(value, dict) and not {"from", "to"} & set(value):
        raise ValueError(
            f'must be a colour, a gradient {{"from": …, "to": …}} or an image {{"src": …}} (got {shown_value(value)})'
        )
    return _paint(value, None)


def _cell(value: Any, _: Any) -> CellValue:
    if isinstance(value, str):
        return _unicode(value)
    if value is None or isinstance(value, (int, float, bool)):
        return value
    raise ValueError(f"a cell must be a string, number, boolean or null (got {shown_value(value)})")


def _row(value: Any, _: Any) -> dict[str, CellValue]:
    if not isinstance(value, dict):
        raise ValueError(f"a row must be an object of column keys and cells (got {shown_value(value)})")
    return {_unicode(str(key)): _cell(cell, CellValue) for key, cell in value.items()}


def _chart_rows(value: Any, _: Any) -> tuple[ChartPoint, ...] | tuple[ChartSeries, ...]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"must be a list (got {shown_value(value)})")
    if value and isinstance(value[0], dict) and "data" in value[0]:
        return converter.structure(value, tuple[ChartSeries, ...])
    return converter.structure(value, tuple[ChartPoint, ...])


def as_json(value: Any) -> Any:
    """Objects that say how they are written as JSON (a Plotly figure in Python)."""
    if callable(getattr(value, "to_json", None)):
        return json.loads(value.to_json())
    raise TypeError(f"{type(value).__name__} is not JSON data")


def _figure(value: Any, _: Any) -> PlotlyFigure:
    """A Plotly figure as JSON: given as JSON, or in Python as a figure object (whatever
    has ``to_json``, as ``plotly.graph_objects.Figure`` does)."""
    if not isinstance(value, dict) and callable(getattr(value, "to_json", None)):
        value = as_json(value)
    if not isinstance(value, dict):
        raise ValueError(f"must be a Plotly figure: an object with 'data' and 'layout' (got {shown_value(value, 80)})")
    unknown = sorted(set(value) - {"data", "layout", "frames", "config"})
    if unknown:
        raise ValueError(f"a Plotly figure has data, layout and config (unknown: {', '.join(unknown)})")
    if not isinstance(value.get("data", []), list) or not isinstance(value.get("layout", {}), dict):
        raise ValueError("a Plotly figure's data must be a list of traces and its layout an object")
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"a Plotly figure must be plain JSON data ({exc})") from None
    return PlotlyFigure(value)


#: Items of one list whose errors are listed: reading stops at the next bad one, so that a
#: million bad items cost what ten do.
MAX_ITEM_ERRORS = 10


def _is_tuple(kind: Any) -> bool:
    return typing.get_origin(kind) is tuple and bool(typing.get_args(kind))


def _tuple(value: Any, kind: Any) -> tuple[Any, ...]:
    """A list as a tuple of its item type (``tuple[X, ...]``) or of so many items
    (``tuple[X, Y]``), each item read by its own hook; reading stops after
    ``MAX_ITEM_ERRORS`` bad items."""
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"must be a list (got {shown_value(value)})")
    args = typing.get_args(kind)
    if args[-1] is Ellipsis:
        item_types: Iterable[Any] = repeat(args[0])
    elif len(value) != len(args):
        raise ValueError(f"must have {len(args)} items (got {len(value):,})")
    else:
        item_types = args
    items, errors = [], []
    for index, (item, item_type) in enumerate(zip(value, item_types, strict=False)):
        try:
            items.append(converter.structure(item, item_type))
        except Exception as exc:  # noqa: BLE001 - collected as cattrs collects them, each with its index
            note = IterableValidationNote(f"@ index {index}", index, item_type)
            exc.__notes__ = [*getattr(exc, "__notes__", []), note]
            errors.append(exc)
            if len(errors) == MAX_ITEM_ERRORS and index + 1 < len(value):
                errors.append(ValueError(f"reading stopped after {MAX_ITEM_ERRORS} items that could not be read"))
                break
    if errors:
        raise IterableValidationError(f"While structuring {kind!r}", errors, kind)
    return tuple(items)


def _column(value: Any, _: Any) -> Column:
    if isinstance(value, str):
        return Column(key=value, header=value)
    if not isinstance(value, dict):
        raise ValueError(f"a column must be its key, or an object with a key (got {shown_value(value)})")
    return _column_object(value, Column)


def _layer(value: Any, _: Any) -> AnyLayer:
    """A layer of its kind; one of a kind this version does not know is kept whole, and
    ``structure_template`` decides whether that is a problem (strict) or a warning."""
    if not isinstance(value, dict):
        raise ValueError(f"a layer must be an object (got {shown_value(value)})")
    kind = value.get("type")
    if isinstance(kind, str) and kind and kind not in LAYER_KINDS:
        return _unknown_layer(kind, value)
    if not isinstance(kind, str) or not kind:
        raise FieldError("type", f"must be one of {', '.join(LAYER_KINDS)} (got {shown_value(kind)})")
    return converter.structure(_with_size_modes(kind, value), LAYER_KINDS[kind])


#: What ``width`` and ``height`` may say instead of a number.
SIZE_WORDS = ("hug", "fill")


def _with_size_modes(kind: str, value: dict[str, Any]) -> dict[str, Any]:
    """A layer's fields as its class takes them: a ``"hug"`` or ``"fill"`` width or height
    is a mode (the number comes from the frame the layer is in); children of a row or
    column frame need no ``x`` and ``y``."""
    fields = {k: v for k, v in value.items() if k != "type"}
    for side in ("width", "height"):
        mode_key = f"{side}Sizing"
        if mode_key in fields:
            raise FieldError(mode_key, f'is not a field: write "{side}": "hug" or "fill"')
        if fields.get(side) in SIZE_WORDS:
            fields[mode_key] = fields[side]
            fields[side] = 1.0
    children = fields.get("layers")
    if kind == "frame" and fields.get("layout") in ("row", "column") and isinstance(children, list):
        fields["layers"] = [{"x": 0, "y": 0, **child} if isinstance(child, dict) else child for child in children]
    return fields


def _unknown_layer(kind: str, value: dict[str, Any]) -> UnknownLayer:
    name = value.get("name")
    return UnknownLayer(
        name=name if isinstance(name, str) and name.strip() else f"({kind})",
        x=0,
        y=0,
        width=1,
        height=1,
        visible=False,
        type_name=kind,
        data={k: v for k, v in value.items() if k != "type"},
    )


def _make_converter() -> Converter:
    conv = Converter(forbid_extra_keys=True, detailed_validation=True)
    for kind in (int, float):
        conv.register_structure_hook(kind, _number)
    conv.register_structure_hook(bool, _bool)
    conv.register_structure_hook(str, _str)
    conv.register_structure_hook(Source, _source)
    conv.register_structure_hook(CellText, _cell_text)
    conv.register_structure_hook(Color, _color)
    conv.register_unstructure_hook(Color, lambda c: c.hex)
    conv.register_structure_hook(Insets, lambda v, _: Insets.parse(_insets_input(v)))
    conv.register_unstructure_hook(Insets, lambda i: [i.top, i.right, i.bottom, i.left])
    conv.register_structure_hook(Length, lambda v, _: Length.parse(_length_input(v)))
    conv.register_unstructure_hook(Length, lambda n: f"{n.value:g}%" if n.percent else n.value)
    conv.register_structure_hook_func(_is_literal, _literal)
    conv.register_structure_hook_func(_is_tuple, _tuple)
    conv.register_structure_hook(Union[Color, Gradient], _paint)
    conv.register_structure_hook(Union[Color, Gradient, None], lambda v, _: None if v is None else _paint(v, _))
    conv.register_structure_hook(CellValue, _cell)
    conv.register_structure_hook_func(lambda kind: kind == dict[str, CellValue], _row)
    conv.register_structure_hook(Union[tuple[ChartPoint, ...], tuple[ChartSeries, ...]], _chart_rows)
    conv.register_structure_hook(Column, _column)
    conv.register_structure_hook(PlotlyFigure, _figure)
    conv.register_structure_hook(AnyLayer, _layer)
    conv.register_structure_hook(Union[Color, Gradient, BackgroundImage, None], _background)
    conv.register_structure_hook(Union[float, Color], _number_or_colour)

    def structure_factory(cls: type) -> Any:
        renames: dict[str, Any] = {a.name: override(rename=json_name(a.name)) for a in attrs.fields(cls)}
        if cls is Template:
            renames.update(base_dir=override(omit=True), load_warnings=override(omit=True))
        structure: Callable[[Any, Any], Any] = make_dict_structure_fn(
            cls, conv, _cattrs_forbid_extra_keys=not ignores_extra_fields(cls), **renames
        )

        def objects_only(value: Any, kind: type) -> Any:
            if not isinstance(value, dict):
                raise ValueError(f"must be an object (got {shown_value(value)})")
            return structure(value, kind)

        return objects_only

    def unstructure_factory(cls: type) -> Any:
        renames: dict[str, Any] = {a.name: override(rename=json_name(a.name)) for a in attrs.fields(cls)}
        if cls is Template:
            renames.update(base_dir=override(omit=True), load_warnings=override(omit=True))
        if cls is UnknownLayer:
            return lambda layer: {"type": layer.type_name, **layer.data}
        unstructure: Callable[[Any], dict[str, Any]] = make_dict_unstructure_fn(
            cls, conv, _cattrs_omit_if_default=True, **renames
        )
        if not issubclass(cls, Layer):
            return unstructure
        return lambda layer: _size_words({"type": layer.TYPE, **unstructure(layer)})

    conv.register_structure_hook_factory(attrs.has, structure_factory)
    conv.register_unstructure_hook_factory(attrs.has, unstructure_factory)
    return conv


def _size_words(layer: dict[str, Any]) -> dict[str, Any]:
    """A layer's JSON with its size modes written as its ``width`` and ``height``; the
    layers of a row or column frame without ``x`` and ``y`` (the frame places them)."""
    for side in ("width", "height"):
        mode = layer.pop(f"{side}Sizing", None)
        if mode is not None:
            layer[side] = mode
    if layer.get("type") == "frame" and layer.get("layout") in ("row", "column"):
        layer["layers"] = [{k: v for k, v in child.items() if k not in ("x", "y")} for child in layer.get("layers", [])]
    return layer


def _insets_input(value: Any) -> float | list[float]:
    if isinstance(value, list):
        return [_number(v, float) for v in value]
    return _number(value, float)


def _length_input(value: Any) -> float | str:
    if isinstance(value, str):
        return value
    return _number(value, float)


converter = _make_converter()
_column_renames: dict[str, Any] = {a.name: override(rename=json_name(a.name)) for a in attrs.fields(Column)}
_column_object = make_dict_structure_fn(Column, converter, **_column_renames)


# ---------------------------------------------------------------- error reporting


def iter_errors(exc: BaseException, path: Path_ = ()) -> Iterator[tuple[Path_, BaseException]]:
    """Flatten cattrs' nested exception groups into (path, leaf exception) pairs."""
    if isinstance(exc, (ClassValidationError, IterableValidationError)):
        with_notes, without_notes = exc.group_exceptions()
        for inner, note in with_notes:
            step = note.name if hasattr(note, "name") else note.index
            if isinstance(step, str):
                step = json_name(step)
            yield from iter_errors(inner, (*path, step))
        for inner in without_notes:
            yield from iter_errors(inner, path)
    elif isinstance(exc, FieldError):
        yield (*path, exc.field), exc
    else:
        yield path, exc


def describe_error(exc: BaseException) -> str:
    if isinstance(exc, ForbiddenExtraKeysError):
        return f"unknown field(s): {', '.join(sorted(exc.extra_fields))}"
    if isinstance(exc, KeyError):
        return "is required"
    if isinstance(exc, (ValueError, TypeError)):
        text = str(exc)
        if "object is not iterable" in text or "must be a mapping" in text:
            return "has the wrong type"
        return text
    return f"is invalid ({exc.__class__.__name__}: {exc})"


def error_lines(exc: BaseException, prefix: Path_ = ()) -> list[str]:
    return [f"{format_path((*prefix, *p))}: {describe_error(e)}" for p, e in iter_errors(exc)]


def model_problems(obj: Any, path: Path_ = ()) -> Iterator[str]:
    """Every failed field check and cross-field check of a structured object tree."""
    fields = _checked_fields(type(obj))
    if fields is not None:
        for name, json_field, check in fields:
            value = getattr(obj, name)
            message = check(value) if check else None
            if message:
                yield f"{format_path((*path, json_field))}: {message}"
            if _holds_parts(value):
                yield from model_problems(value, (*path, json_field))
        if hasattr(obj, "problems"):
            for field_name, message in obj.problems():
                yield f"{format_path((*path, field_name))}: {message}"
    elif isinstance(obj, tuple):
        for index, item in enumerate(obj):
            if _holds_parts(item):
                yield from model_problems(item, (*path, index))


CheckedFields = tuple[tuple[str, str, Check | None], ...]
_CHECKED_FIELDS: dict[type, CheckedFields | None] = {}


def _checked_fields(cls: type) -> CheckedFields | None:
    """Each field of an attrs class as (attribute, JSON name, its check): worked out once
    a class, not for every object checked; None for a class that is not attrs'."""
    if cls not in _CHECKED_FIELDS:
        _CHECKED_FIELDS[cls] = (
            tuple((field.name, json_name(field.name), field.metadata.get("check")) for field in attrs.fields(cls))
            if attrs.has(cls)
            else None
        )
    return _CHECKED_FIELDS[cls]


def _holds_parts(value: Any) -> bool:
    """Whether ``value`` may hold checked objects: a tuple or an attrs object (not a
    number, text or colour string, which most fields are)."""
    return isinstance(value, tuple) or _checked_fields(type(value)) is not None
