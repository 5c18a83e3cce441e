"""Stores: bytes written to and read from any fsspec URL.

``Store("file:///srv/out")`` writes to a local folder, ``Store("s3://bucket/prefix",
key=…, secret=…, endpoint_url=…)`` to S3 through s3fs, ``Store("memory://tests")`` to
memory (the test double). Keys are relative paths below the store's root; a key that
would leave the root is refused.
"""

from __future__ import annotations

import copy
import os
import posixpath
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from templatekit import extras
from templatekit.errors import StorageError

_KEY = re.compile(r"[A-Za-z0-9_.\-]+(/[A-Za-z0-9_.\-]+)*")


def checked_key(key: str) -> str:
    """``key`` when it is a plain relative path (letters, digits, ``_.-``, separated by
    ``/``; no empty, ``.`` or ``..`` parts), else StorageError."""
    parts = key.split("/")
    if not _KEY.fullmatch(key) or any(part in (".", "..") for part in parts):
        raise StorageError(f"storage key {key[:200]!r}: must be a relative path of letters, digits, '_', '.', '-'")
    return key


class Store:
    """Bytes under one root URL. ``options`` go to the fsspec filesystem (for s3fs:
    ``key``, ``secret``, ``endpoint_url``, ``client_kwargs``, …). ``timeout`` bounds
    each whole operation on a remote store, retries included: a service that accepts
    the connection and never answers fails the operation instead of hanging it."""

    def __init__(self, url: str, *, timeout: float | None = None, **options: Any) -> None:
        from fsspec.core import url_to_fs  # imported by the first store: most renders store nothing

        self.url = url
        try:
            self.fs, root = url_to_fs(url, **options)
        except ImportError as exc:  # the filesystem's package is not installed
            reason = extras.explain("s3", exc) if url.startswith("s3:") else str(exc)
            raise StorageError(f"storage {url}: {reason}") from None
        except ValueError as exc:
            raise StorageError(f"storage {url}: {exc}") from None
        self.root = root.rstrip("/")
        self.local = "file" in _protocols(self.fs)
        # fsspec's blocking wrappers of asynchronous filesystems take a deadline
        self._deadline = {"timeout": timeout} if timeout and getattr(self.fs, "async_impl", False) else {}

    def below(self, prefix: str) -> Store:
        """The same storage with its keys below ``prefix`` (one filesystem, no new
        connection): a workspace's assets below the server's files, say."""
        view = copy.copy(self)
        view.root = self.path(prefix)
        view.url = f"{self.url.rstrip('/')}/{checked_key(prefix)}"
        return view

    def path(self, key: str) -> str:
        """The filesystem path of ``key``."""
        return posixpath.join(self.root, checked_key(key))

    def put(self, key: str, data: bytes, content_type: str | None = None) -> None:
        """Write ``data`` under ``key``, whole or not at all: a local file is written
        beside its place and renamed, an object store takes the object in one request."""
        path = self.path(key)
        try:
            if self.local:
                self.fs.makedirs(posixpath.dirname(path), exist_ok=True)
                partial = f"{path}.{uuid.uuid4().hex}.partial"
                try:
                    self.fs.pipe_file(partial, data)
                    self.fs.mv(partial, path)
                finally:
                    if self.fs.exists(partial):
                        self.fs.rm(partial)
            elif content_type is not None:
                self.fs.pipe_file(path, data, ContentType=content_type, **self._deadline)
            else:
                self.fs.pipe_file(path, data, **self._deadline)
        except StorageError:
            raise
        except Exception as exc:  # every fsspec backend has its own errors
            raise self._failed(f"cannot write {key} to {self.url}", exc) from None

    def put_file(self, key: str, source: str | os.PathLike[str], content_type: str | None = None) -> None:
        """Copy a local file under ``key`` without reading it whole into memory."""
        path = self.path(key)
        try:
            if self.local:
                self.fs.makedirs(posixpath.dirname(path), exist_ok=True)
                self.fs.put_file(os.fspath(source), path)
            elif content_type is not None:
                self.fs.put_file(os.fspath(source), path, ContentType=content_type, **self._deadline)
            else:
                self.fs.put_file(os.fspath(source), path, **self._deadline)
        except Exception as exc:
            raise self._failed(f"cannot write {key} to {self.url}", exc) from None

    def get(self, key: str) -> bytes:
        try:
            return bytes(self.fs.cat_file(self.path(key), **self._deadline))
        except FileNotFoundError:
            raise StorageError(f"{key} is not in {self.url}") from None
        except StorageError:
            raise
        except Exception as exc:
            raise self._failed(f"cannot read {key} from {self.url}", exc) from None

    def _failed(self, what: str, exc: BaseException) -> StorageError:
        """The error for ``exc``; its public text gives the kind of failure only (an
        OS error's description, a timeout), never paths, hosts or bucket names."""
        if self._deadline and type(exc).__name__ == "FSTimeoutError":
            reason = f"no answer within {self._deadline['timeout']:g} s"
            return StorageError(f"{what}: {reason}", public=f"the file storage gave {reason}")
        kind = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        return StorageError(f"{what}: {_reason(exc)}", public=f"the file storage failed ({kind})")

    @contextmanager
    def open(self, key: str) -> Iterator[IO[bytes]]:
        """``key`` opened for reading, for streaming large files."""
        try:
            handle = self.fs.open(self.path(key), "rb")
        except FileNotFoundError:
            raise StorageError(f"{key} is not in {self.url}") from None
        with handle:
            yield handle

    def exists(self, key: str) -> bool:
        return bool(self.fs.exists(self.path(key)))

    def size(self, key: str) -> int:
        return int(self.fs.size(self.path(key)))

    def delete(self, key: str) -> None:
        path = self.path(key)
        if self.fs.exists(path):
            self.fs.rm(path)

    def presigned_url(self, key: str, expires: int) -> str | None:
        """A URL that reads ``key`` for ``expires`` seconds without credentials, when the
        backend can make one (S3 can, local folders cannot)."""
        if self.local:
            return None
        try:
            return str(self.fs.url(self.path(key), expires=expires))
        except (NotImplementedError, AttributeError, TypeError):
            return None


def _protocols(fs: Any) -> tuple[str, ...]:
    protocol = fs.protocol
    return (protocol,) if isinstance(protocol, str) else tuple(protocol)


def _reason(exc: BaseException) -> str:
    """A one-line reason, without the credentials that some backends echo."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:300]
