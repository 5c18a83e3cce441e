"""JSON Schema of the template model, made from the attrs classes, the types and the
checks that reading a template uses, so that a published schema (the OpenAPI document,
an editor's form) cannot drift from what the code accepts.

``ModelSchema`` turns a type into a schema and collects the classes it meets as named
definitions (``$ref``). Types read by a hook of their own (colours, lengths, insets,
gradients, sources, table cells and columns, chart rows) are described here as that
hook reads them; any other type is an error, so that a new field cannot go unpublished.
"""

from __future__ import annotations

import sys
import types
import typing
import weakref
from collections.abc import Callable, Mapping
from typing import Any, Literal, Union

import attrs

from templatekit.model.checks import MAX_NAME, MAX_TEXT, schema_of
from templatekit.model.convert import converter, ignores_extra_fields, json_name
from templatekit.model.layers import LAYER_KINDS, AnyLayer, CellValue, Column, PlotlyFigure
from templatekit.model.template import Template
from templatekit.model.values import MAX_VALUE_TEXT, CellText, Color, Insets, Length, Source

Json = dict[str, Any]

_PLAIN: dict[Any, Json] = {
    str: {"type": "string"},
    bool: {"type": "boolean"},
    int: {"type": "integer"},
    float: {"type": "number"},
    Any: {},
}
_NUMBER = {"type": "number"}
_SPACE = {**_NUMBER, "minimum": 0}
_SPECIAL: dict[Any, Json] = {
    Color: {
        "type": "string",
        "description": "A colour: `#rgb`, `#rrggbb`, `#rrggbbaa`, `rgb()`/`rgba()` or a CSS name.",
        "examples": ["#0f172a", "rgba(15, 23, 42, 0.5)", "white"],
        "maxLength": MAX_VALUE_TEXT,
        "x-control": "color",
    },
    Length: {
        "description": 'A length in px, or a percentage of the layer\'s size as text (`"50%"`).',
        "anyOf": [_NUMBER, {"type": "string", "pattern": r"^\s*[0-9.]+\s*%\s*$", "maxLength": MAX_VALUE_TEXT}],
    },
    Insets: {
        "description": "Space inside the box in px, 0 or more: one number, or 2 or 4 in CSS order.",
        "anyOf": [_SPACE, {"type": "array", "items": _SPACE, "minItems": 1, "maxItems": 4}],
    },
    CellText: {
        "type": ["string", "number", "boolean", "null"],
        "description": "Text; a number, true/false (Yes/No) or null (nothing) is written as a table cell writes it.",
        "x-control": "text",
    },
    Source: {
        "type": "string",
        "minLength": 1,
        "description": (
            "An http(s) URL, a data URI, an uploaded asset (`asset:ID`), or (where the renderer allows files) a path."
        ),
        "x-control": "source",
    },
    PlotlyFigure: {"type": "object", "description": "A whole Plotly figure: `data` (traces) and `layout`."},
    CellValue: {"type": ["string", "number", "boolean", "null"], "maxLength": MAX_TEXT, "description": "A table cell."},
}


class ModelSchema:
    """Schemas of model types; the classes met are kept in ``definitions``, named by
    ``name_of(cls)`` and referred to as ``{prefix}{name}``."""

    def __init__(
        self,
        prefix: str = "#/components/schemas/",
        name_of: Callable[[type], str] | None = None,
        special: Mapping[Any, Json] | None = None,
        defaults: bool = True,
    ) -> None:
        self.prefix = prefix
        self.defaults = defaults  # each field's default, as JSON (what only readers need)
        self.name_of = name_of or (lambda cls: cls.__name__)
        self.definitions: dict[str, Json] = {}
        #: the schemas of types read by hooks of their own: the model's, and a user's
        self.special = {**_SPECIAL, **(special or {})}

    def of(self, kind: Any) -> Json:
        """The schema of values of ``kind``."""
        if kind in self.special:
            return dict(self.special[kind])
        if kind in _PLAIN:
            return dict(_PLAIN[kind])
        if kind == AnyLayer:  # a frame's layers, as the template's
            return self.any_layer()
        if kind == Column:
            key = {"type": "string", "maxLength": MAX_NAME, "description": "The key, also the header."}
            return {"anyOf": [key, self._class(Column)]}
        origin, args = typing.get_origin(kind), typing.get_args(kind)
        if origin is Literal:
            return {"enum": list(args)}
        if origin in (Union, types.UnionType):
            return self._union(args)
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": self.of(args[0])}
        if origin is tuple and args and len(set(args)) == 1:  # so many of one kind: a point, four corners
            return {"type": "array", "items": self.of(args[0]), "minItems": len(args), "maxItems": len(args)}
        if origin is dict and args and args[0] is str:
            return {"type": "object", "additionalProperties": self.of(args[1])}
        if attrs.has(kind):
            return self._class(kind)
        raise TypeError(f"no JSON Schema for {kind!r}: describe it in templatekit.model.schema")

    def any_layer(self) -> Json:
        """A layer of any kind, told apart by ``type`` (named ``Layer``)."""
        if "Layer" not in self.definitions:
            self.definitions["Layer"] = {}  # a placeholder while the kinds are made (frames hold layers)
            for kind, cls in LAYER_KINDS.items():
                self.definitions.setdefault(self.name_of(cls), layer_schema(self, kind))
            kinds = {kind: f"{self.prefix}{self.name_of(cls)}" for kind, cls in LAYER_KINDS.items()}
            self.definitions["Layer"] = {
                "oneOf": [{"$ref": ref} for ref in kinds.values()],
                "discriminator": {"propertyName": "type", "mapping": kinds},
            }
        return {"$ref": f"{self.prefix}Layer"}

    def _union(self, args: tuple[Any, ...]) -> Json:
        options = [self.of(arg) for arg in args if arg is not type(None)]
        if type(None) in args:
            options.append({"type": "null"})
        return options[0] if len(options) == 1 else {"anyOf": options}

    def _class(self, cls: type) -> Json:
        name = self.name_of(cls)
        if name not in self.definitions:
            self.definitions[name] = {}  # a placeholder while its fields are made
            self.definitions[name] = self.object_of(cls)
        return {"$ref": f"{self.prefix}{name}"}

    def object_of(self, cls: type, *, skip: frozenset[str] = frozenset()) -> Json:
        """The object schema of an attrs class: each field by its JSON name, with its
        checks; required when it has no default."""
        hints = field_types(cls)
        properties: Json = {}
        required: list[str] = []
        for attribute in attrs.fields(cls):
            name = json_name(attribute.name)
            extra = attribute.metadata.get("schema", {})
            if name in skip or not attribute.init or extra.get("x-internal"):
                continue
            properties[name] = self.field(attribute, hints[attribute.name])
            if attribute.default is attrs.NOTHING and not extra.get("x-not-required"):
                required.append(name)
        schema: Json = {"type": "object", "properties": properties, "additionalProperties": ignores_extra_fields(cls)}
        if required:
            schema["required"] = required
        if cls.__doc__ and not cls.__doc__.startswith(cls.__name__ + "("):
            schema["description"] = " ".join(cls.__doc__.split())
        return schema

    def field(self, attribute: attrs.Attribute[Any], kind: Any) -> Json:
        schema = with_limits(self.of(kind), schema_of(attribute.metadata.get("check")))
        extra = dict(attribute.metadata.get("schema", {}))
        extra.pop("x-not-required", None)  # said by leaving it out of ``required``
        modes = extra.pop("x-size-modes", None)
        if extra:
            schema = with_limits(schema, extra)
        if modes:  # a number, or a word a frame works the number out from
            schema = {
                "anyOf": [schema, {"enum": modes}],
                "description": 'px; "hug" or "fill" in frames',
                "x-control": "size",
            }
        if not self.defaults:
            return schema
        default = attribute.default
        if isinstance(default, (str, int, float, bool)):
            schema["default"] = default
        elif attrs.has(type(default)) or isinstance(default, (Color, Length, Insets)):
            schema["default"] = converter.unstructure(default)  # as the JSON writes it
        return schema


def field_types(cls: type) -> dict[str, Any]:
    """Each field's type, its annotation resolved once and kept on the class's field, as
    ``attrs.resolve_types`` keeps it (cattrs reads it there too). The annotations of
    each class are read once, for the class that declares them: ``typing.get_type_hints``
    reads those of every base again for each class, and a layer kind's fields are mostly
    those of ``Layer``; that was half of a process's first schema of a kind."""
    fields = attrs.fields(cls)
    for attribute in fields:
        if isinstance(attribute.type, str):
            owner = _declared_by(cls, attribute.name)
            if owner is None:  # a type given as text to attr.ib: as attrs reads it
                attrs.resolve_types(cls)
                break
            # attrs's fields are frozen; attrs.resolve_types sets them the same way
            object.__setattr__(attribute, "type", _declared_types(owner)[attribute.name])
    return {attribute.name: attribute.type for attribute in fields}


def _declared_by(cls: type, name: str) -> type | None:
    """The class of ``cls``'s MRO whose own annotations declare ``name``."""
    return next((base for base in cls.__mro__ if name in vars(base).get("__annotations__", {})), None)


#: The types of each class's own annotations (weakly: a kind made at run time may go).
_DECLARED: weakref.WeakKeyDictionary[type, dict[str, Any]] = weakref.WeakKeyDictionary()


def _declared_types(owner: type) -> dict[str, Any]:
    """The types of the annotations ``owner`` itself declares, read by
    ``typing.get_type_hints`` as it reads a class's (names from the class's module
    first, then from its body; quoted names inside resolved too), on a class that holds
    only them."""
    found = _DECLARED.get(owner)
    if found is None:
        module = sys.modules.get(owner.__module__)
        only_its_own = type(owner.__name__, (), {"__annotations__": dict(vars(owner).get("__annotations__", {}))})
        found = typing.get_type_hints(
            only_its_own, globalns=dict(vars(owner)), localns=vars(module) if module is not None else {}
        )
        _DECLARED[owner] = found
    return found


def with_limits(schema: Json, limits: Json) -> Json:
    """``schema`` with the keywords of a check added; those of its items (``each``) go
    into the items' schema, beside what the item type says."""
    if not limits:
        return schema
    items = limits.get("items")
    if items is not None and "items" in schema:
        limits = {**limits, "items": with_limits(schema["items"], items)}
    return {"allOf": [schema], **limits} if "$ref" in schema else {**schema, **limits}


#: Fields a modification cannot change: they identify the layer.
FIXED_FIELDS = frozenset({"type", "name", "id", "layers"})


def modification_fields(schemas: ModelSchema) -> Json:
    """JSON name -> schema of every field a modification may set, on a layer of any
    kind; a field that several kinds read differently (``rows``) allows each reading.
    Every field also allows null, which means "not set"."""
    found: dict[str, list[Json]] = {}
    for cls in LAYER_KINDS.values():
        hints = field_types(cls)
        for attribute in attrs.fields(cls):
            name = json_name(attribute.name)
            if name in FIXED_FIELDS or attribute.metadata.get("schema", {}).get("x-internal"):
                continue
            schema = schemas.field(attribute, hints[attribute.name])
            schema.pop("default", None)  # defaults differ between kinds
            if schema not in found.setdefault(name, []):
                found[name].append(schema)
    return {
        name: {"anyOf": [*options, {"type": "null"}]} if len(options) > 1 else _nullable(options[0])
        for name, options in sorted(found.items())
    }


def _nullable(schema: Json) -> Json:
    options = schema.get("anyOf")
    if options is not None and {"type": "null"} in options:
        return schema
    return {"anyOf": [schema, {"type": "null"}]}


def layer_schema(schemas: ModelSchema, kind: str) -> Json:
    """A layer of ``kind`` as a template holds it: ``type`` and its fields."""
    cls = LAYER_KINDS[kind]
    body = schemas.object_of(cls)
    body["properties"] = {"type": {"const": kind}, **body["properties"]}
    body["required"] = ["type", *body.get("required", [])]
    if cls.MAIN_FIELD:
        body["x-main-field"] = json_name(cls.MAIN_FIELD)  # what a plain modification value sets
    return body


def template_schema(schemas: ModelSchema) -> Json:
    """The template: canvas, background, fonts, video, audio and the layers (one schema
    per kind, told apart by ``type``)."""
    schema = schemas.object_of(Template, skip=frozenset({"baseDir", "loadWarnings", "layers"}))
    layer = schemas.any_layer()
    schema["properties"]["layers"] = with_limits(
        {"type": "array", "items": layer}, schema_of(attrs.fields(Template).layers.metadata["check"])
    )
    return schema


def format_schemas(prefix: str = "#/components/schemas/") -> Json:
    """Every schema of the template format by name: ``Template``, one per layer kind and
    the values they use, as an editor builds its forms from them."""
    schemas = ModelSchema(prefix)
    template = template_schema(schemas)
    return {"Template": template, **schemas.definitions}
