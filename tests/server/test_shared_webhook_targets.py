"""A URL that several workspaces name as their ``webhookUrl`` is one target (at most two
deliveries in flight to it), but one workspace's backlog to it must not queue another
workspace's deliveries to the same URL behind all of that backlog: docs/server.md
promises that another workspace's backlog delays your next delivery by one or two."""

from __future__ import annotations

from templatekit_server import delivery
from tests.server.test_fair_claims import claimed, db, queue_delivery, workspace  # noqa: F401 - db is a fixture

SHARED = "https://receiver.example/hook"


def test_another_workspaces_backlog_to_the_same_url_delays_a_delivery_by_two_at_most(db):  # noqa: F811
    """The hostile workspace learned the quiet one's receiver URL and queued forty
    deliveries to it; the quiet workspace's one delivery goes out among the first four
    (two senders at a time to the URL), not after the hostile backlog drains."""
    _, hostile = workspace(db)
    _, quiet = workspace(db)
    for _ in range(40):
        queue_delivery(db, hostile, SHARED)
    mine = queue_delivery(db, quiet, SHARED)
    first = claimed(db, 8)
    assert len(first) == 2  # the target's two senders
    for taken in first:
        delivery.record(db, taken, "sender", 204, None, 0.1, (3600,))
    sent = [taken.id for taken in (*first, *claimed(db, 8))]
    assert mine in sent, sent
