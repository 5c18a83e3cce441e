"""The bounded cache: least recently used first out, by entries and by weight; and,
where data may never repeat, values kept only from their second use."""

from __future__ import annotations

from templatekit.cache import SEEN_PER_ENTRY, BoundedCache, memoized


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
    cache: BoundedCache[str, str] = BoundedCache(max_entries=4, max_weight=100, second_use=True)
    cache.put("once", "1", 1)
    assert cache.get("once") is None and len(cache) == 0
    cache.put("once", "1", 1)
    assert cache.get("once") == "1"
    for number in range(SEEN_PER_ENTRY * 4 + 1):  # enough new keys to forget the first seen
        cache.put(f"new {number}", "x", 1)
    assert len(cache) == 1  # none of them was kept
    cache.put("new 0", "x", 1)  # forgotten as seen: seen again, not kept yet
    assert cache.get("new 0") is None


def test_memoized_results():
    calls: list[int] = []

    @memoized(8, 8, lambda _: 1, second_use=True)
    def double(value: int, *, plus: int = 0) -> int:
        calls.append(value)
        return 2 * value + plus

    assert [double(3), double(3), double(3), double(3, plus=1)] == [6, 6, 6, 7]
    assert calls == [3, 3, 3]  # computed twice, then kept; another keyword is another key
