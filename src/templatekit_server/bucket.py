"""``s3Config``: writing a render to the caller's own S3 bucket (any S3-compatible
service) with the caller's credentials, through s3fs."""

from __future__ import annotations

import re
import secrets
from typing import Any
from urllib.parse import urlsplit

from attrs import field, frozen

from templatekit import StorageError, Store
from templatekit.service import AllowList, Problem, checked_key, jsontext, shown
from templatekit_server.errors import ApiError, bad_request
from templatekit_server.files import EXTENSIONS

PRESIGNED_SECONDS = 7 * 86_400  # the longest a SigV4 presigned URL may live
# S3's naming rules (older buckets may also have capitals and underscores).
_BUCKET = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-]{1,61}[A-Za-z0-9]")
_REGION = re.compile(r"[a-z0-9\-]{1,40}")
_PUBLIC_URL = re.compile(r"https?://[\x21-\x7e]+")  # no spaces or control characters: it becomes a header
_FIELDS = ("bucket", "region", "endpoint", "accessKeyId", "secretAccessKey", "prefix", "publicUrl")


#: The longest ``s3Config`` given as JSON text: every field at its longest, quoted.
MAX_CONFIG_TEXT = 20_000


@frozen
class Bucket:
    bucket: str
    access_key_id: str
    secret_access_key: str
    region: str | None = None
    endpoint: str | None = None
    prefix: str = ""
    public_url: str | None = None
    allow: AllowList = field(default=AllowList.parse(()), eq=False, repr=False)
    timeout: float = 15.0  # seconds to connect, and for each read

    @classmethod
    def parse(cls, value: Any, allow: AllowList, timeout: float = 15.0) -> Bucket:
        """From the request's ``s3Config`` (an object, or its JSON text); BAD_REQUEST
        naming the field otherwise. The endpoint must pass the address policy."""
        if isinstance(value, str):
            if len(value) > MAX_CONFIG_TEXT:  # its fields' limits, in JSON: refused before it is parsed
                raise bad_request(f"s3Config: at most {MAX_CONFIG_TEXT:,} characters of JSON text (got {len(value):,})")
            try:
                value = jsontext.parse(value)
            except jsontext.JSONTextError as exc:
                raise bad_request(f"s3Config: {exc}") from None
        if not isinstance(value, dict):
            raise bad_request(f"s3Config: must be an object (got {type(value).__name__})")
        unknown = sorted(set(value) - set(_FIELDS))
        if unknown:
            raise bad_request(f"s3Config.{unknown[0]}: unknown field (expected {', '.join(_FIELDS)})")
        texts: dict[str, str | None] = {}
        for name in _FIELDS:
            item = value.get(name)
            if item is not None and (not isinstance(item, str) or len(item) > 2048):
                raise bad_request(f"s3Config.{name}: must be a string of at most 2048 characters")
            texts[name] = item or None
        for name in ("bucket", "accessKeyId", "secretAccessKey"):
            if not texts[name]:
                raise bad_request(f"s3Config.{name}: required")
        if not _BUCKET.fullmatch(str(texts["bucket"])):
            raise bad_request(
                f"s3Config.bucket: {str(texts['bucket'])[:80]!r} is not a bucket name (3 to 63 of a-z 0-9 . -)"
            )
        if texts["region"] is not None and not _REGION.fullmatch(texts["region"]):
            raise bad_request(f"s3Config.region: {texts['region'][:80]!r} is not a region name (like eu-west-1)")
        endpoint = texts["endpoint"]
        if endpoint is not None:
            from templatekit.service import check_endpoint

            if urlsplit(endpoint).username is not None:
                raise bad_request(
                    f"s3Config.endpoint: {shown(endpoint)} holds a user name or password; "
                    "give the credentials as accessKeyId and secretAccessKey"
                )
            try:
                check_endpoint(endpoint, allow)
            except Problem as problem:
                raise bad_request(f"s3Config.endpoint: {shown(endpoint)} is refused: {problem}") from None
        public_url = texts["publicUrl"]
        if public_url is not None and not _PUBLIC_URL.fullmatch(public_url):
            raise bad_request(f"s3Config.publicUrl: {public_url[:80]!r} is not an http(s) URL")
        prefix = texts["prefix"] or ""
        try:
            checked_key(f"{prefix}name")
        except StorageError:
            raise bad_request(
                f"s3Config.prefix: {prefix[:80]!r} must be a relative key prefix of letters, digits, '_', '.', '-', '/'"
            ) from None
        return cls(
            bucket=str(texts["bucket"]),
            access_key_id=str(texts["accessKeyId"]),
            secret_access_key=str(texts["secretAccessKey"]),
            region=texts["region"],
            endpoint=endpoint,
            prefix=prefix,
            public_url=public_url,
            allow=allow,
            timeout=timeout,
        )

    def upload(self, data: bytes, media_type: str) -> str:
        """Write the file and return its URL: ``publicUrl`` + key when given, else a
        presigned GET URL. INTERNAL_SERVER_ERROR with the storage's reason on failure."""
        from templatekit_server.s3_resolver import PolicyResolver  # aiohttp, for the first upload only

        key = f"{self.prefix}{secrets.token_hex(16)}.{EXTENSIONS[media_type]}"
        client: dict[str, Any] = {}
        if self.region:
            client["region_name"] = self.region
        try:
            store = Store(
                f"s3://{self.bucket}",
                key=self.access_key_id,
                secret=self.secret_access_key,
                endpoint_url=self.endpoint,
                client_kwargs=client,
                config_kwargs={
                    "connect_timeout": min(5.0, self.timeout),
                    "read_timeout": self.timeout,
                    "retries": {"max_attempts": 2},
                    "signature_version": "s3v4",  # presigned URLs too: S3 refuses version 2 in newer regions
                    # the address policy again, on the addresses the connection uses (no DNS rebinding)
                    "connector_args": {"resolver": PolicyResolver(self.allow), "use_dns_cache": False},
                },
                skip_instance_cache=True,
                timeout=2 * self.timeout + 5,  # two attempts, and the connections
            )
            store.put(key, data, media_type)
            if self.public_url:
                return self.public_url.rstrip("/") + "/" + key
            url = store.presigned_url(key, PRESIGNED_SECONDS)
        except StorageError as exc:
            raise ApiError("INTERNAL_SERVER_ERROR", f"upload to s3Config bucket {self.bucket} failed: {exc}") from None
        if url is None:
            raise ApiError("INTERNAL_SERVER_ERROR", f"bucket {self.bucket}: no presigned URL could be made")
        return url
