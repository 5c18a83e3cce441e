"""QR codes as segno makes them, with the data mask chosen faster.

segno scores the eight data masks of ISO/IEC 18004 (7.8.3) module by module in Python:
about 3 ms of the 3.5 ms a code of a URL takes, more than laying out the rest of a card.
Here the code is made once with mask 0, the mask is taken off, and each candidate is
scored by the same rules segno applies, so the chosen mask and the matrix are the ones
``segno.make`` gives (tests compare them on random contents).

Each candidate is scored on two integers, its rows and its columns, each line's modules
one bit each with four light modules between lines (``_Lines``): runs, blocks, finder-like
patterns and dark modules are then counted by shifts, masks and ``bit_count`` over the
whole matrix at once, a few dozen operations a mask.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

import segno
from attrs import frozen
from segno import encoder

_N1, _N2, _N3, _N4 = 3, 3, 40, 10
_GAP = 4  # light modules between lines: a finder-like pattern's light side, and more than
# the pattern's own light runs (of one), so that no pattern spans two lines
_DIGITS = bytes.maketrans(b"\x00\x01", b"01")


@frozen
class _Lines:
    """How the lines of a ``size``-module matrix are packed into one integer: line k at
    bit ``_GAP + (size - 1 - k) * stride``, its first module the highest bit, so that
    lines and modules read in text order from the highest bit down."""

    size: int
    stride: int
    content: int  # every module's bit
    light: int  # every bit of the packing, the gaps above and below included
    pairs: int  # modules with one before them in their line and a line above them

    @classmethod
    def of(cls, size: int) -> _Lines:
        stride = size + _GAP
        full = (1 << size) - 1
        return cls(
            size,
            stride,
            _pack([full] * size, stride),
            (1 << (size * stride + _GAP)) - 1,
            _pack([0] + [full >> 1] * (size - 1), stride),
        )

    def pack(self, lines: Sequence[int]) -> int:
        return _pack(lines, self.stride)


def _pack(lines: Sequence[int], stride: int) -> int:
    packed = 0
    for line in lines:
        packed = (packed << stride) | line
    return packed << _GAP


@frozen
class _Grid:
    """What scoring a mask needs of a code's size, rows and columns packed: each mask's
    pattern over the data modules, and the format and version areas."""

    lines: _Lines
    masks_rows: tuple[int, ...]
    masks_columns: tuple[int, ...]
    reserved_rows: int
    reserved_columns: int


def qr_matrix(content: str, error: str) -> tuple[str, ...]:
    """The rows of the code's matrix as strings, "1" for a dark module."""
    plain = segno.make(content, error=error, micro=False, boost_error=False, mask=0)
    grid = _grid(len(plain.matrix))
    lines = grid.lines
    rows = lines.pack([_line_int(row) for row in plain.matrix]) ^ grid.masks_rows[0]
    columns = lines.pack([_line_int(column) for column in zip(*plain.matrix, strict=True)]) ^ grid.masks_columns[0]
    scored_rows, scored_columns = (
        rows & ~grid.reserved_rows,
        columns & ~grid.reserved_columns,
    )  # as segno: before format info
    best = min(
        range(8),
        key=lambda k: _penalty(scored_rows ^ grid.masks_rows[k], scored_columns ^ grid.masks_columns[k], lines),
    )
    if best == 0:
        return tuple(row.translate(_DIGITS).decode() for row in map(bytes, plain.matrix))
    masked = _unpack(rows ^ grid.masks_rows[best], lines)
    matrix = tuple(bytearray(int(bit) for bit in row) for row in masked)
    encoder.add_format_info(matrix, plain.version, encoder.normalize_errorlevel(error), best)
    encoder.add_version_info(matrix, plain.version)
    return tuple(bytes(row).translate(_DIGITS).decode() for row in matrix)


def _line_int(modules: Sequence[int]) -> int:
    return int(bytes(modules).translate(_DIGITS), 2)


def _unpack(packed: int, lines: _Lines) -> list[str]:
    """The packed lines as strings of their modules, first line first."""
    size, stride = lines.size, lines.stride
    full = (1 << size) - 1
    return [format((packed >> (_GAP + (size - 1 - k) * stride)) & full, f"0{size}b") for k in range(size)]


@cache
def _grid(size: int) -> _Grid:
    function = encoder.make_matrix(size, size)
    encoder.add_finder_patterns(function, size, size)
    encoder.add_alignment_patterns(function, size, size)
    function[-8][8] = 0x1  # the dark module
    data = [[1 if value > 1 else 0 for value in row] for row in function]
    # the format and version areas: reserved (0) where an unreserved matrix has nothing
    # (2); the timing pattern's modules among them stay as they are
    reserved_matrix = encoder.make_matrix(size, size, reserve_regions=True)
    plain = encoder.make_matrix(size, size, reserve_regions=False)
    reserved = [
        [1 if a == 0 and b == 2 else 0 for a, b in zip(r, p, strict=True)]
        for r, p in zip(reserved_matrix, plain, strict=True)
    ]
    functions: list[Callable[[int, int], int]] = encoder.get_data_mask_functions(False)
    masks = [[[function(i, j) & data[i][j] for j in range(size)] for i in range(size)] for function in functions]
    lines = _Lines.of(size)

    def packed(matrix: list[list[int]], columns: bool) -> int:
        return lines.pack([_line_int(line) for line in (zip(*matrix, strict=True) if columns else matrix)])

    return _Grid(
        lines,
        tuple(packed(mask, False) for mask in masks),
        tuple(packed(mask, True) for mask in masks),
        packed(reserved, False),
        packed(reserved, True),
    )


def _penalty(rows: int, columns: int, lines: _Lines) -> int:
    """segno's ``evaluate_mask`` (N1 + N2 + N3 + N4) of the matrix given packed by rows
    and by columns."""
    dark = rows.bit_count()
    n4 = _N4 * int(abs(dark / lines.size**2 * 100 - 50) / 5)
    return (
        _runs(rows, lines)
        + _runs(columns, lines)
        + _N2 * _blocks(rows, lines)
        + _N3 * (_finder_like(rows, lines) + _finder_like(columns, lines))
        + n4
    )


def _runs(packed: int, lines: _Lines) -> int:
    """N1: each run of five or more modules of one colour in a line scores its length
    less 2. ``windows`` marks where five modules of a colour start, so a run of length L
    marks L - 4 bits in a row; each such group is one run."""
    score = 0
    for modules in (packed, ~packed & lines.content):
        windows = modules & modules >> 1 & modules >> 2 & modules >> 3 & modules >> 4
        score += windows.bit_count() + 2 * (windows & ~(windows << 1)).bit_count()
    return score


def _blocks(rows: int, lines: _Lines) -> int:
    """N2: the 2x2 blocks of one colour, counted at each block's lower right module."""
    across = rows ^ (rows >> 1)  # differs from the module before it
    down = rows ^ (rows >> lines.stride)  # differs from the module above it
    return (~(across | (across >> lines.stride) | down) & lines.pairs).bit_count()


def _finder_like(packed: int, lines: _Lines) -> int:
    """N3: the 1:1:3:1:1 patterns (dark, light, dark x3, light, dark) with four light
    modules before or after them in their line, the matrix's edge counting as light. A
    pattern at bit q spans bits q + 6 down to q. As segno does, a pattern that counts hides
    any other starting within it, one that does not hides those starting in its first
    four modules: only patterns 4 or 6 modules apart overlap, and only then are they
    walked one by one."""
    light = ~packed & lines.light
    found = packed >> 6 & light >> 5 & packed >> 4 & packed >> 3 & packed >> 2 & light >> 1 & packed
    before = light >> 7 & light >> 8 & light >> 9 & light >> 10
    after = light << 1 & light << 2 & light << 3 & light << 4
    counted = before | after
    if not found & (found >> 4 | found >> 6):
        return (found & counted).bit_count()
    count, limit = 0, found.bit_length()
    while found:
        at = found.bit_length() - 1
        found ^= 1 << at
        if at > limit:
            continue
        if counted >> at & 1:
            count, limit = count + 1, at - 7
        else:
            limit = at - 4
    return count
