"""The PNG writer's checksum of stripes deflated apart."""

from __future__ import annotations

import zlib

import pytest

from templatekit.outputs import png

hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies


@hypothesis.given(st.binary(max_size=70_000), st.binary(max_size=70_000))
def test_adler32_of_joined_buffers_from_theirs(first: bytes, second: bytes) -> None:
    joined = png._adler32_combine(zlib.adler32(first), zlib.adler32(second), len(second))
    assert joined == zlib.adler32(first + second)


def _encode_in_child(queue: object) -> None:
    from PIL import Image

    queue.put(len(png.write_png(Image.new("RGB", (1200, 800), "red"))))  # type: ignore[attr-defined]


def test_a_forked_process_encodes_with_threads_of_its_own() -> None:
    """render_many's workers are forked from a process that may have used the stripe
    threads: the child must not wait for threads it does not have."""
    import multiprocessing

    from PIL import Image

    png.write_png(Image.new("RGB", (1200, 800), "blue"))  # this process's threads exist now
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_encode_in_child, args=(queue,))
    child.start()
    child.join(60)
    if child.is_alive():
        child.kill()
    assert child.exitcode == 0 and queue.get(timeout=5) > 0
