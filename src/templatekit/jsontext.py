"""JSON text from users, parsed into plain data or refused with a message that says why.

Python's parser raises different exceptions for different bad inputs (JSONDecodeError,
RecursionError for deep nesting, ValueError for integers over 4,300 digits) and accepts
``NaN`` and ``Infinity``; everything that parses text from a request, a file or a
modification goes through ``parse`` so that each is one clear refusal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

#: Deeper than any template or request needs, shallow enough for every recursive walk.
MAX_DEPTH = 64
#: JSON values (and keys) a text from a request may hold, counted by its commas, colons
#: and brackets before it is parsed: a table of 10,000 rows of 20 cells. Parsing holds
#: the interpreter, whatever thread runs it; this many take about a tenth of a second.
MAX_VALUES = 250_000


class JSONTextError(ValueError):
    """The text is not JSON data this library accepts; the message says why."""


def parse(
    text: str | bytes, *, max_depth: int = MAX_DEPTH, pairs_hook: Any = None, max_values: int | None = None
) -> Any:
    """The data of ``text``; JSONTextError when it is not JSON, holds NaN or Infinity,
    an integer too long to read, or nests deeper than ``max_depth``; with ``max_values``,
    when it may hold more values than that, by a count made before it is parsed."""
    if max_values is not None:
        _count(text, max_values)
    try:
        value = json.loads(text, parse_constant=_not_a_number, object_pairs_hook=pairs_hook)
    except json.JSONDecodeError as exc:
        raise JSONTextError(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise JSONTextError(f"nested more than {max_depth} levels deep{_deep_place(text, max_depth)}") from None
    except UnicodeDecodeError:
        raise JSONTextError("not UTF-8 text") from None
    except JSONTextError:
        raise
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise JSONTextError(f"holds a number too long to read ({exc})") from None
    check_depth(value, max_depth)
    return value


def check_depth(value: Any, max_depth: int = MAX_DEPTH) -> None:
    """JSONTextError naming where lists and objects in ``value`` nest deeper than
    ``max_depth`` (the first such place, level by level)."""
    if depth(value) > max_depth:
        raise JSONTextError(f"{_too_deep(value, max_depth)}: nested more than {max_depth} levels deep")


def unique_fields(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's fields, for ``parse``'s ``pairs_hook``: JSONTextError for a field given
    twice, which JSON readers take differently (the first, the last, or an error)."""
    fields: dict[str, Any] = {}
    for key, value in pairs:
        if key in fields:
            raise JSONTextError(f"the field {key!r} is given twice")
        fields[key] = value
    return fields


def _count(text: str | bytes, limit: int) -> None:
    """Refuse a text whose commas, colons and brackets (a bound on its values and keys)
    are more than ``limit``, before it is parsed."""
    raw = text.encode() if isinstance(text, str) else text
    marks = sum(raw.count(mark) for mark in (b",", b":", b"[", b"{"))
    if marks > limit:
        raise JSONTextError(f"more than {limit:,} JSON values ({marks:,} commas, colons and brackets)")


def _not_a_number(constant: str) -> Any:
    raise JSONTextError(f"{constant} is not a JSON number")


#: A JSON string, or a bracket outside strings.
_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _deep_place(text: str | bytes, max_depth: int) -> str:
    """ " (at line L column C)": where the text opens its list or object past ``max_depth``,
    for a text too deep to parse into values whose path could be named."""
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    level = 0
    for match in _BRACKETS.finditer(text):
        token = match.group()
        level += 1 if token in "[{" else -1 if token in "]}" else 0
        if level > max_depth:
            start = match.start()
            line = text.count("\n", 0, start) + 1
            return f" (at line {line} column {start - text.rfind(chr(10), 0, start)})"
    return ""


def _too_deep(value: Any, max_depth: int) -> str:
    """The path (``layers[0].layers[1]``) of the first list or object at a depth over
    ``max_depth``, found level by level without recursion; only asked for when there is one."""
    level: list[tuple[tuple[str | int, ...], Any]] = [((), value)]
    for _ in range(max_depth):
        level = [
            ((*path, key), child)
            for path, item in level
            if isinstance(item, dict | list)
            for key, child in (item.items() if isinstance(item, dict) else enumerate(item))
        ]
    return format_path(next(path for path, item in level if isinstance(item, dict | list)))


def format_path(path: Sequence[str | int]) -> str:
    """``("layers", 2, "size")`` as ``layers[2].size``, as problems name where they are;
    the empty path is the whole template."""
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text or "(template)"


def depth(value: Any) -> int:
    """How deep lists and objects nest in ``value`` (0 for a plain value), without recursion."""
    levels, level = 0, [value]
    while level:
        levels += 1
        level = [
            child
            for item in level
            if isinstance(item, dict | list)
            for child in (item.values() if isinstance(item, dict) else item)
        ]
    return levels - 1 if levels else 0
