"""A bounded least-recently-used cache shared by the stages that keep decoded data."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """A thread-safe least-recently-used map, bounded in entries and in total weight
    (bytes), so that a long-running server keeps hot assets without growing forever."""

    def __init__(self, max_entries: int, max_weight: int) -> None:
        self.max_entries = max_entries
        self.max_weight = max_weight
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()

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
            old = self._items.pop(key, None)
            if old is not None:
                self._weight -= old[1]
            self._items[key] = (value, weight)
            self._weight += weight
            while len(self._items) > self.max_entries or self._weight > self.max_weight:
                _, (_, dropped) = self._items.popitem(last=False)
                self._weight -= dropped

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._weight = 0
