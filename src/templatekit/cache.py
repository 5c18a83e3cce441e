"""A bounded least-recently-used cache shared by the stages that keep decoded data, and
``memoized``, the same for a function's results.

Every cache of the engine draws on one budget of bytes, ``TEMPLATEKIT_CACHE_MB``
(default 256) or ``set_cache_limit``: each has a named share of it in ``SHARES``, and
the shares add up to at most the whole, so a process's caches never hold more than the
budget however long it runs. ``cache_usage`` says what each holds.
"""

from __future__ import annotations

import functools
import os
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Generic, ParamSpec, TypeVar

from attrs import frozen

K = TypeVar("K")
V = TypeVar("V")
P = ParamSpec("P")
#: How many keys a cache that keeps only values asked for twice remembers having seen,
#: per entry it may keep (as hashes: a long text is not kept to say it was seen).
SEEN_PER_ENTRY = 2
#: Values put once that such a cache still holds, the latest: a render asks again for
#: what it made moments before (a text measured by its frame, then laid out in it).
RECENT_FIRST_USES = 16
CACHE_MB_ENV = "TEMPLATEKIT_CACHE_MB"
DEFAULT_CACHE_MB = 256.0
MEGABYTE = 1_000_000

#: Each cache's share of the budget, by name. Heavy pixels where repeats are sure (the
#: last render's layers, decoded images), little where data is new at every render.
SHARES: dict[str, float] = {
    "canvas.last": 0.15,  # the previous render of each canvas, painted layer by layer
    "canvas.snapshots": 0.10,  # the canvas as it was under each layer, for partial repaints
    "assets.images": 0.09,  # decoded images, by source and size
    "assets.downloads": 0.05,  # downloaded files
    "assets.files": 0.03,  # local files read, by their version
    "image.prepared": 0.08,  # images fitted, cropped and filtered for their layer
    "raster.resized": 0.07,  # images scaled to the size they are drawn at
    "charts.rasters": 0.05,  # Plotly figures drawn by Kaleido
    "glyphs.masks": 0.06,  # lines of text drawn as coverage masks
    "glyphs.color": 0.03,  # lines of colour glyphs (emoji)
    "raster.box_masks": 0.03,  # rounded and rotated box shapes
    "text.shaped": 0.04,  # runs shaped by HarfBuzz
    "text.layouts": 0.03,  # texts wrapped and fitted to their box
    "template.faces": 0.03,  # fonts that templates bring
    "server.templates": 0.02,  # template versions a server's render worker loaded
    "pdf.subsets": 0.02,  # font subsets embedded in PDFs
    "layout.groups": 0.02,  # layers laid out, by layer and context
    "gradient.images": 0.02,  # gradient fills drawn at their size
    "charts.vectors": 0.01,  # Plotly figures as vector drawings
    "qr.matrices": 0.01,
    "qr.geometry": 0.01,
    "table.cells": 0.01,
    "image.vectors": 0.01,  # SVG images as paths, for vector output
    "scene.bounds": 0.005,
    "paint.needs": 0.002,
    "barcode.patterns": 0.005,
    "pdf.bar_paths": 0.005,
    "pdf.text": 0.005,  # the operators that show a run's glyphs
    "pdf.font_tables": 0.003,  # fonts' names, widths and ToUnicode maps, by glyphs and text
    "raster.corners": 0.002,  # rounded corners of chart bars, by radius and place in the pixel
    "assets.sizes": 0.002,
}


def _budget_from_environment() -> int:
    text = os.environ.get(CACHE_MB_ENV, "").strip()
    if not text:
        return int(DEFAULT_CACHE_MB * MEGABYTE)
    try:
        megabytes = float(text)
    except ValueError:
        raise ValueError(f"{CACHE_MB_ENV}={text!r}: not a number of megabytes") from None
    if not megabytes >= 0:
        raise ValueError(f"{CACHE_MB_ENV}={text!r}: must be 0 or more megabytes")
    return int(megabytes * MEGABYTE)


_budget = _budget_from_environment()
_shared: weakref.WeakSet[BoundedCache[Any, Any]] = weakref.WeakSet()


@frozen
class CacheUsage:
    """What one cache holds now, against its share of the budget."""

    name: str
    entries: int
    bytes: int
    limit: int


def set_cache_limit(megabytes: float) -> None:
    """Bound all of the engine's caches together to ``megabytes`` (0 turns caching off);
    caches over their new share drop their least recently used entries now."""
    if not megabytes >= 0:
        raise ValueError(f"cache limit: {megabytes!r} is not 0 or more megabytes")
    global _budget
    _budget = int(megabytes * MEGABYTE)
    for cache in list(_shared):
        cache.resize(cache.share_of(_budget))


def cache_limit() -> int:
    """The budget of all caches together, in bytes."""
    return _budget


def cache_usage() -> list[CacheUsage]:
    """Each cache's entries and bytes, heaviest first."""
    usage = [CacheUsage(cache.name, len(cache), cache.weight, cache.max_weight) for cache in list(_shared)]
    return sorted(usage, key=lambda entry: (-entry.bytes, entry.name))


class BoundedCache(Generic[K, V]):
    """A thread-safe least-recently-used map, bounded in entries and in total weight
    (bytes), so that a long-running server keeps hot assets without growing forever."""

    def __init__(
        self, max_entries: int, max_weight: int | None = None, *, name: str = "", second_use: bool = False
    ) -> None:
        """``name``: the cache's entry in ``SHARES``, whose share of the budget bounds its
        weight (else ``max_weight`` does). ``second_use``: keep a value only when it is
        put a second time (its key was missed before), so that data which never repeats
        (a new title's laid-out lines, a new QR code) does not push out what does; the
        last ``RECENT_FIRST_USES`` values put once are held too, the first to go."""
        if (max_weight is None) == (name == ""):
            raise TypeError("BoundedCache takes a name (its share of the budget) or a max_weight")
        self.name = name or "unnamed"
        self.max_entries = max_entries
        self.max_weight = self.share_of(_budget) if max_weight is None else max_weight
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()
        self._seen: OrderedDict[int, None] | None = OrderedDict() if second_use else None
        self._recent: OrderedDict[K, tuple[V, int]] = OrderedDict()
        if name:
            _shared.add(self)

    def share_of(self, budget: int) -> int:
        return int(SHARES[self.name] * budget)

    def resize(self, max_weight: int) -> None:
        """A new bound; the least recently used entries go until the cache is under it."""
        with self._lock:
            self.max_weight = max_weight
            self._trim()

    def get(self, key: K) -> V | None:
        with self._lock:
            entry = self._items.get(key)
            if entry is None:
                entry = self._recent.get(key)
                return None if entry is None else entry[0]
            self._items.move_to_end(key)
            return entry[0]

    def put(self, key: K, value: V, weight: int) -> None:
        """Keep ``value``, dropping the least recently used entries to make room.
        A value heavier than the whole cache is not kept."""
        if weight > self.max_weight:
            return
        with self._lock:
            if self._seen is not None and key not in self._items and not self._seen_before(key):
                self._hold_recent(key, value, weight)
                return
            self._drop_recent(key)
            old = self._items.pop(key, None)
            if old is not None:
                self._weight -= old[1]
            self._items[key] = (value, weight)
            self._weight += weight
            self._trim()

    def _trim(self) -> None:
        """Drop the least recently used entries until under both bounds; under the lock."""
        while self._recent and self._weight > self.max_weight:
            self._drop_recent(next(iter(self._recent)))
        while self._items and (len(self._items) > self.max_entries or self._weight > self.max_weight):
            _, (_, dropped) = self._items.popitem(last=False)
            self._weight -= dropped

    def _hold_recent(self, key: K, value: V, weight: int) -> None:
        """Hold a value put for the first time among the latest such; under the lock."""
        self._drop_recent(key)
        self._recent[key] = (value, weight)
        self._weight += weight
        if len(self._recent) > RECENT_FIRST_USES:
            self._drop_recent(next(iter(self._recent)))
        self._trim()

    def _drop_recent(self, key: K) -> None:
        entry = self._recent.pop(key, None)
        if entry is not None:
            self._weight -= entry[1]

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
            self._recent.clear()
            self._weight = 0
            if self._seen is not None:
                self._seen.clear()


def memoized(
    name: str, max_entries: int, weigh: Callable[[Any], int], *, second_use: bool = False
) -> Callable[[Callable[P, V]], Callable[P, V]]:
    """A function's results kept in a ``BoundedCache`` (with the share of the budget
    ``SHARES[name]``) by its arguments, which must be hashable; each weighs
    ``weigh(result)`` bytes. The cache is the wrapper's ``cache`` attribute."""

    def decorate(function: Callable[P, V]) -> Callable[P, V]:
        cache: BoundedCache[Any, V] = BoundedCache(max_entries, name=name, second_use=second_use)

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
