"""A modification: new values for some fields of one layer, found by exact name."""

from __future__ import annotations

from typing import Any

from attrs import frozen


@frozen
class Modification:
    """``fields`` maps JSON field names (camelCase) to raw JSON values."""

    name: str
    fields: dict[str, Any]
