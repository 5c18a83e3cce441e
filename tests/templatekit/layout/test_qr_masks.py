"""QR codes with the mask chosen by the faster scoring are segno's own codes, module
for module, whatever the content, error level and version."""

from __future__ import annotations

import random
import string

import pytest
import segno

from templatekit.layout.qr_masks import qr_matrix

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
