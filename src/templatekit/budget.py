"""The memory budget of one render.

Every large allocation of a render (decoded images, SVG rasters, the canvas, layer
surfaces, masks, glyph bitmaps) asks the budget first (painting's before it starts:
``ask``), with its size in bytes, so that a
template that would take more than the budget is refused in milliseconds, naming the
layer and the figure, before anything large is allocated. Buffers that live as long as
the render (the canvas, decoded images) are ``hold``-ed; short-lived ones (a mask, a
resized copy) are ``check``-ed against what is left.

The budget of the render under way and the layer being worked on are context
variables, so that the loader and the painters need no extra arguments and renders in
threads do not share them. Outside a render (a painter called directly) nothing is
counted.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from contextvars import ContextVar

from templatekit.errors import LimitError
from templatekit.scene.memory import Buffer, ForLayer, Held, Need, image_bytes, pixels

ENV = "TEMPLATEKIT_RENDER_MEMORY"
#: 1 GiB: a 4K canvas at scale 2 (133 MB) with two copies, four 50-megapixel photos
#: (200 MB each) and their masks fit; thirty 7000x7000 photos (5.9 GB) do not.
DEFAULT_BYTES = 1 << 30


class MemoryBudget:
    """Bytes a render may hold at once, and how many it holds."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit  # None: unlimited, nothing counted
        self.held = 0

    def check(self, size: int, what: str) -> None:
        """Refuse ``size`` more bytes, for ``what``, if they do not fit in what is left."""
        if self.limit is not None and self.held + size > self.limit:
            raise LimitError(_refusal(size, what, self.limit - self.held, self.limit), layer=_LAYER.get())

    def hold(self, size: int, what: str) -> None:
        """Count ``size`` bytes as held until the render ends."""
        self.check(size, what)
        if self.limit is not None:
            self.held += size

    @contextlib.contextmanager
    def holding(self, size: int, what: str) -> Iterator[None]:
        """Count ``size`` bytes as held while the block runs."""
        self.hold(size, what)
        try:
            yield
        finally:
            if self.limit is not None:
                self.held -= size


def _refusal(size: int, what: str, left: int, limit: int) -> str:
    layer = _LAYER.get()
    place = f"layer {layer!r}: " if layer else ""
    return (
        f"{place}{what} needs {_amount(size)}, more than the {_amount(max(0, left))} left of the render's "
        f"memory budget ({_amount(limit)}; {ENV} sets it)"
    )


def _amount(size: int) -> str:
    for unit, factor in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= factor:
            return f"{size / factor:.1f} {unit}"
    return f"{size} bytes"


def default_limit() -> int:
    """``TEMPLATEKIT_RENDER_MEMORY`` (bytes) when set, else ``DEFAULT_BYTES``."""
    raw = os.environ.get(ENV, "").strip()
    if not raw:
        return DEFAULT_BYTES
    try:
        return int(raw)
    except ValueError:
        raise LimitError(f"{ENV}={raw!r} is not a number of bytes") from None


_UNLIMITED = MemoryBudget(None)
_BUDGET: ContextVar[MemoryBudget] = ContextVar("templatekit_budget", default=_UNLIMITED)
_LAYER: ContextVar[str | None] = ContextVar("templatekit_budget_layer", default=None)


def current() -> MemoryBudget:
    return _BUDGET.get()


@contextlib.contextmanager
def render(limit: int | None = None) -> Iterator[MemoryBudget]:
    """A fresh budget of ``limit`` bytes (default: ``default_limit()``) for the render
    in the block; inside a render already budgeted, that render's budget."""
    outer = _BUDGET.get()
    if outer is not _UNLIMITED:
        yield outer
        return
    token = _BUDGET.set(MemoryBudget(default_limit() if limit is None else limit))
    try:
        yield _BUDGET.get()
    finally:
        _BUDGET.reset(token)


@contextlib.contextmanager
def layer(name: str | None) -> Iterator[None]:
    """Name ``name`` (a layer) in refusals made inside the block."""
    token = _LAYER.set(name)
    try:
        yield
    finally:
        _LAYER.reset(token)


def hold_image(size: tuple[int, int], what: str) -> None:
    """Hold an RGBA image of ``size`` for the rest of the render."""
    current().hold(image_bytes("RGBA", size), f"{what} ({pixels(size)})")


def ask(needs: Iterable[Need]) -> None:
    """Refuse, with a ``LimitError``, painting that would make ``needs`` (in the order a
    painter makes them) beyond what is left of the budget. Outside a render nothing is
    counted, and nothing is worked out."""
    memory = current()
    if memory.limit is not None:
        _ask(memory, needs)


def _ask(memory: MemoryBudget, needs: Iterable[Need]) -> None:
    for need in needs:
        if type(need) is Buffer:
            memory.check(need.size, need.what)
        elif type(need) is Held:
            with memory.holding(need.size, need.what):
                _ask(memory, need.inner)
        else:
            assert isinstance(need, ForLayer)
            with layer(need.name):
                _ask(memory, need.inner)
