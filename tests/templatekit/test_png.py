"""The PNG writer's checksum of stripes deflated apart."""

from __future__ import annotations

import zlib

import pytest

from templatekit import png

hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies


@hypothesis.given(st.binary(max_size=70_000), st.binary(max_size=70_000))
def test_adler32_of_joined_buffers_from_theirs(first: bytes, second: bytes) -> None:
    joined = png._adler32_combine(zlib.adler32(first), zlib.adler32(second), len(second))
    assert joined == zlib.adler32(first + second)
