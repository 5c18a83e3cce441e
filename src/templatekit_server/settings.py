"""Server settings: one object, each default documented, read from the environment
(``TEMPLATEKIT_*``) and overridden by command-line options."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from attrs import evolve, frozen

DATA_DIR_ENV = "TEMPLATEKIT_DATA_DIR"


@frozen
class Settings:
    #: Holds the SQLite database, the default file storage and the generated secret.
    data_dir: Path = Path("templatekit-data")
    #: SQLAlchemy URL of the database; default: SQLite in ``data_dir``.
    database_url: str | None = None
    #: fsspec URL of the default file storage; default: ``data_dir/files``.
    storage_url: str | None = None
    #: Signs file URLs and encrypts the stored signing keys; default: generated into
    #: ``data_dir/secret.key`` on first start.
    secret: str | None = None
    #: The server's public base URL (``https://render.example.com``) for the URLs it
    #: hands out; default: the base URL of each request.
    public_url: str | None = None
    #: Where error codes are explained: ``docs`` of every error is ``{docs_url}/{code}``.
    docs_url: str = "https://templatekit.dev/docs/errors"
    #: Render processes for images and PDFs; default: the number of cores.
    workers: int = 0
    #: Videos rendered at the same time (each uses every core while encoding).
    video_workers: int = 1
    #: Longest image or PDF render, and longest video render, in seconds.
    render_timeout: float = 60.0
    video_timeout: float = 600.0
    #: Lifetime of the signed URLs of stored images, in seconds.
    file_url_ttl: int = 86_400
    #: A video job whose worker has not been heard of for this long is taken over.
    job_stale_seconds: float = 30.0
    #: How often a rendering job tells the database it is alive.
    job_heartbeat_seconds: float = 5.0
    #: Largest request body, in bytes.
    max_body_bytes: int = 5_000_000
    #: How much of a body is read before its API key is known, when the key is not in the
    #: Authorization header or the query (a larger body must bring it in its first fields).
    max_keyless_body_bytes: int = 65_536
    #: Longest text of any one field of a request (characters).
    max_text_chars: int = 20_000
    #: SSE comment lines are sent this often when nothing else is.
    keep_alive_seconds: float = 15.0
    #: On SIGTERM, requests in flight get this long to finish; then they are cancelled
    #: (their generations given back, their videos queued again) and the server stops,
    #: within the 30 s most orchestrators wait before they kill.
    shutdown_seconds: int = 10
    #: Connections held at once; past it a new one is answered RATE_LIMITED and closed.
    #: Below the process's file descriptors, so that one client cannot take them all.
    max_connections: int = 1000
    #: A request's line and headers: the seconds they may take, and their bytes.
    head_seconds: float = 20.0
    max_head_bytes: int = 64 * 1024
    #: The longest pause between two parts of a request's body.
    body_idle_seconds: float = 30.0
    #: Hosts or networks exempt from the address policy of fetched images
    #: (comma-separated; ``TEMPLATEKIT_FETCH_ALLOW``).
    fetch_allow: str = ""
    #: Limits of fetched images, fonts and clips: the whole download, its bytes (images
    #: and fonts; clips and music), and the pixels of a decoded image.
    fetch_timeout: float = 10.0
    fetch_max_bytes: int = 20_000_000
    media_max_bytes: int = 200_000_000
    max_pixels: int = 50_000_000
    #: The memory one render may take, in bytes (``templatekit.budget``): 1 GiB lets a
    #: 4K canvas at scale 2 and four 50-megapixel photos through; more is BAD_REQUEST.
    render_memory: int = 1 << 30
    #: A render worker is replaced, between renders, after this many renders or once its
    #: resident memory passes ``worker_max_rss`` bytes: memory a large render took goes
    #: back to the system, and no request fails for it.
    worker_max_renders: int = 1000
    worker_max_rss: int = 1_500_000_000
    #: Uploads to a caller's bucket (``s3Config``): seconds to connect (at most 5) and for
    #: each read; two attempts.
    s3_timeout: float = 15.0
    #: The longest one write or read of a remote default storage may take (an MP4 too).
    storage_timeout: float = 300.0
    #: A TOML file that changes or adds plans (see ``templatekit_server.plans``).
    config: str | None = None
    #: Where rate-limit windows are kept: ``memory://`` (this process) or a
    #: ``redis://host:port`` URL shared by several server processes.
    rate_limit_url: str = "memory://"
    #: Outbound webhooks: the longest one delivery attempt may take, the waits before
    #: each retry (seconds, comma-separated; after the last the delivery is failed),
    #: and how many deliveries one server sends at a time.
    webhook_timeout: float = 10.0
    webhook_retries: str = "5,30,120,900,3600,21600"
    webhook_concurrency: int = 8
    #: Serve the playground page at ``/playground/`` (it holds no data of its own: the
    #: key is typed into the page, which calls /v1 like any client).
    playground: bool = True
    #: Serve the template editor at ``/editor/`` (likewise: a page that calls /v1 with the
    #: key typed into it, which needs ``templates:write`` to preview and save).
    editor: bool = True
    #: Serve the dashboard at ``/dashboard/``: pages for the people of a workspace, who
    #: sign in with an email and a password (``admin user create``).
    dashboard: bool = True
    #: Where the dashboard sends invitations (see ``templatekit_server.mail``); none: the
    #: invitation's link is shown to pass on by hand.
    smtp_url: str = ""
    smtp_from: str = "templatekit <noreply@localhost>"

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides: object) -> Settings:
        """Settings from ``TEMPLATEKIT_*`` variables, then ``overrides`` (None values are
        ignored, so that unset command-line options keep the environment's value)."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for name, attribute in _ENV.items():
            raw = env.get(name)
            if raw not in (None, ""):
                values[attribute] = _typed(attribute, raw)
        values.update({key: value for key, value in overrides.items() if value is not None})
        if "data_dir" in values:
            values["data_dir"] = Path(str(values["data_dir"]))
        if "config" in values:
            values["config"] = str(values["config"])
        return evolve(cls(), **values)

    @property
    def webhook_backoff(self) -> tuple[float, ...]:
        try:
            waits = tuple(float(wait) for wait in self.webhook_retries.split(",") if wait.strip())
        except ValueError:
            waits = ()
        if not waits or min(waits) < 0:
            raise ValueError(
                f"TEMPLATEKIT_WEBHOOK_RETRIES={self.webhook_retries!r}: not a comma-separated list of seconds"
            )
        return waits

    @property
    def config_path(self) -> Path | None:
        return Path(self.config) if self.config else None

    @property
    def render_workers(self) -> int:
        return self.workers or os.cpu_count() or 1

    @property
    def database(self) -> str:
        return self.database_url or f"sqlite:///{(self.data_dir / 'templatekit.db').resolve()}"

    @property
    def storage(self) -> str:
        return self.storage_url or (self.data_dir / "files").resolve().as_uri()


_ENV = {
    DATA_DIR_ENV: "data_dir",
    "TEMPLATEKIT_DATABASE_URL": "database_url",
    "TEMPLATEKIT_STORAGE_URL": "storage_url",
    "TEMPLATEKIT_SECRET": "secret",
    "TEMPLATEKIT_PUBLIC_URL": "public_url",
    "TEMPLATEKIT_DOCS_URL": "docs_url",
    "TEMPLATEKIT_WORKERS": "workers",
    "TEMPLATEKIT_VIDEO_WORKERS": "video_workers",
    "TEMPLATEKIT_RENDER_TIMEOUT": "render_timeout",
    "TEMPLATEKIT_SHUTDOWN_SECONDS": "shutdown_seconds",
    "TEMPLATEKIT_MAX_CONNECTIONS": "max_connections",
    "TEMPLATEKIT_HEAD_SECONDS": "head_seconds",
    "TEMPLATEKIT_MAX_HEAD_BYTES": "max_head_bytes",
    "TEMPLATEKIT_BODY_IDLE_SECONDS": "body_idle_seconds",
    "TEMPLATEKIT_VIDEO_TIMEOUT": "video_timeout",
    "TEMPLATEKIT_FILE_URL_TTL": "file_url_ttl",
    "TEMPLATEKIT_JOB_STALE_SECONDS": "job_stale_seconds",
    "TEMPLATEKIT_JOB_HEARTBEAT_SECONDS": "job_heartbeat_seconds",
    "TEMPLATEKIT_MAX_BODY_BYTES": "max_body_bytes",
    "TEMPLATEKIT_MAX_KEYLESS_BODY_BYTES": "max_keyless_body_bytes",
    "TEMPLATEKIT_KEEP_ALIVE_SECONDS": "keep_alive_seconds",
    "TEMPLATEKIT_FETCH_ALLOW": "fetch_allow",
    "TEMPLATEKIT_FETCH_TIMEOUT": "fetch_timeout",
    "TEMPLATEKIT_FETCH_MAX_BYTES": "fetch_max_bytes",
    "TEMPLATEKIT_MEDIA_MAX_BYTES": "media_max_bytes",
    "TEMPLATEKIT_MAX_PIXELS": "max_pixels",
    "TEMPLATEKIT_RENDER_MEMORY": "render_memory",
    "TEMPLATEKIT_WORKER_MAX_RENDERS": "worker_max_renders",
    "TEMPLATEKIT_WORKER_MAX_RSS": "worker_max_rss",
    "TEMPLATEKIT_S3_TIMEOUT": "s3_timeout",
    "TEMPLATEKIT_STORAGE_TIMEOUT": "storage_timeout",
    "TEMPLATEKIT_CONFIG": "config",
    "TEMPLATEKIT_RATE_LIMIT_URL": "rate_limit_url",
    "TEMPLATEKIT_WEBHOOK_TIMEOUT": "webhook_timeout",
    "TEMPLATEKIT_WEBHOOK_RETRIES": "webhook_retries",
    "TEMPLATEKIT_WEBHOOK_CONCURRENCY": "webhook_concurrency",
    "TEMPLATEKIT_PLAYGROUND": "playground",
    "TEMPLATEKIT_EDITOR": "editor",
    "TEMPLATEKIT_DASHBOARD": "dashboard",
    "TEMPLATEKIT_SMTP_URL": "smtp_url",
    "TEMPLATEKIT_SMTP_FROM": "smtp_from",
}


def _typed(attribute: str, raw: str) -> object:
    """The environment's text as the attribute's type (by its default's type)."""
    default = getattr(Settings(), attribute)
    try:
        if isinstance(default, bool):
            return raw.lower() in ("1", "true", "yes")
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            return float(raw)
    except ValueError:
        name = next(key for key, value in _ENV.items() if value == attribute)
        raise SystemExit(f"error: {name}={raw!r}: not a number") from None
    return raw
