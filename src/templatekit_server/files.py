"""Files the server keeps: stored images, videos and cached renders, in the default
storage (any fsspec URL), handed out as URLs signed with the server secret."""

from __future__ import annotations

import secrets
import time
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
