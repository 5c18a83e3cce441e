"""Files the server keeps: stored images, videos and cached renders, in the default
storage (any fsspec URL), handed out as URLs signed with the server secret."""

from __future__ import annotations

import contextlib
import secrets
import time
from typing import Any
from urllib.parse import urlencode

from templatekit import Store
from templatekit_server.sealing import Sealer

EXTENSIONS = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/webp": "webp",
    "application/pdf": "pdf",
    "video/mp4": "mp4",
    "video/webm": "webm",
    "image/gif": "gif",
}
MEDIA_TYPES = {extension: media for media, extension in EXTENSIONS.items()}


class Files:
    def __init__(self, store: Store, sealer: Sealer, ttl: int) -> None:
        self.store = store
        self.sealer = sealer
        self.ttl = ttl

    @staticmethod
    def new_key(folder: str, media_type: str) -> str:
        return f"{folder}/{secrets.token_hex(16)}.{EXTENSIONS[media_type]}"

    def url(self, api_base: str, key: str, *, expiring: bool = True) -> str:
        """The URL of a stored file: signed, and expiring after ``ttl`` unless it is a
        video's (video URLs do not expire)."""
        expires = int(time.time()) + self.ttl if expiring else None
        query = {"sig": self.sealer.file_signature(key, expires)}
        if expires is not None:
            query = {"expires": str(expires), **query}
        return f"{api_base}/files/{key}?{urlencode(query)}"

    def allowed(self, key: str, expires: int | None, signature: str) -> bool:
        if expires is not None and expires < time.time():
            return False
        return self.sealer.file_signature_valid(key, expires, signature)

    def forget_expired_images(self) -> int:
        """Delete the stored images older than their URLs' lifetime; how many. No URL can
        fetch them any more, and kept for ever they would fill the storage: stored
        thumbnails are free and no image counts against a workspace's storage quota.
        Videos, whose URLs do not expire, are kept."""
        fs, root = self.store.fs, self.store.path("images")
        try:
            found = fs.find(root, detail=True)
        except FileNotFoundError:
            return 0
        oldest = time.time() - self.ttl
        expired = [path for path, info in found.items() if _modified(info) < oldest]
        for path in expired:
            with contextlib.suppress(FileNotFoundError):  # another server's housekeeping was first
                fs.rm(path)
        return len(expired)


def _modified(info: dict[str, Any]) -> float:
    """When a listed file was written, in unix seconds (local folders say ``mtime``,
    object stores ``LastModified``); now when the listing does not say."""
    if "mtime" in info:
        return float(info["mtime"])
    modified = info.get("LastModified")
    return modified.timestamp() if modified is not None else time.time()
