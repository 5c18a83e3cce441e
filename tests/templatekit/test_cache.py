"""The bounded cache: least recently used first out, by entries and by weight; where data
may never repeat, values kept only from their second use; and one budget of bytes for
all the engine's caches."""

from __future__ import annotations

import subprocess
import sys

import pytest

import templatekit as tk
from templatekit.cache import RECENT_FIRST_USES, SEEN_PER_ENTRY, SHARES, BoundedCache, cache_limit, memoized
from tests.conftest import decode


def test_bounded_by_entries_and_weight_least_recent_out():
    cache: BoundedCache[str, str] = BoundedCache(max_entries=2, max_weight=10)
    cache.put("a", "A", 4)
    cache.put("b", "B", 4)
    assert cache.get("a") == "A"  # now the most recent
    cache.put("c", "C", 4)  # over 10: the least recent, b, goes
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == ("A", None, "C")
    cache.put("huge", "H", 11)  # heavier than the whole cache: not kept
    assert cache.get("huge") is None and len(cache) == 2 and cache.weight == 8


def test_second_use_keeps_only_what_is_asked_for_again():
    cache: BoundedCache[str, str] = BoundedCache(max_entries=20, max_weight=100, second_use=True)
    cache.put("once", "1", 1)
    assert cache.get("once") == "1" and len(cache) == 0  # held among the latest first uses only
    for number in range(RECENT_FIRST_USES):
        cache.put(f"other {number}", "x", 1)
    assert cache.get("once") is None and cache.weight == RECENT_FIRST_USES  # pushed out by newer ones
    cache.put("once", "1", 1)  # put again: kept
    for number in range(RECENT_FIRST_USES):
        cache.put(f"more {number}", "x", 1)
    assert cache.get("once") == "1" and len(cache) == 1
    for number in range(SEEN_PER_ENTRY * 20 + 1):  # enough new keys to forget those seen
        cache.put(f"new {number}", "x", 1)
    assert len(cache) == 1  # none of them was kept
    cache.put("other 0", "x", 1)  # forgotten as seen: seen again, not kept yet
    assert len(cache) == 1


def test_first_uses_held_count_in_the_weight_and_go_first():
    cache: BoundedCache[str, str] = BoundedCache(max_entries=4, max_weight=10, second_use=True)
    for key in "ab":
        cache.put(key, key, 4)
        cache.put(key, key, 4)  # kept
    cache.put("new", "N", 4)  # held: over 10, so it goes, not what is kept
    assert cache.weight == 8 and cache.get("new") is None and cache.get("a") == "a"


def test_memoized_results():
    calls: list[int] = []

    @memoized("qr.matrices", 8, lambda _: 1, second_use=True)
    def double(value: int, *, plus: int = 0) -> int:
        calls.append(value)
        return 2 * value + plus

    assert [double(3), double(3), double(3, plus=1)] == [6, 6, 7]
    assert calls == [3, 3]  # computed once, then held; another keyword is another key


def test_the_shares_of_the_budget_add_up_to_at_most_all_of_it():
    assert 0 < sum(SHARES.values()) <= 1
    with pytest.raises(KeyError):
        BoundedCache(4, name="no such share")
    with pytest.raises(TypeError, match="name"):
        BoundedCache(4)


def test_all_caches_stay_within_the_budget_set():
    card = "examples/templates/social-card.json"
    before = cache_limit()
    try:
        tk.set_cache_limit(2)  # megabytes
        for number in range(12):  # each card new, each twice, so that second-use caches keep them
            for _ in range(2):
                image = decode(
                    tk.render_image(card, {"title": f"Card {number}", "qr": f"https://x.test/{number}"}).data
                )
        assert image.size == (1200, 630)
        usage = tk.cache_usage()
        assert {entry.name for entry in usage} >= {"canvas.last", "text.layouts", "qr.matrices", "glyphs.masks"}
        assert all(entry.bytes <= entry.limit for entry in usage)
        assert sum(entry.bytes for entry in usage) <= 2_000_000
        assert max(entry.bytes for entry in usage) > 0  # something was kept
        tk.set_cache_limit(0)
        assert sum(entry.bytes for entry in tk.cache_usage()) == 0
        with pytest.raises(ValueError, match="megabytes"):
            tk.set_cache_limit(-1)
    finally:
        tk.set_cache_limit(before / 1_000_000)


@pytest.mark.parametrize(("value", "outcome"), [("64", "64000000"), ("abc", "TEMPLATEKIT_CACHE_MB='abc'")])
def test_the_budget_comes_from_the_environment(value, outcome):
    run = subprocess.run(
        [sys.executable, "-c", "import templatekit.cache as c; print(c.cache_limit())"],
        env={"TEMPLATEKIT_CACHE_MB": value, "PATH": ""},
        capture_output=True,
        text=True,
        check=False,
    )
    assert outcome in run.stdout + run.stderr
