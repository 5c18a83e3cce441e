"""templatekit's HTTP server: the /v1 interface over the templatekit library.

>>> from templatekit_server import Settings, create_app
>>> app = create_app(Settings(data_dir=Path("data")))   # an ASGI app, e.g. for uvicorn

The app is imported on first use, so that ``templatekit`` commands that only build the
server's argument parsers stay quick to start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from templatekit_server.settings import Settings

if TYPE_CHECKING:
    from templatekit_server.app import create_app

__all__ = ["Settings", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from templatekit_server.app import create_app

        return create_app
    raise AttributeError(f"module 'templatekit_server' has no attribute {name!r}")
