"""HTTP rate limits (PROTOCOL.md "Rate limits"): new guests per client address; new matches and
joins per client address and per guest; password checks per address and per account name
(PROTOCOL.md "Rate limits"); record documents imported or verified, each
a whole replay through the engine, per client address and per guest.

One guest per request is the cheapest thing to ask for and a row in the database each time, so a
script from one address could fill the players table (1,000 guests in 2.4 s) and then the lobby.
Each limit is a :class:`~spectacular_bid.service.ratelimit.TokenBucket` per key, like a socket's
flood limit; a request over it is answered 429 ``rate_limited`` with ``Retry-After`` (the seconds
until a token is there) and changes nothing — not even the other bucket it would have taken from.

Memory stays bounded when the keys are many (an attack from many addresses or guests): a bucket
idle long enough to be full again is the same as none and is dropped, and past
:data:`MAX_KEYS` per limit the longest-idle bucket goes anyway (its key merely starts afresh).

The client address is the ASGI scope's client host — the peer, not ``X-Forwarded-For``, which
anyone can write (a proxy in front would need its own setting). An IPv6 peer counts by its
``/64``: one host usually has a whole ``/64`` to pick addresses from. Time is the service's
monotonic clock, read per request, so tests drive it.
"""

from __future__ import annotations

import ipaddress
import math
from collections import OrderedDict
from typing import Annotated, Final

from fastapi import Depends
from starlette.requests import HTTPConnection

from spectacular_bid.service.accounts import name_key
from spectacular_bid.service.guests import DisplayNameError
from spectacular_bid.service.ratelimit import TokenBucket
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.web.appstate import Service
from spectacular_bid.web.identity import Caller
from spectacular_bid.web.settings import WebSettings

MAX_KEYS: Final = 10_000
"""Buckets kept per limit at most (a few hundred bytes each)."""
IPV6_PREFIX: Final = 64
"""An IPv6 client counts by its network of this many bits."""

LOGINS_PER_MINUTE: Final = 10
"""Password checks one address gets a minute, whatever the names: each costs the server a hash
(``service.passwords``)."""
LOGINS_BURST: Final = 10
LOGINS_PER_MINUTE_PER_NAME_AND_ADDRESS: Final = 5
"""Password checks one address gets a minute at one name: a guesser is slowed at its own
address, while the name's owner, at another, logs in as ever."""
LOGINS_PER_MINUTE_PER_NAME: Final = 30
"""Password checks one name gets a minute from all addresses together: a ceiling that only a
guess spread over six addresses or more reaches, and which then holds it to 30 a minute
(43,200 a day against a password of 8 characters or more). Only such a guess can lock the
owner out for its minute; one address never can."""


class KeyedLimit:
    """A token bucket per key (an address, a guest), the longest idle first in line to go."""

    def __init__(self, per_minute: float, burst: int, max_keys: int = MAX_KEYS) -> None:
        if per_minute <= 0 or burst < 1 or max_keys < 1:
            raise ValueError(
                f"need per_minute > 0, burst >= 1 and max_keys >= 1, got "
                f"{per_minute!r}, {burst!r}, {max_keys!r}"
            )
        self.per_minute = per_minute
        self.burst = burst
        self.max_keys = max_keys
        self.refill_ms = math.ceil(burst * 60_000 / per_minute)
        """An untouched bucket is full again after this long, whatever it held."""
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def wait_ms(self, key: str, now_ms: int) -> int:
        """How long until ``key`` has a token: 0 when it has one now. Changes nothing."""
        bucket = self._buckets.get(key)
        if bucket is None:
            return 0
        tokens = min(
            bucket.burst, bucket.tokens + max(0, now_ms - bucket.last_ms) * bucket.rate_per_ms
        )
        if tokens >= 1:
            return 0
        return math.ceil((1 - tokens) / bucket.rate_per_ms)

    def take(self, key: str, now_ms: int) -> None:
        """Spend one of ``key``'s tokens (:meth:`wait_ms` said there is one)."""
        self._sweep(now_ms)
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = TokenBucket(self.per_minute / 60, self.burst, now_ms)
            self._buckets[key] = bucket
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        bucket.take(now_ms)

    def _sweep(self, now_ms: int) -> None:
        # Buckets are in the order they were last used, so the full ones are all at the front.
        while self._buckets:
            oldest = next(iter(self._buckets.values()))
            if now_ms - oldest.last_ms < self.refill_ms:
                return
            self._buckets.popitem(last=False)


class HttpLimits:
    """The server's HTTP limits, one :class:`KeyedLimit` per kind of request and key."""

    def __init__(self, settings: WebSettings, max_keys: int = MAX_KEYS) -> None:
        guests = (settings.guests_per_minute, settings.guests_burst, max_keys)
        matches = (settings.matches_per_minute, settings.matches_burst, max_keys)
        joins = (settings.joins_per_minute, settings.joins_burst, max_keys)
        records = (settings.records_per_minute, settings.records_burst, max_keys)
        self.guests_by_address = KeyedLimit(*guests)
        self.matches_by_address = KeyedLimit(*matches)
        self.matches_by_guest = KeyedLimit(*matches)
        self.joins_by_address = KeyedLimit(*joins)
        self.joins_by_guest = KeyedLimit(*joins)
        self.records_by_address = KeyedLimit(*records)
        self.records_by_guest = KeyedLimit(*records)
        self.logins_by_address = KeyedLimit(LOGINS_PER_MINUTE, LOGINS_BURST, max_keys)
        per_name_and_address = LOGINS_PER_MINUTE_PER_NAME_AND_ADDRESS
        self.logins_by_name_and_address = KeyedLimit(
            per_name_and_address, per_name_and_address, max_keys
        )
        self.logins_by_name = KeyedLimit(
            LOGINS_PER_MINUTE_PER_NAME, LOGINS_PER_MINUTE_PER_NAME, max_keys
        )


def admit(what: str, now_ms: int, *limits: tuple[KeyedLimit, str, str]) -> None:
    """Take a token from each ``(limit, key, whose)``, or raise ``rate_limited`` having taken
    none: ``whose`` names the key in the message ("your address 203.0.113.7")."""
    waits = [(limit.wait_ms(key, now_ms), limit, whose) for limit, key, whose in limits]
    wait_ms, limit, whose = max(waits, key=lambda wait: wait[0])
    if wait_ms > 0:
        retry_after_s = math.ceil(wait_ms / 1000)
        raise Rejection(
            ErrorCode.RATE_LIMITED,
            f"too many {what} from {whose} (at most {limit.burst} at once and "
            f"{limit.per_minute:g} a minute): try again in {retry_after_s} s",
            retry_after_s=retry_after_s,
        )
    for limit, key, _ in limits:
        limit.take(key, now_ms)


def address_key(conn: HTTPConnection) -> str:
    """The client's address as a limit's key: an IPv6 address by its /64, anything else (an
    IPv4 address, a test client's name) as it is."""
    host = conn.client.host if conn.client is not None else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host or "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_PREFIX), strict=False))
    return str(address)


def limits_of(conn: HTTPConnection) -> HttpLimits:
    limits = conn.app.state.http_limits
    assert isinstance(limits, HttpLimits), "create_app() puts the HttpLimits on app.state"
    return limits


Limits = Annotated[HttpLimits, Depends(limits_of)]


def _by_address(conn: HTTPConnection, limit: KeyedLimit) -> tuple[KeyedLimit, str, str]:
    key = address_key(conn)
    return limit, key, f"your address {key}"


async def limit_guests(conn: HTTPConnection, service: Service, limits: Limits) -> None:
    admit("new guests", service.now_ms(), _by_address(conn, limits.guests_by_address))


async def limit_matches(
    conn: HTTPConnection, caller: Caller, service: Service, limits: Limits
) -> None:
    # A request without a guest is refused anyway (401), but still counts for its address.
    buckets = [_by_address(conn, limits.matches_by_address)]
    if caller is not None:
        buckets.append((limits.matches_by_guest, caller.id, f"guest {caller.name!r}"))
    admit("new matches", service.now_ms(), *buckets)


async def limit_joins(
    conn: HTTPConnection, caller: Caller, service: Service, limits: Limits
) -> None:
    buckets = [_by_address(conn, limits.joins_by_address)]
    if caller is not None:
        buckets.append((limits.joins_by_guest, caller.id, f"guest {caller.name!r}"))
    admit("joins", service.now_ms(), *buckets)


async def limit_records(
    conn: HTTPConnection, caller: Caller, service: Service, limits: Limits
) -> None:
    buckets = [_by_address(conn, limits.records_by_address)]
    if caller is not None:
        buckets.append((limits.records_by_guest, caller.id, f"guest {caller.name!r}"))
    admit("record documents", service.now_ms(), *buckets)


GuestLimit = Annotated[None, Depends(limit_guests)]
"""POST /api/session: ``guests_per_minute`` and ``guests_burst`` per client address."""
MatchLimit = Annotated[None, Depends(limit_matches)]
"""POST /api/matches: ``matches_per_minute`` and ``matches_burst`` per address and per guest."""
JoinLimit = Annotated[None, Depends(limit_joins)]
"""POST /api/matches/{id}/join: ``joins_per_minute`` and ``joins_burst`` per address and guest."""
RecordLimit = Annotated[None, Depends(limit_records)]
"""POST /api/records and POST /api/records/verify, together: ``records_per_minute`` and
``records_burst`` per address and guest."""


def limit_logins(conn: HTTPConnection, service: Service, limits: Limits, name: str) -> None:
    """Called by the route with the name tried: a name counts whether or not it is an account,
    so the limit does not tell which names are. Every spelling of a name that logs in to one
    account (its case, its width, its spaces) shares one count: the key is the account's own
    folded name (:func:`~spectacular_bid.service.accounts.name_key`). A name is counted per
    address and, with a higher ceiling, over all addresses, so that wrong passwords from one
    address do not lock the owner out of its account from another."""
    try:
        key = name_key(name)
    except DisplayNameError:
        key = name.casefold()  # no account has it; it still counts, as itself
    address = address_key(conn)
    admit(
        "logins",
        service.now_ms(),
        _by_address(conn, limits.logins_by_address),
        (
            limits.logins_by_name_and_address,
            f"{address} {key}",
            f"your address {address} at that name",
        ),
        (limits.logins_by_name, key, "all addresses at that name"),
    )
