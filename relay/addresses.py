"""Client addresses as an attacker gets them: one IPv4 address, or one IPv6 /64 (the smallest allocation a
customer gets; an address in it costs nothing). The per-address budgets (relay/http/limits.py) and the hosts'
address bans (relay/accounts/moderation.py) both key on this form."""

from __future__ import annotations

import functools
from ipaddress import IPv4Address, IPv6Address, IPv6Network, ip_address

IPV6_PREFIX = 64


@functools.lru_cache(maxsize=4096)  # every frame asks; parsing an address each time cost 1% of an action
def address_key(address: str) -> str:
    """The budget key of a client address: IPv4 as is, IPv6 by its /64 (IPv4-mapped IPv6 as IPv4);
    anything else (a Unix socket, ``"?"``) as given."""
    try:
        ip: IPv4Address | IPv6Address = ip_address(address.strip("[]"))
    except ValueError:
        return address
    if isinstance(ip, IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(IPv6Network((int(ip) >> (128 - IPV6_PREFIX) << (128 - IPV6_PREFIX), IPV6_PREFIX)))
    return str(ip)
