"""The server secret and what is derived from it: the cipher that keeps API keys
encrypted at rest, and the HMAC key that signs file URLs.

The secret is ``TEMPLATEKIT_SECRET`` when set, else a random one generated into
``data_dir/secret.key`` (mode 0600) on first start. Losing it makes stored keys unusable
for signed URLs and invalidates file URLs; back it up with the database.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

SECRET_FILE = "secret.key"


def server_secret(configured: str | None, data_dir: Path) -> str:
    """The configured secret, or the one in the data directory (made when absent)."""
    if configured:
        return configured
    path = data_dir / SECRET_FILE
    if path.exists():
        return path.read_text(encoding="ascii").strip()
    data_dir.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_urlsafe(48)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(descriptor, secret.encode("ascii"))
    finally:
        os.close(descriptor)
    return secret


def _derived(secret: str, purpose: str) -> bytes:
    return hashlib.sha256(f"templatekit:{purpose}:{secret}".encode()).digest()


class Sealer:
    """Encrypts and decrypts short texts (API keys) with a key derived from the secret,
    and signs file URLs with another."""

    def __init__(self, secret: str) -> None:
        self._fernet = Fernet(base64.urlsafe_b64encode(_derived(secret, "keys")))
        self._file_key = _derived(secret, "files")
        self._secret_digest = _derived(secret, "secret").hex()

    @property
    def fingerprint(self) -> str:
        """A digest of the secret that says whether two servers share it, and nothing of it."""
        return _derived(self._secret_digest, "fingerprint").hex()

    def seal(self, text: str) -> str:
        return self._fernet.encrypt(text.encode("utf-8")).decode("ascii")

    def unseal(self, token: str) -> str | None:
        """The text, or None when the token was sealed with another secret."""
        try:
            return self._fernet.decrypt(token.encode("ascii")).decode("utf-8")
        except InvalidToken:
            return None

    def file_signature(self, key: str, expires: int | None) -> str:
        message = f"{key}\n{'' if expires is None else expires}".encode()
        return hmac.new(self._file_key, message, hashlib.sha256).hexdigest()

    def file_signature_valid(self, key: str, expires: int | None, signature: str) -> bool:
        given = signature.encode("utf-8", "replace")  # compare_digest takes non-ASCII text only as bytes
        return hmac.compare_digest(self.file_signature(key, expires).encode("ascii"), given)
