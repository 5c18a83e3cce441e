"""The address policy where the S3 client connects: a resolver for its aiohttp sessions.

Its own module, imported by the first upload to a caller's bucket, because aiohttp takes
a quarter of a second to import and most servers never upload to one.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket

from aiohttp.abc import AbstractResolver, ResolveResult

from templatekit.service import ALLOW_ENV, AllowList, address_refusal


class PolicyResolver(AbstractResolver):
    """Resolves a host for the S3 client and refuses it unless every address passes the
    address policy. The client connects to the addresses resolved here, so the check
    holds for the connection itself, not for a look-up made before it."""

    def __init__(self, allow: AllowList) -> None:
        self.allow = allow

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM, family=family)
        found: list[ResolveResult] = []
        for kind, _, proto, _, sockaddr in infos:
            address = ipaddress.ip_address(str(sockaddr[0]).partition("%")[0])
            reason = None if self.allow.permits(host, address) else address_refusal(address)
            if reason is not None:
                raise OSError(f"{host}: {reason} (allow it with {ALLOW_ENV})")
            flags = socket.AI_NUMERICHOST | socket.AI_NUMERICSERV
            found.append(
                ResolveResult(
                    hostname=host, host=str(sockaddr[0]), port=int(sockaddr[1]), family=kind, proto=proto, flags=flags
                )
            )
        return found

    async def close(self) -> None:
        """Nothing to release: look-ups go through the event loop's own resolver."""
