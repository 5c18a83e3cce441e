"""Render results: bytes with their media type, size and warnings."""

from __future__ import annotations

import base64
import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from attrs import frozen


@frozen
class RenderResult:
    """What a render returns. Shows itself in Jupyter. ``width`` and ``height`` are
    the canvas in px (a PDF page is 0.75 points per px); ``pages`` counts PDF pages.
    A video written straight to a file has ``path`` set, and its ``data`` is read from
    that file when asked for."""

    _data: bytes | None
    media_type: str
    width: int
    height: int
    warnings: tuple[str, ...] = ()
    pages: int = 1
    path: Path | None = None

    @property
    def data(self) -> bytes:
        if self._data is not None:
            return self._data
        assert self.path is not None
        return self.path.read_bytes()

    @property
    def extension(self) -> str:
        return {
            "image/png": "png",
            "image/jpeg": "jpg",
            "image/webp": "webp",
            "application/pdf": "pdf",
            "video/mp4": "mp4",
            "video/webm": "webm",
            "image/gif": "gif",
        }[self.media_type]

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the bytes to ``path`` and return it. The file is written beside its place
        and renamed, so ``path`` is never left half written (a full disk, Ctrl-C): it is
        the whole output, or what was there before."""
        target = Path(path)
        if self._data is None and self.path is not None:
            if target.resolve() != self.path.resolve():
                import shutil  # a video's file only (start-up time)

                with whole_file(target) as partial:
                    shutil.copyfile(self.path, partial)
        else:
            with whole_file(target) as partial:
                partial.write_bytes(self.data)
        return target

    @property
    def size(self) -> int:
        """Bytes of the output."""
        return len(self._data) if self._data is not None else self.path.stat().st_size if self.path else 0

    def _repr_png_(self) -> bytes | None:
        return self.data if self.media_type == "image/png" else None

    def _repr_jpeg_(self) -> bytes | None:
        return self.data if self.media_type == "image/jpeg" else None

    def _repr_html_(self) -> str | None:
        """WebP and GIF as an image, MP4 and WebM as a player (Jupyter shows PNG and JPEG itself)."""
        if self.media_type not in ("image/webp", "image/gif", "video/mp4", "video/webm"):
            return None
        try:
            encoded = base64.b64encode(self.data).decode("ascii")
        except OSError:  # a video's file moved or deleted since: the repr says so
            return None
        source = f"data:{self.media_type};base64,{encoded}"
        if self.media_type.startswith("video/"):
            return f'<video src="{source}" width="{self.width}" height="{self.height}" controls loop></video>'
        return f'<img src="{source}" width="{self.width}" height="{self.height}">'

    def __repr__(self) -> str:
        try:
            size = f"{self.size} bytes"
        except OSError:  # a video's file moved or deleted since: a repr never fails
            size = f"{self.path} no longer there"
        return f"RenderResult({self.media_type}, {self.width}x{self.height}, {size}, {len(self.warnings)} warning(s))"


@contextlib.contextmanager
def whole_file(target: Path) -> Iterator[Path]:
    """A file to write beside ``target`` (``.name.partial``), renamed to ``target`` when
    the block ends, or removed when it fails. A symbolic link stays: the file it points to
    is the one replaced, and a file that was there keeps its permissions."""
    target = target.resolve() if target.is_symlink() else target
    if not target.parent.is_dir():  # said of the caller's path, before a video's frames are painted
        raise FileNotFoundError(errno.ENOENT, f"no folder {target.parent} to write {target.name} in", str(target))
    partial = target.with_name(f".{target.name}.partial")
    try:
        yield partial
        with contextlib.suppress(FileNotFoundError):
            partial.chmod(stat.S_IMODE(target.stat().st_mode))
        partial.replace(target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
