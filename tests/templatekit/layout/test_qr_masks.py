"""QR codes with the mask chosen by the faster scoring are segno's own codes, module
for module, whatever the content, error level and version."""

from __future__ import annotations

import random
import string

import pytest
import segno
from segno import encoder as segno_encoder

from templatekit.layout.qr_masks import _Lines, _penalty, qr_matrix

hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies


def segnos(content: str, error: str) -> tuple[str, ...]:
    code = segno.make(content, error=error, micro=False, boost_error=False)
    return tuple("".join(map(str, row)) for row in code.matrix_iter(scale=1, border=0))


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(st.text(min_size=1, max_size=600), st.sampled_from("lmqh"))
def test_the_same_code_as_segno(content: str, error: str) -> None:
    try:
        expected = segnos(content, error)
    except segno.DataOverflowError:
        return
    assert qr_matrix(content, error) == expected


@pytest.mark.slow  # every mask, up to version 40: the full run's
def test_every_mask_and_large_versions() -> None:
    """Contents of many lengths (versions up to 40, with their alignment and version
    areas), among them codes of every mask."""
    rng = random.Random(5)
    chosen = set()
    for _ in range(40):
        length = rng.choice((5, 30, 150, 700, 1500, 2300))
        content = "".join(rng.choice(string.ascii_letters + string.digits + " /:.") for _ in range(length))
        code = segno.make(content, error="l", micro=False, boost_error=False)
        assert qr_matrix(content, "l") == segnos(content, "l"), (length, code.mask)
        chosen.add(code.mask)
    assert chosen == set(range(8))


OVERLAPPING = ("10111011101", "1011101011101", "00001011101", "10111010000")


@hypothesis.settings(max_examples=400, deadline=None)
@hypothesis.given(st.integers(21, 45), st.randoms(use_true_random=False))
def test_the_penalty_is_segnos(size: int, rng: random.Random) -> None:
    """Any matrix scores as segno's ``evaluate_mask`` scores it, among them matrices full
    of finder-like patterns that overlap (4 and 6 modules apart) or touch the edge."""
    rows = []
    for _ in range(size):
        line = "".join(rng.choice(("0", "1", *OVERLAPPING)) for _ in range(size))
        rows.append(line[:size] if rng.random() < 0.7 else line[-size:])
    matrix = [bytearray(int(bit) for bit in row) for row in rows]
    lines = _Lines.of(size)
    packed = lines.pack([int(row, 2) for row in rows])
    columns = lines.pack([int("".join(column), 2) for column in zip(*rows, strict=True)])
    assert _penalty(packed, columns, lines) == segno_encoder.evaluate_mask(matrix, size, size)
