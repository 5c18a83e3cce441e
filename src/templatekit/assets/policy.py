"""The address policy: which hosts may be fetched from.

Only globally routable addresses are allowed; ``TEMPLATEKIT_FETCH_ALLOW`` (host names,
IPs or CIDRs, comma-separated) exempts some, e.g. a local test server.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable
from typing import Any

from attrs import frozen

ALLOW_ENV = "TEMPLATEKIT_FETCH_ALLOW"

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


@frozen
class AllowList:
    """Hosts and networks exempt from the address policy."""

    hosts: frozenset[str]
    networks: tuple[IPNetwork, ...]

    @classmethod
    def parse(cls, entries: Iterable[str]) -> AllowList:
        hosts: set[str] = set()
        networks: list[IPNetwork] = []
        for raw in entries:
            entry = raw.strip().strip("[]")
            if not entry:
                continue
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                hosts.add(_host_name(raw.strip(), entry))
        return cls(frozenset(hosts), tuple(networks))

    def permits(self, host: str, address: IPAddress) -> bool:
        if _host_key(host) in self.hosts:
            return True
        candidates = {address, _embedded_ipv4(address) or address}
        return any(a in n for a in candidates for n in self.networks)


def _host_name(raw: str, entry: str) -> str:
    """A host name of the allow list; a ``host:port`` or URL is refused, so that no entry
    is silently ignored (an allowed host is allowed on every port)."""
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", entry):
        raise ValueError(
            f"{ALLOW_ENV}: {raw!r} is not a host name, IP address or CIDR network "
            "(no ports or URLs: an allowed host is allowed on every port)"
        )
    return _host_key(entry)


def _host_key(host: str) -> str:
    return host.lower().rstrip(".")


_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")

_KINDS: tuple[tuple[str, Callable[[Any], bool]], ...] = (
    ("a loopback", lambda ip: ip.is_loopback),
    ("an unspecified", lambda ip: ip.is_unspecified),
    ("a link-local", lambda ip: ip.is_link_local),
    ("a multicast", lambda ip: ip.is_multicast),
    ("a shared (CGNAT)", lambda ip: ip in _CGNAT),
    ("a site-local", lambda ip: ip.version == 6 and ip.is_site_local),
    ("a reserved", lambda ip: ip.is_reserved),
    ("a private", lambda ip: ip.is_private),
    ("a non-global", lambda ip: not ip.is_global),
)


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address inside an IPv4-mapped, NAT64 or 6to4 address."""
    if address.version == 4:
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_refusal(address: IPAddress) -> str | None:
    """Why ``address`` may not be fetched from, or None when it is globally routable.
    An IPv6 form of an IPv4 address is judged by the IPv4 address inside it."""
    inner = _embedded_ipv4(address)
    judged = address if inner is None else inner
    kind = next((kind for kind, test in _KINDS if test(judged)), None)
    if kind is None:
        return None
    return f"{address} is {kind} address" + ("" if inner is None else f" ({inner} inside)")
