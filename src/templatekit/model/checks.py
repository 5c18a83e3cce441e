"""Declarative field checks.

A check is a function ``value -> message | None`` attached to an attrs field through
``metadata={"check": ...}``. Keeping checks as data (instead of attrs validators, which
stop at the first failure) lets ``validate`` report every problem of a template at once.
Each check also says what it allows as JSON Schema (``schema_of``), so that the
published schema is made from the same checks that validation runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

Check = Callable[[Any], "str | None"]
Json = dict[str, Any]

#: Schema keywords of a font family name: an editor offers the bundled and template fonts.
FONT_FAMILY: Json = {"x-control": "font"}
#: Of a font weight: an editor's stepper goes from one named weight to the next.
WEIGHT_STEP: Json = {"x-step": 100}


def described(check: Check, schema: Json) -> Check:
    """``check``, saying that it allows what ``schema`` allows."""
    check.json_schema = schema  # type: ignore[attr-defined]
    return check


def schema_of(check: Check | None) -> Json:
    """The JSON Schema keywords of ``check`` (none for a check that does not say)."""
    return dict(getattr(check, "json_schema", {})) if check is not None else {}


def field(
    default: Any = attrs.NOTHING, *, check: Check | None = None, schema: Json | None = None, **kwargs: Any
) -> Any:
    """An attrs field with an optional check; ``schema`` adds keywords to its published
    schema (``x-control``: the control an editor gives it, where its type does not say)."""
    metadata: dict[str, Any] = {"check": check} if check else {}
    if schema:
        metadata["schema"] = schema
    return attrs.field(default=default, metadata=metadata, **kwargs)


def _positive(value: float | None) -> str | None:
    if value is not None and not value > 0:
        return f"must be a positive number (got {value!r})"
    return None


def _non_negative(value: float | None) -> str | None:
    if value is not None and value < 0:
        return f"must be zero or more (got {value!r})"
    return None


positive = described(_positive, {"exclusiveMinimum": 0})
non_negative = described(_non_negative, {"minimum": 0})


def between(low: float, high: float) -> Check:
    def check(value: float | None) -> str | None:
        if value is not None and not low <= value <= high:
            return f"must be between {low:g} and {high:g} (got {value!r})"
        return None

    return described(check, {"minimum": low, "maximum": high})


#: The largest position or size of a layer, in px (ten times the largest canvas side):
#: far beyond any design, and small enough that areas and scales stay exact floats.
MAX_EXTENT = 100_000
#: The largest font size, in px (the largest canvas side).
MAX_FONT_SIZE = 10_000
#: The most rows of a table, or data points of a chart: about 200 pages of a table; a
#: chart's points, each one drawn and laid out (0.2 ms a point).
MAX_ROWS = 10_000
#: The most characters of a text (a text layer's, a cell's, a label's) or of SVG path data.
MAX_TEXT = 20_000
#: The most characters of a name: a layer's, a template's, a font family, a column key.
MAX_NAME = 200
#: The most columns of a table (and keys of one of its rows): far wider than a page.
MAX_COLUMNS = 100


def within(limit: float) -> Check:
    """At most ``limit`` away from zero."""

    def check(value: float | None) -> str | None:
        if value is not None and not -limit <= value <= limit:
            return f"must be between {-limit:g} and {limit:g} (got {value!r})"
        return None

    return described(check, {"minimum": -limit, "maximum": limit})


def at_most(limit: float) -> Check:
    def check(value: float | None) -> str | None:
        if value is not None and value > limit:
            return f"must be at most {limit:g} (got {value!r})"
        return None

    return described(check, {"maximum": limit})


def too_many_items(count: int, limit: int) -> str:
    """What a list of ``count`` items is told when it may hold ``limit``."""
    return f"must have at most {limit:,} items (got {count:,})"


def too_long(count: int, limit: int) -> str:
    """What a text of ``count`` characters is told when it may hold ``limit``."""
    return f"must be at most {limit:,} characters (got {count:,})"


def too_many_keys(count: int, limit: int) -> str:
    return f"must have at most {limit:,} keys (got {count:,})"


def at_most_items(limit: int) -> Check:
    def check(value: tuple[Any, ...] | None) -> str | None:
        if value is not None and len(value) > limit:
            return too_many_items(len(value), limit)
        return None

    return described(check, {"maxItems": limit})


def at_most_keys(limit: int, key_length: int) -> Check:
    """An object of at most ``limit`` keys, each at most ``key_length`` characters."""

    def check(value: dict[str, Any] | None) -> str | None:
        if value is None:
            return None
        if len(value) > limit:
            return too_many_keys(len(value), limit)
        longest = max(map(len, value), default=0)
        return f"keys {too_long(longest, key_length)}" if longest > key_length else None

    return described(check, {"maxProperties": limit, "propertyNames": {"maxLength": key_length}})


def each(check: Check) -> Check:
    """``check`` of every item of a list: the first item it refuses, by its index."""

    def run(value: tuple[Any, ...] | None) -> str | None:
        for index, item in enumerate(value or ()):
            message = check(item)
            if message:
                return f"item {index}: {message}"
        return None

    return described(run, {"items": schema_of(check)})


def _non_empty(value: str | None) -> str | None:
    if value is not None and not value.strip():
        return "must not be empty"
    return None


non_empty = described(_non_empty, {"minLength": 1, "pattern": r"\S"})


def max_length(limit: int) -> Check:
    def check(value: str | None) -> str | None:
        if value is not None and len(value) > limit:
            return too_long(len(value), limit)
        return None

    return described(check, {"maxLength": limit})


def all_of(*checks: Check) -> Check:
    """Run checks in order and keep the first message."""

    def check(value: Any) -> str | None:
        for one in checks:
            message = one(value)
            if message:
                return message
        return None

    schema: Json = {}
    for one in checks:
        schema.update(schema_of(one))
    return described(check, schema)


#: The most characters of a source: a data URI of a 20 MB file (the default download
#: limit) in base64, with its header.
MAX_SOURCE = 28_000_000
#: A text: at most MAX_TEXT characters.
TEXT = max_length(MAX_TEXT)
#: SVG path data: read only within its length, so that over-long data costs nothing.
PATH = max_length(MAX_TEXT)
#: A URL, a data URI or a file path.
SOURCE = all_of(non_empty, max_length(MAX_SOURCE))
