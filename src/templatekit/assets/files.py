"""Local files: which ones a ``src`` path may read, and reading one without surprises.

A path is resolved (symbolic links followed, ``..`` removed) before it is judged, so that
neither a link nor a ``..`` leads out of the folders a loader may read. Only regular files
are read, opened without waiting (a FIFO would block) and read up to the byte limit: a
device such as ``/dev/zero`` never ends, and the files of ``/proc`` and ``/sys`` claim
no size. A loader confined to folders answers a file outside them as it answers a
missing one, so that its messages do not tell what exists.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

from attrs import frozen

from templatekit.assets.common import Problem
from templatekit.cache import BoundedCache

#: Kernel file systems: their files claim no size, and some never end.
VIRTUAL = (Path("/proc"), Path("/sys"))
#: How a confined loader answers both a missing file and one outside its folders.
NOT_HERE = "no such file in the template's folder or the other folders files may be read from"
#: Files read, by the version of the file they were read from (device, inode, size and
#: change time): a template's fonts and pictures are read once, not at every render, and
#: the same bytes object comes back, so the caches keyed by it hit at once.
_READ: BoundedCache[tuple[int, int, int, int], bytes] = BoundedCache(64, name="assets.files")
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)


@frozen
class LocalFiles:
    """Which local files may be read: any the process can read (``folders`` None), or
    only those inside the template's folder or one of ``folders``."""

    folders: tuple[Path, ...] | None = None

    @classmethod
    def within(cls, folders: Iterable[str | os.PathLike[str]]) -> LocalFiles:
        return cls(tuple(Path(folder).resolve() for folder in folders))

    def locate(self, src: str, scheme: str, base_dir: Path | None) -> Path:
        """The file ``src`` names, resolved; a Problem when it may not be read."""
        path = _resolved(_named(src, scheme, base_dir))
        if self.folders is not None:
            allowed = self.folders if base_dir is None else (_resolved(Path(base_dir)), *self.folders)
            if not any(path.is_relative_to(folder) for folder in allowed):
                raise Problem(NOT_HERE)
        if any(path.is_relative_to(root) for root in VIRTUAL):
            raise Problem(f"files of {', '.join(map(str, VIRTUAL))} are not read")
        return path

    def read(self, src: str, scheme: str, base_dir: Path | None, limit: int) -> bytes:
        """The bytes of the regular file ``src`` names, at most ``limit`` of them."""
        path = self.locate(src, scheme, base_dir)
        try:
            _check_regular(path.stat(), limit)  # a device is refused before it is opened
            handle = os.open(path, _OPEN_FLAGS)
        except OSError as exc:
            raise Problem(self._unreadable(path, exc)) from None
        with open(handle, "rb") as file:
            found = os.fstat(handle)
            _check_regular(found, limit)  # the file opened is the one checked
            version = (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns)
            data = _READ.get(version)
            if data is None:
                data = file.read(limit + 1)
                if len(data) > limit:  # it grew meanwhile
                    raise Problem(_too_large(limit))
                _READ.put(version, data, len(data))
        return data

    def _unreadable(self, path: Path, exc: OSError) -> str:
        """Why ``path`` could not be opened: the reason itself only when every file may be
        read (a missing file and a forbidden one would otherwise tell apart)."""
        return NOT_HERE if self.folders is not None else f"cannot read {path}: {exc.strerror or exc}"


def _check_regular(found: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(found.st_mode):
        raise Problem("it is not a regular file (a folder, a device, a FIFO or a socket)")
    if found.st_size > limit:
        raise Problem(_too_large(limit))


def _too_large(limit: int) -> str:
    return f"the file is more than the {limit:,} byte limit"


def _named(src: str, scheme: str, base_dir: Path | None) -> Path:
    if scheme == "file":
        try:
            parts = urlsplit(src)
        except ValueError as exc:
            raise Problem(f"not a valid file URL ({exc})") from None
        if parts.netloc not in ("", "localhost"):
            raise Problem(f"file URLs of other hosts ({parts.netloc}) are not supported")
        from urllib.request import url2pathname  # urllib.request is slow to import; rarely needed

        return Path(url2pathname(parts.path))
    path = Path(src)
    return path if path.is_absolute() or base_dir is None else Path(base_dir) / path


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except ValueError:  # a NUL, or a character the file system cannot encode
        raise Problem("the path holds a NUL or another character no file name can have") from None
