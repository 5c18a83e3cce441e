"""Render results: bytes with their media type, size and warnings."""

from __future__ import annotations

import base64
import os
from pathlib import Path

from attrs import frozen


@frozen
class RenderResult:
    """What a render returns. Shows itself in Jupyter. ``width`` and ``height`` are
    the canvas in px (a PDF page is 0.75 points per px); ``pages`` counts PDF pages."""

    data: bytes
    media_type: str
    width: int
    height: int
    warnings: tuple[str, ...] = ()
    pages: int = 1

    @property
    def extension(self) -> str:
        return {
            "image/png": "png",
            "image/jpeg": "jpg",
            "image/webp": "webp",
            "application/pdf": "pdf",
            "video/mp4": "mp4",
        }[self.media_type]

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the bytes to ``path`` and return it."""
        target = Path(path)
        target.write_bytes(self.data)
        return target

    def _repr_png_(self) -> bytes | None:
        return self.data if self.media_type == "image/png" else None

    def _repr_jpeg_(self) -> bytes | None:
        return self.data if self.media_type == "image/jpeg" else None

    def _repr_html_(self) -> str | None:
        if self.media_type != "image/webp":
            return None
        encoded = base64.b64encode(self.data).decode("ascii")
        return f'<img src="data:image/webp;base64,{encoded}" width="{self.width}" height="{self.height}">'

    def __repr__(self) -> str:
        return (
            f"RenderResult({self.media_type}, {self.width}x{self.height}, {len(self.data)} bytes, "
            f"{len(self.warnings)} warning(s))"
        )
