"""The web pages (``templatekit.web``): static files that call /v1 like any client,
every answer under them sent with the pages' security headers."""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import MutableHeaders
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from templatekit.service import WEB, page_headers
from templatekit_server.settings import Settings


def served(settings: Settings) -> list[str]:
    """The folders of ``WEB`` the server serves: the pages it is set to serve, and the
    modules they share."""
    pages = [name for name, wanted in (("playground", settings.playground), ("editor", settings.editor)) if wanted]
    return [*pages, "common"] if pages else []


def page_mounts(settings: Settings) -> list[Mount]:
    return [Mount(f"/{name}", app=StaticFiles(directory=WEB / name, html=True), name=name) for name in served(settings)]


class PageHeaders:
    """Sends the pages' security headers with every answer under their mounts: files,
    redirects and errors alike. Videos may also come from the server's public URL, which
    its file URLs name. With ``everywhere`` (``templatekit edit``, whose every answer is
    for its page), every answer carries them."""

    def __init__(self, app: ASGIApp, settings: Settings, everywhere: bool = False) -> None:
        self.app = app
        self.everywhere = everywhere
        self.roots = tuple(f"/{name}" for name in (*served(settings), *(["dashboard"] if settings.dashboard else [])))
        public = urlsplit(settings.public_url or "")
        self.headers = page_headers(*([f"{public.scheme}://{public.netloc}"] if public.netloc else []))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self._under_a_page(scope["path"]):
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in self.headers.items():
                    headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _under_a_page(self, path: str) -> bool:
        return self.everywhere or any(path == root or path.startswith(f"{root}/") for root in self.roots)
