"""Stores on fsspec: local folders and memory, keys that cannot leave the root."""

from __future__ import annotations

import pytest

from templatekit.errors import StorageError
from templatekit.storage import Store


@pytest.fixture(params=["file", "memory"])
def store(request, tmp_path):
    if request.param == "file":
        return Store(tmp_path.as_uri())
    return Store(f"memory://store-{tmp_path.name}")


def test_bytes_go_in_and_come_out(store, tmp_path):
    store.put("images/a/card.png", b"\x89PNG data", "image/png")
    assert store.get("images/a/card.png") == b"\x89PNG data"
    assert store.exists("images/a/card.png") and store.size("images/a/card.png") == 9
    with store.open("images/a/card.png") as handle:
        assert handle.read(4) == b"\x89PNG"
    source = tmp_path / "video.mp4"
    source.write_bytes(b"movie" * 1000)
    store.put_file("videos/v.mp4", source, "video/mp4")
    assert store.get("videos/v.mp4") == b"movie" * 1000
    store.delete("images/a/card.png")
    assert not store.exists("images/a/card.png")


def test_a_local_write_leaves_no_partial_file(tmp_path):
    store = Store(tmp_path.as_uri())
    store.put("a/b.bin", b"x" * 100)
    store.put("a/b.bin", b"y" * 10)
    assert [path.name for path in (tmp_path / "a").iterdir()] == ["b.bin"]
    assert store.get("a/b.bin") == b"y" * 10
    assert store.presigned_url("a/b.bin", 60) is None


@pytest.mark.parametrize("key", ["../escape", "a/../../b", "/abs", "a//b", "", "a/./b", "spaces here", "a\\b"])
def test_keys_that_could_leave_the_root_are_refused(store, key):
    with pytest.raises(StorageError, match="storage key"):
        store.put(key, b"x")


def test_a_missing_key_is_a_storage_error(store):
    with pytest.raises(StorageError, match="nothing.png is not in"):
        store.get("nothing.png")
