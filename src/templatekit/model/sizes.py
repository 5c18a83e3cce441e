"""Sizes before reading: the lists, texts and objects of template JSON measured against
the limits the published JSON Schema states (``maxItems``, ``maxLength``,
``maxProperties``, ``propertyNames``), in one walk of the raw data, before the converter
reads any of it.

The converter reads a list item by item, and a bad item costs an exception; a million
of them cost gigabytes. Measured first, a list over its limit is refused by its length
alone, naming its place (``layers[3].columns: must have at most 100 items (got
500,000)``), and nothing inside it is looked at. The limits are those of the checks
(``templatekit.model.checks``) and value types that the schema publishes, so this walk,
validation and the published schema cannot disagree. Only sizes are measured here:
types and values are the converter's and the checks' to judge.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

from templatekit.model.checks import too_long, too_many_items, too_many_keys
from templatekit.model.convert import Path_, format_path
from templatekit.model.layers import LAYER_KINDS
from templatekit.model.schema import ModelSchema, layer_schema, template_schema

Json = dict[str, Any]
Found = list[tuple[Path_, str]]

#: Places over their limits reported at most (a template error lists no more).
MAX_FOUND = 50

_JSON_TYPES: dict[type, frozenset[str]] = {
    dict: frozenset({"object"}),
    list: frozenset({"array"}),
    tuple: frozenset({"array"}),
    str: frozenset({"string"}),
    bool: frozenset({"boolean"}),
    int: frozenset({"integer", "number"}),
    float: frozenset({"number"}),
    type(None): frozenset({"null"}),
}


class _Node:
    """One schema, ready to measure values: its size limits, what it accepts, and the
    schemas of what is inside (its items, its properties, or the options of a union)."""

    def __init__(self, schema: Json) -> None:
        self.max_items: int | None = schema.get("maxItems")
        self.max_length: int | None = schema.get("maxLength")
        self.max_keys: int | None = schema.get("maxProperties")
        self.key_length: int | None = schema.get("propertyNames", {}).get("maxLength")
        kinds = schema.get("type")
        self.types = frozenset([kinds] if isinstance(kinds, str) else kinds) if kinds else None
        self.required = frozenset(schema.get("required", ()))
        self.items: _Node | None = None
        self.properties: dict[str, _Node] = {}
        self.other: _Node | None = None  # additionalProperties
        self.options: list[_Node] = []
        self.tagged: tuple[str, _Tagged] | None = None  # discriminator: property, and the node of each value
        self.leaf = True  # nothing inside: no items, properties or options
        self.inert = False  # nothing in it, at any depth, has a limit

    def over(self, value: Any) -> str | None:
        """The message of a value over one of this schema's limits."""
        if isinstance(value, str):
            return too_long(len(value), self.max_length) if self.max_length and len(value) > self.max_length else None
        if isinstance(value, (list, tuple)) and self.max_items is not None and len(value) > self.max_items:
            return too_many_items(len(value), self.max_items)
        if isinstance(value, dict):
            if self.max_keys is not None and len(value) > self.max_keys:
                return too_many_keys(len(value), self.max_keys)
            if self.key_length is not None:
                longest = max(map(len, value), default=0)
                if longest > self.key_length:
                    return f"keys {too_long(longest, self.key_length)}"
        return None

    def accepts(self, value: Any) -> bool:
        """Whether the value is of a JSON type this schema allows (by type alone)."""
        if self.options:
            return any(option.accepts(value) for option in self.options)
        return self.types is None or bool(self.types & _JSON_TYPES.get(type(value), frozenset()))

    def matches(self, value: Any) -> bool:
        """``accepts``, and an object has the keys it requires, a list a first item that
        its item schema accepts: how a union's reading is told apart from another's."""
        if not self.accepts(value):
            return False
        if isinstance(value, dict):
            return self.required <= value.keys()
        if isinstance(value, (list, tuple)) and value and self.items is not None:
            return self.items.matches(value[0])
        return True

    def choose(self, value: Any) -> _Node | None:
        """The option of a union that reads ``value``, as the converter would pick it."""
        if self.tagged is not None:
            tag, by_tag = self.tagged
            return by_tag.get(str(value.get(tag))) if isinstance(value, dict) else None
        fitting = [option for option in self.options if option.accepts(value)]
        return next((option for option in fitting if option.matches(value)), fitting[0] if fitting else None)


class _Sizes:
    """The nodes of one set of schema definitions (``$ref`` by name), made once each."""

    def __init__(self, definitions: dict[str, Json]) -> None:
        self.definitions = definitions
        self.nodes: dict[int, _Node] = {}
        self.kept: list[Json] = []  # the schemas made into nodes, so that their ids stay theirs

    def node(self, schema: Json) -> _Node:
        made = self.nodes.get(id(schema))
        if made is None:
            self.kept.append(schema)
            resolved = self._resolved(schema)
            made = self.nodes[id(schema)] = _Node(resolved)  # before its parts: a schema may hold itself
            self._fill(made, resolved)
        return made

    def _resolved(self, schema: Json) -> Json:
        """A ``$ref`` followed; a field's ``allOf: [$ref]`` with limits beside it merged."""
        while "$ref" in schema or "allOf" in schema:
            if "$ref" in schema:
                schema = self.definitions[schema["$ref"]]
            else:
                (inner,), rest = schema["allOf"], {k: v for k, v in schema.items() if k != "allOf"}
                schema = {**self._resolved(inner), **rest}
        return schema

    def _fill(self, node: _Node, schema: Json) -> None:
        if isinstance(schema.get("items"), dict):
            node.items = self.node(schema["items"])
        node.properties = {name: self.node(part) for name, part in schema.get("properties", {}).items()}
        if isinstance(schema.get("additionalProperties"), dict):
            node.other = self.node(schema["additionalProperties"])
        node.options = [self.node(option) for option in schema.get("anyOf") or schema.get("oneOf") or ()]
        tag = schema.get("discriminator")
        if tag is not None:  # its options are made as values ask for them
            node.tagged = (tag["propertyName"], _Tagged(self, tag["mapping"]))
        parts = [node.items, node.other, *node.properties.values(), *node.options]
        limits = (node.max_items, node.max_length, node.max_keys, node.key_length)
        node.leaf = not any(parts) and node.tagged is None
        node.inert = (
            node.tagged is None
            and all(limit is None for limit in limits)
            and all(part is None or part.inert for part in parts)
        )

    def measure(self, value: Any, node: _Node, path: Path_, found: Found) -> None:
        """Add to ``found`` every place in ``value`` over its limit (at most MAX_FOUND);
        nothing inside a place over its limit is looked at."""
        if node.inert or len(found) >= MAX_FOUND:
            return
        message = node.over(value)
        if message:
            found.append((path, message))
        elif node.options or node.tagged is not None:
            chosen = node.choose(value)
            if chosen is not None:
                self.measure(value, chosen, path, found)
        elif isinstance(value, (list, tuple)) and node.items is not None:
            self._parts(enumerate(value), lambda _: node.items, path, found)
        elif isinstance(value, dict):
            self._parts(value.items(), lambda key: node.properties.get(key, node.other), path, found)

    def _parts(
        self, parts: Iterable[tuple[Any, Any]], node_of: Callable[[Any], _Node | None], path: Path_, found: Found
    ) -> None:
        """The items of a list or the values of an object measured; one without parts of
        its own (a cell, a colour) measured here, without a call of its own."""
        for step, item in parts:
            node = node_of(step)
            if node is None or node.inert:
                continue
            if not node.leaf:
                self.measure(item, node, (*path, step), found)
            elif (message := node.over(item)) is not None:
                found.append(((*path, step), message))
            if len(found) >= MAX_FOUND:
                return


class _Tagged:
    """The options of a union told apart by a property, each made into a node when a
    value first names it."""

    def __init__(self, sizes: _Sizes, refs: dict[str, str]) -> None:
        self.sizes = sizes
        self.refs = refs
        self.made: dict[str, _Node] = {}

    def get(self, value: str) -> _Node | None:
        made = self.made.get(value)
        if made is None and value in self.refs:
            made = self.made[value] = self.sizes.node({"$ref": self.refs[value]})
        return made


class _LayerKinds(dict[str, Json]):
    """Schema definitions in which a layer kind's is made when first looked up: a
    template is measured against the kinds it holds, and making all of them took most
    of a process's first template load."""

    def __init__(self, schemas: ModelSchema) -> None:
        super().__init__()
        self.schemas = schemas
        self.kinds = {schemas.name_of(cls): kind for kind, cls in LAYER_KINDS.items()}

    def __missing__(self, name: str) -> Json:
        kind = self.kinds.get(name)
        if kind is None:
            raise KeyError(name)
        return self.setdefault(name, layer_schema(self.schemas, kind))

    def get(self, name: str, default: Any = None) -> Any:
        return self[name] if name in self or name in self.kinds else default


class _LazyLayers(ModelSchema):
    """The model's schema with its layer kinds made on first use (``_LayerKinds``): the
    union of layers names each kind, told apart by ``type``, without making it."""

    def __init__(self) -> None:
        super().__init__(prefix="", defaults=False)  # sizes are measured, not defaults
        self.definitions = _LayerKinds(self)

    def any_layer(self) -> Json:
        if "Layer" not in self.definitions:
            kinds = {kind: f"{self.prefix}{self.name_of(cls)}" for kind, cls in LAYER_KINDS.items()}
            self.definitions["Layer"] = {"discriminator": {"propertyName": "type", "mapping": kinds}}
        return {"$ref": f"{self.prefix}Layer"}


@cache
def _model() -> tuple[_Sizes, _Node]:
    """The template's schema as nodes (made again once ``forget`` is called)."""
    schemas = _LazyLayers()
    root = template_schema(schemas)
    sizes = _Sizes(schemas.definitions)
    return sizes, sizes.node(root)


def forget() -> None:
    """Make the schema again on next use (a layer kind was added)."""
    _model.cache_clear()


def template_problems(data: Any) -> list[str]:
    """``path: message`` for every place of template data over its limit."""
    sizes, root = _model()
    return _lines(lambda found: sizes.measure(data, root, (), found))


def field_problems(kind: str, field: str, value: Any) -> list[str]:
    """The places of a value for the field ``field`` (its JSON name) of a layer of
    ``kind`` that are over their limits, each with its path within the value."""
    sizes, _ = _model()
    layer = sizes.definitions.get(LAYER_KINDS[kind].__name__, {})
    schema = layer.get("properties", {}).get(field)
    if schema is None:
        return []
    node = sizes.node(schema)
    return _lines(lambda found: sizes.measure(value, node, (), found))


def _lines(measure: Callable[[Found], None]) -> list[str]:
    found: Found = []
    measure(found)
    return [f"{format_path(path)}: {message}" if path else message for path, message in found]
