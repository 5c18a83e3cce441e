"""The memory painting takes, as a painter describes it before it paints.

Painting cannot fail: a painter given a Scene draws it. So the buffers it will make are
described first, from the Scene alone (``templatekit.paint.needs``), and the render's
budget is asked for them at the end of ``prepare`` (``templatekit.budget.ask``), where a
refusal can still name the layer and the figure. A need is a buffer made and dropped, a
buffer held while others are made, or needs made for a layer (a refusal names it).
"""

from __future__ import annotations

from typing import Union

from attrs import frozen

_BYTES_PER_PIXEL = {"1": 1, "L": 1, "LA": 2, "RGB": 4, "RGBA": 4, "I": 4, "F": 4}


def image_bytes(mode: str, size: tuple[int, int]) -> int:
    return size[0] * size[1] * _BYTES_PER_PIXEL.get(mode, 4)


def pixels(size: tuple[int, int]) -> str:
    """``size`` as messages show it: 1,200x630 px."""
    return f"{size[0]:,}x{size[1]:,} px"


@frozen
class Buffer:
    """A buffer made and dropped: ``size`` bytes, for ``what``."""

    what: str
    size: int


@frozen
class Held:
    """A buffer kept while the ``inner`` needs are made."""

    what: str
    size: int
    inner: tuple[Need, ...]


@frozen
class ForLayer:
    """Needs made for the layer ``name``."""

    name: str
    inner: tuple[Need, ...]


Need = Union[Buffer, Held, ForLayer]


def image(what: str, mode: str, size: tuple[int, int], count: int = 1, each: bool = False) -> Buffer:
    """An image of ``size`` pixels; ``count`` of them at once are one need (``each``: the
    message gives the size of one)."""
    return Buffer(f"{what} ({pixels(size)}{' each' if each else ''})", count * image_bytes(mode, size))


def held(what: str, size: tuple[int, int], inner: tuple[Need, ...]) -> Held:
    """An RGBA image of ``size`` kept while the ``inner`` needs are made."""
    return Held(f"{what} ({pixels(size)})", image_bytes("RGBA", size), inner)
