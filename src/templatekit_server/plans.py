"""Plans: the generation limits, the rate limit and whether ``s3Config`` may be used."""

from __future__ import annotations

from attrs import frozen


@frozen
class Plan:
    name: str
    monthly: int
    daily: int
    rate_per_minute: int
    s3_config: bool


DEFAULT_PLANS = {
    plan.name: plan
    for plan in (
        Plan("free", 100, 100, 60, False),
        Plan("automate", 2_000, 500, 120, False),
        Plan("pro", 20_000, 5_000, 600, True),
        Plan("scale", 200_000, 50_000, 3_000, True),
    )
}
