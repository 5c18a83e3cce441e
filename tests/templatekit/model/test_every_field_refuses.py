"""Every field of the template format, given a value of a type it does not take or just
past one of its bounds, is refused with a TemplateError naming the field's path: never
another exception, never accepted. The cases are made from the published JSON Schema, one
level into the objects a field holds, so a field added to the model is covered by itself.
(The server's schema fuzzing sends the template body's cases over HTTP only as random
data: each of these is a load here, not a request.)"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import templatekit as tk
from templatekit.model.schema import format_schemas
from tests.conftest import template
from tests.templatekit.model.test_reading import EVERY_KIND

Json = dict[str, Any]
SCHEMAS = format_schemas("#/$defs/")
#: a value of each JSON type, to give a field that takes none of that type
OF_TYPE: dict[str, Any] = {"null": None, "boolean": True, "number": 1.5, "string": "x", "array": [], "object": {}}
#: strings that are read as what they name: a number there is refused, not written as text
NOT_TEXT = {"color", "source"}


def resolved(schema: Json) -> Json:
    ref = schema.get("$ref")
    return SCHEMAS[ref.rsplit("/", 1)[1]] if ref else schema


def options(schema: Json) -> list[Json]:
    """The alternatives a value may match, references followed; bounds written beside an
    ``anyOf`` (as the model writes them) belong to each alternative."""
    if "anyOf" not in schema and "oneOf" not in schema:
        return [resolved(schema)]
    shared = {key: value for key, value in schema.items() if key not in ("anyOf", "oneOf")}
    return [{**shared, **resolved(option)} for option in schema.get("anyOf") or schema["oneOf"]]


def types_of(option: Json) -> set[str]:
    if "enum" in option or "const" in option:
        return {"enum"} | {"null" if v is None else "string" for v in option.get("enum", [option.get("const")])}
    kind = option.get("type")
    if isinstance(kind, list):
        return set(kind)
    if kind is None:
        return {"object"} if "properties" in option else set(OF_TYPE)
    return {kind, "number"} if kind == "integer" else {kind}


def invalid(schema: Json) -> Iterator[tuple[str, Any]]:
    """(what, value) pairs the field refuses. A number where text is asked for is that
    number written as text (docs/template-format.md), so it is not among them."""
    alternatives = options(schema)
    taken = set().union(*map(types_of, alternatives))
    texts = [o for o in alternatives if o.get("type") == "string"]
    if texts and all(o.get("x-control") not in NOT_TEXT for o in texts):
        taken.add("number")
    for name, value in OF_TYPE.items():
        if name not in taken:
            yield f"a {name}", value
    numbers = [o for o in alternatives if o.get("type") in ("number", "integer")]
    if any(o.get("type") == "integer" for o in numbers) and not any(o.get("type") == "number" for o in numbers):
        yield "a fraction", 1.5
    if "enum" in taken and not texts:
        yield "a value not listed", "none-of-these"
    if len(numbers) == 1:
        bounds = numbers[0]
        if "minimum" in bounds:
            yield "under its minimum", bounds["minimum"] - 1
        if "exclusiveMinimum" in bounds:
            yield "at its exclusive minimum", bounds["exclusiveMinimum"]
        if "maximum" in bounds:
            yield "over its maximum", bounds["maximum"] + 1
    if len(texts) == 1:
        if "maxLength" in texts[0]:
            yield "longer than its limit", "a" * (texts[0]["maxLength"] + 1)
        if texts[0].get("minLength", 0) > 0:
            yield "empty", ""
    arrays = [o for o in alternatives if o.get("type") == "array"]
    if len(arrays) == 1 and "maxItems" in arrays[0]:
        item = sample(arrays[0].get("items", {}))
        if item is not None:
            yield "with more items than its limit", [item] * (arrays[0]["maxItems"] + 1)


def sample(schema: Json) -> Any:
    """A valid value of ``schema`` when a simple one is known (else None)."""
    for option in options(schema):
        if "const" in option or "enum" in option:
            return option.get("enum", [option.get("const")])[0]
        if option.get("type") in ("number", "integer"):
            return option.get("minimum", option.get("exclusiveMinimum", -1) + 1)
        if option.get("type") == "string" and "pattern" not in option:
            return option.get("examples", ["a"])[0]
        if "properties" in option and not option.get("required"):
            return {}
    return None


Wrap = Callable[[Json], Json]


def cases_of(value: Json, schema: Json, path: str, wrap: Wrap) -> Iterator[tuple[str, str, Json]]:
    """(path, what, the template with the field at ``path`` made invalid) for each field of
    ``schema`` (``value`` is valid, ``wrap`` puts it in a template) and, one level down, of
    each object a field holds."""
    for name, field in schema["properties"].items():
        if name in ("type", "layers"):  # the kind itself; layers are cases of their own
            continue
        for what, bad in invalid(field):
            yield f"{path}.{name}".lstrip("."), what, wrap({**value, name: bad})
        for option in options(field):
            listed = option.get("type") == "array"
            nested = resolved(option["items"]) if listed and "items" in option else option
            if "properties" not in nested or nested is SCHEMAS.get("Layer"):
                continue
            given = value.get(name)
            inner = given[0] if listed and isinstance(given, list) and given else given
            if inner is None and not nested.get("required"):
                inner = {}
            if not isinstance(inner, dict) or not set(inner) <= set(nested["properties"]):
                continue  # another alternative is given here, or none can be made up
            holder = _holder(value, name, listed, wrap)
            if not loads(holder(inner)):
                continue  # this object alone is not valid without other fields
            where = f"{path}.{name}{'[0]' if listed else ''}"
            yield from cases_of(inner, nested, where, holder)


def _holder(value: Json, name: str, listed: bool, wrap: Wrap) -> Wrap:
    """What puts an object held by ``value``'s field ``name`` in a template."""
    return lambda changed: wrap({**value, name: [changed] if listed else changed})


def loads(data: Json) -> bool:
    try:
        tk.load_template(data)
    except tk.TemplateError:
        return False
    return True


#: (the case's name, the path its problem names, the template)
Case = tuple[str, str, Json]


def every_case() -> Iterator[Case]:
    for path, what, changed in cases_of(template(), SCHEMAS["Template"], "", lambda t: t):
        yield f"{path} {what}", path, changed
    kinds = {s["properties"]["type"].get("const"): s for s in SCHEMAS.values() if "type" in s.get("properties", {})}
    for layer in EVERY_KIND:
        video = {"video": {"duration": 2}} if layer["type"] in ("video", "captions") else {}
        wrap: Wrap = lambda changed, video=video: template(changed, **video)  # noqa: E731
        for path, what, changed in cases_of(layer, kinds[layer["type"]], "layers[0]", wrap):
            yield f"{layer['type']} {path} {what}", path, changed


def refusal(path: str, data: Json) -> str | None:
    """What is wrong with how ``data`` is refused (None: a TemplateError naming ``path``)."""
    try:
        tk.load_template(data)
    except tk.TemplateError as error:
        named = any(problem.startswith((f"{path}:", f"{path}.", f"{path}[")) for problem in error.problems)
        return None if named else f"refused for something else: {error.problems[:3]}"
    except Exception as error:  # noqa: BLE001 - any other exception is what this looks for
        return f"{type(error).__name__}: {error}"
    return "accepted"


def test_a_value_a_field_does_not_take_is_refused_naming_its_path():
    cases = list(every_case())
    paths = {path for _, path, _ in cases}
    assert len(cases) > 2_500
    assert {"width", "background", "layers[0].size", "layers[0].shadows[0].blur", "layers[0].focus.x"} <= paths
    assert {layer["type"] for layer in EVERY_KIND} <= {name.split()[0] for name, _, _ in cases}
    wrong = [f"{name}: {problem}" for name, path, data in cases if (problem := refusal(path, data)) is not None]
    assert wrong == []
