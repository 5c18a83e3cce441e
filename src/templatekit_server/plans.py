"""Plans: the generation limits, the rate limit, whether ``s3Config`` may be used, the
bytes a workspace may store (``storage_bytes``: see ``storage``), and the plan's share
of the workers and senders that every workspace shares (``weight``,
``max_queue_seconds``, ``previews_per_minute``: see ``fairness``).

The four plans of the interface are built in; a TOML file (``--config``, or
``TEMPLATEKIT_CONFIG``) may change them or add others::

    [plans.free]
    daily = 50              # the other fields keep their built-in values

    [plans.enterprise]      # a new plan names the first four fields
    monthly = 2_000_000
    daily = 500_000
    rate_per_minute = 10_000
    s3_config = true
    weight = 16             # the others have defaults: weight 1, 30 s, 120 previews, 100 MB
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from attrs import evolve, fields, frozen


@frozen
class Plan:
    name: str
    monthly: int
    daily: int
    rate_per_minute: int
    s3_config: bool
    #: the plan's share of shared workers and senders under contention, against others'
    weight: int = 1
    #: how long a request may wait for a worker before it is answered RATE_LIMITED
    max_queue_seconds: int = 30
    #: previews (free, not billed) a key may ask for in a minute
    previews_per_minute: int = 120
    #: bytes the workspace may store: every kept version of its templates (those of
    #: deleted templates until they are forgotten) and its assets
    storage_bytes: int = 100_000_000


DEFAULT_PLANS = {
    plan.name: plan
    for plan in (
        Plan("free", 100, 100, 60, False, weight=1, storage_bytes=100_000_000),
        Plan("automate", 2_000, 500, 120, False, weight=2, storage_bytes=500_000_000),
        Plan("pro", 20_000, 5_000, 600, True, weight=4, storage_bytes=5_000_000_000),
        Plan("scale", 200_000, 50_000, 3_000, True, weight=8, storage_bytes=50_000_000_000),
    )
}

_FIELDS = {field.name: field.type for field in fields(Plan) if field.name != "name"}
_REQUIRED = ("monthly", "daily", "rate_per_minute", "s3_config")  # the others have defaults
_AT_LEAST_ONE = ("rate_per_minute", "weight", "max_queue_seconds")


class ConfigError(ValueError):
    """The configuration file is unreadable or has a wrong value; the message names it."""


def load_plans(path: Path | None) -> dict[str, Plan]:
    """The built-in plans, changed and extended by the file at ``path`` (if any)."""
    plans = dict(DEFAULT_PLANS)
    if path is None:
        return plans
    try:
        config = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    unknown = sorted(set(config) - {"plans"})
    if unknown:
        raise ConfigError(f"{path}: unknown setting {unknown[0]!r} (expected [plans.NAME] tables)")
    tables = config.get("plans", {})
    if not isinstance(tables, dict):
        raise ConfigError(f"{path}: plans must be tables, e.g. [plans.free]")
    for name, table in tables.items():
        plans[name] = _plan(path, name, table, plans.get(name))
    return plans


def _plan(path: Path, name: str, table: Any, base: Plan | None) -> Plan:
    where = f"{path}: [plans.{name}]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = sorted(set(table) - set(_FIELDS))
    if unknown:
        raise ConfigError(f"{where}: unknown field {unknown[0]!r} (expected {', '.join(_FIELDS)})")
    if base is None:
        missing = [field for field in _REQUIRED if field not in table]
        if missing:
            raise ConfigError(f"{where}: a new plan needs {', '.join(missing)}")
        base = Plan(name, 0, 0, 1, False)
    for field, value in table.items():
        if field == "s3_config":
            if not isinstance(value, bool):
                raise ConfigError(f"{where}.s3_config: must be true or false (got {value!r})")
            continue
        minimum = 1 if field in _AT_LEAST_ONE else 0
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            raise ConfigError(f"{where}.{field}: must be a whole number of at least {minimum} (got {value!r})")
    return evolve(base, **table)
