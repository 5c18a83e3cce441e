"""A bounded least-recently-used cache shared by the stages that keep decoded data, and
``memoized``, the same for a function's results."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Generic, ParamSpec, TypeVar

K = TypeVar("K")
V = TypeVar("V")
P = ParamSpec("P")
#: How many keys a cache that keeps only values asked for twice remembers having seen,
#: per entry it may keep (as hashes: a long text is not kept to say it was seen).
SEEN_PER_ENTRY = 2


class BoundedCache(Generic[K, V]):
    """A thread-safe least-recently-used map, bounded in entries and in total weight
    (bytes), so that a long-running server keeps hot assets without growing forever."""

    def __init__(self, max_entries: int, max_weight: int, *, second_use: bool = False) -> None:
        """``second_use``: keep a value only when it is put a second time (its key was
        missed before), so that data which never repeats (a new title's laid-out lines,
        a new QR code) does not push out what does."""
        self.max_entries = max_entries
        self.max_weight = max_weight
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()
        self._seen: OrderedDict[int, None] | None = OrderedDict() if second_use else None

    def get(self, key: K) -> V | None:
        with self._lock:
            entry = self._items.get(key)
            if entry is None:
                return None
            self._items.move_to_end(key)
            return entry[0]

    def put(self, key: K, value: V, weight: int) -> None:
        """Keep ``value``, dropping the least recently used entries to make room.
        A value heavier than the whole cache is not kept."""
        if weight > self.max_weight:
            return
        with self._lock:
            if self._seen is not None and key not in self._items and not self._seen_before(key):
                return
            old = self._items.pop(key, None)
            if old is not None:
                self._weight -= old[1]
            self._items[key] = (value, weight)
            self._weight += weight
            while len(self._items) > self.max_entries or self._weight > self.max_weight:
                _, (_, dropped) = self._items.popitem(last=False)
                self._weight -= dropped

    def _seen_before(self, key: K) -> bool:
        """Whether ``key`` was put before (and remember it now); under the lock."""
        assert self._seen is not None
        marker = hash(key)
        if marker in self._seen:
            del self._seen[marker]
            return True
        self._seen[marker] = None
        if len(self._seen) > SEEN_PER_ENTRY * self.max_entries:
            self._seen.popitem(last=False)
        return False

    @property
    def weight(self) -> int:
        return self._weight

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._weight = 0
            if self._seen is not None:
                self._seen.clear()


def memoized(
    max_entries: int, max_weight: int, weigh: Callable[[Any], int], *, second_use: bool = False
) -> Callable[[Callable[P, V]], Callable[P, V]]:
    """A function's results kept in a ``BoundedCache`` by its arguments (which must be
    hashable), each weighing ``weigh(result)`` bytes; the cache is the wrapper's
    ``cache`` attribute."""

    def decorate(function: Callable[P, V]) -> Callable[P, V]:
        cache: BoundedCache[Any, V] = BoundedCache(max_entries, max_weight, second_use=second_use)

        @functools.wraps(function)
        def cached(*args: P.args, **kwargs: P.kwargs) -> V:
            key = (args, tuple(sorted(kwargs.items()))) if kwargs else args
            found = cache.get(key)
            if found is None:
                found = function(*args, **kwargs)
                cache.put(key, found, weigh(found))
            return found

        cached.cache = cache  # type: ignore[attr-defined]
        return cached

    return decorate
