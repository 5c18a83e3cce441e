"""QR codes as segno makes them, with the data mask chosen faster.

segno scores the eight data masks of ISO/IEC 18004 (7.8.3) module by module in Python:
about 3 ms of the 3.5 ms a code of a URL takes, more than laying out the rest of a card.
Here the code is made once with mask 0, the mask is taken off, and each candidate is
scored with whole rows at a time (bit operations on integers, regular expressions on
strings), by the same rules segno applies, so the chosen mask and the matrix are the
ones ``segno.make`` gives (tests compare them on random contents).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

import segno
from attrs import frozen
from segno import encoder

_RUN = re.compile(r"0{5,}|1{5,}")
_FINDER_LIKE = "1011101"
_N2, _N3, _N4 = 3, 40, 10
Matrix = tuple[bytearray, ...]


@frozen
class _Grid:
    """What scoring a mask needs of a code's size, row by row as integers (the first
    column is the highest bit): the data modules, the format and version areas, and
    each mask's pattern."""

    size: int
    data: tuple[int, ...]
    reserved: tuple[int, ...]
    masks: tuple[tuple[int, ...], ...]


def qr_matrix(content: str, error: str) -> tuple[str, ...]:
    """The rows of the code's matrix as strings, "1" for a dark module."""
    plain = segno.make(content, error=error, micro=False, boost_error=False, mask=0)
    grid = _grid(len(plain.matrix))
    unmasked = [_row_int(row) ^ (grid.masks[0][i] & grid.data[i]) for i, row in enumerate(plain.matrix)]
    scored = [row & ~grid.reserved[i] for i, row in enumerate(unmasked)]  # as segno scores: before format info
    best = min(range(8), key=lambda k: _penalty([r ^ (grid.masks[k][i] & grid.data[i]) for i, r in enumerate(scored)]))
    if best == 0:
        return tuple("".join(map(str, row)) for row in plain.matrix)
    masked = [r ^ (grid.masks[best][i] & grid.data[i]) for i, r in enumerate(unmasked)]
    matrix: Matrix = tuple(bytearray(int(bit) for bit in _bits(row, grid.size)) for row in masked)
    encoder.add_format_info(matrix, plain.version, encoder.normalize_errorlevel(error), best)
    encoder.add_version_info(matrix, plain.version)
    return tuple("".join(map(str, row)) for row in matrix)


def _row_int(row: bytearray) -> int:
    return int("".join("1" if bit else "0" for bit in row), 2)


def _bits(row: int, size: int) -> str:
    return format(row, f"0{size}b")


@cache
def _grid(size: int) -> _Grid:
    function = encoder.make_matrix(size, size)
    encoder.add_finder_patterns(function, size, size)
    encoder.add_alignment_patterns(function, size, size)
    function[-8][8] = 0x1  # the dark module
    data = tuple(_row_int(bytearray(1 if value > 1 else 0 for value in row)) for row in function)
    # the format and version areas: reserved (0) where an unreserved matrix has nothing
    # (2); the timing pattern's modules among them stay as they are
    reserved_matrix = encoder.make_matrix(size, size, reserve_regions=True)
    plain = encoder.make_matrix(size, size, reserve_regions=False)
    reserved = tuple(
        _row_int(bytearray(1 if a == 0 and b == 2 else 0 for a, b in zip(r, p, strict=True)))
        for r, p in zip(reserved_matrix, plain, strict=True)
    )
    functions: list[Callable[[int, int], int]] = encoder.get_data_mask_functions(False)
    masks = tuple(
        tuple(_row_int(bytearray(function(i, j) for j in range(size))) for i in range(size)) for function in functions
    )
    return _Grid(size, data, reserved, masks)


def _penalty(rows: list[int]) -> int:
    """segno's ``evaluate_mask`` (N1 + N2 + N3 + N4) of the matrix given as row integers.
    The rows and columns are scored as one text, each ended by a "2", which no run or
    pattern crosses."""
    size = len(rows)
    lines = [_bits(row, size) for row in rows]
    text = "2".join((*lines, *map("".join, zip(*lines, strict=True)))) + "2"
    runs = _RUN.findall(text)
    n1 = sum(map(len, runs)) - 2 * len(runs)
    inner = (1 << (size - 1)) - 1
    n2 = 0
    for above, row in zip(rows, rows[1:], strict=False):
        n2 += (~(row ^ (row >> 1)) & ~(above ^ (above >> 1)) & ~(row ^ above) & inner).bit_count()
    n3 = _finder_like(text, size)
    dark = sum(row.bit_count() for row in rows)
    n4 = _N4 * int(abs(dark / size**2 * 100 - 50) / 5)
    return n1 + _N2 * n2 + n3 + n4


def _finder_like(text: str, size: int) -> int:
    """segno's N3 of every row and column (``text``: each of ``size`` modules and a
    separator): 1:1:3:1:1 with four light modules on a side."""
    count = 0
    found = text.find(_FINDER_LIKE)
    while found != -1:
        index = found % (size + 1)  # within its line
        before = text[found - min(index, 4) : found]
        after = text[found + 7 : found + 7 + max(0, min(4, size - index - 7))]
        if index in (0, size - 7) or "1" not in before or "1" not in after:
            count += _N3
            found = text.find(_FINDER_LIKE, found + 7)
        else:
            found = text.find(_FINDER_LIKE, found + 4)
    return count
