"""One truth for tokens (``service.sessions``): what a process read of a token is trusted only
briefly, an announced end drops it at once, and a read of the store that overlapped an end is
read again rather than kept. Several "processes" here are several services on one store."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest
from argon2 import PasswordHasher

from spectacular_bid.service.accounts import Accounts
from spectacular_bid.service.guests import Guests, token_hash
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.passwords import Passwords
from spectacular_bid.service.ports import Player, SessionRecord
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.sessions import (
    CHANNEL,
    TOKEN_CACHE_MS,
    EndedTokens,
    TokenCache,
)

QUICK = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
ANN = Player("ann", "Ann", account=True)


class Clock:
    def __init__(self) -> None:
        self.now_ms = 1_000_000

    def __call__(self) -> int:
        return self.now_ms


@dataclass
class Process:
    """One server process's view of the shared store: its guests, accounts and clock."""

    guests: Guests
    accounts: Accounts
    clock: Clock


@dataclass
class Wire:
    """The bus's channels, delivering each message to every process listening (itself too)."""

    handlers: list[object] = field(default_factory=list)
    reconnects: list[object] = field(default_factory=list)
    sent: list[str] = field(default_factory=list)

    is_up = True

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    def send(self, channel: str, text: str) -> None:
        assert channel == CHANNEL
        self.sent.append(text)
        for handler in self.handlers:
            handler(text)  # type: ignore[operator]

    async def listen(self, channel: str, handler: object) -> None:
        assert channel == CHANNEL
        self.handlers.append(handler)

    async def unlisten(self, channel: str) -> None: ...

    async def put(self, key: str, text: str, ttl_ms: int) -> None: ...

    async def read(self, prefix: str) -> dict[str, str]:
        return {}

    def on_reconnect(self, callback: object) -> None:
        self.reconnects.append(callback)


def process(store: InMemoryStore) -> Process:
    clock = Clock()
    guests = Guests(store, now_ms=clock)
    return Process(guests, Accounts(store, guests, Passwords(QUICK), clock), clock)


async def resolve(proc: Process, token: str) -> Player | None:
    """As the web layer does: a guest's token, else an account session's."""
    guest = await proc.guests.resolve(token)
    return guest if guest is not None else await proc.accounts.resolve(token)


async def an_account(proc: Process, name: str = "Ann") -> tuple[Player, str]:
    player, guest_token = await proc.guests.create(name, proc.clock())
    return replace_account(player), await proc.accounts.claim(player, guest_token, "correct horse")


def replace_account(player: Player) -> Player:
    return Player(player.id, player.name, account=True)


# -- the message --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ended",
    [EndedTokens("p", token_hash="t"), EndedTokens("p", keep="k"), EndedTokens("p")],
    ids=["one", "all-but", "all"],
)
def test_an_end_reads_back_as_it_was_sent(ended: EndedTokens) -> None:
    assert EndedTokens.parse(ended.text()) == ended


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[]", "names its player"),
        ('{"token": "t"}', "names its player"),
        ('{"player": "p", "why": "x"}', "unknown fields"),
        ('{"player": "p", "keep": 3}', "strings only"),
        ("{", "Expecting"),
    ],
)
def test_an_unreadable_end_says_why(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        EndedTokens.parse(text)


def test_what_an_end_covers() -> None:
    assert EndedTokens("p", token_hash="t").covers("p", "t")
    assert not EndedTokens("p", token_hash="t").covers("p", "u")
    assert not EndedTokens("p", token_hash="t").covers("q", "t")
    assert EndedTokens("p", keep="k").covers("p", "t")
    assert not EndedTokens("p", keep="k").covers("p", "k")
    assert EndedTokens("p").covers("p", "k")


# -- the cache ----------------------------------------------------------------------------------


def test_a_token_is_trusted_for_its_cache_time_only() -> None:
    clock = Clock()
    cache = TokenCache(clock, ttl_ms=1_000)
    cache.keep("t", ANN, None)
    clock.now_ms += 999
    assert cache.get("t") is not None
    clock.now_ms += 1
    assert cache.get("t") is None
    assert len(cache) == 0


def test_using_a_token_does_not_make_it_trusted_longer() -> None:
    clock = Clock()
    cache = TokenCache(clock, ttl_ms=1_000)
    cache.keep("t", ANN, None)
    for _ in range(9):
        clock.now_ms += 100
        known = cache.get("t")
        assert known is not None
        cache.keep("t", known.player, known.session, known.read_ms)  # changed in place
    clock.now_ms += 100
    assert cache.get("t") is None


def test_an_end_drops_exactly_what_it_covers() -> None:
    cache = TokenCache(Clock())
    bo = Player("bo", "Bo", account=True)
    for token, player in (("a1", ANN), ("a2", ANN), ("a3", ANN), ("b1", bo)):
        cache.keep(token, player, None)
    cache.drop(EndedTokens("ann", token_hash="a1"))
    assert cache.get("a1") is None
    assert cache.get("a2") is not None
    cache.drop(EndedTokens("ann", keep="a3"))
    assert [t for t in ("a1", "a2", "a3", "b1") if cache.get(t) is not None] == ["a3", "b1"]


def test_ended_since_tells_which_reads_to_repeat() -> None:
    cache = TokenCache(Clock())
    before = cache.generation
    assert not cache.ended_since(before, "ann", "a1")
    cache.drop(EndedTokens("bo", token_hash="b1"))
    assert not cache.ended_since(before, "ann", "a1")  # another player's end
    cache.drop(EndedTokens("ann", keep="a1"))
    assert not cache.ended_since(before, "ann", "a1")  # the kept one
    assert cache.ended_since(before, "ann", "a2")
    after = cache.generation
    cache.clear()
    assert cache.ended_since(after, "ann", "a1")  # a gap covers every token


def test_more_ends_than_remembered_cover_everything() -> None:
    cache = TokenCache(Clock())
    before = cache.generation
    for i in range(300):
        cache.drop(EndedTokens(f"p{i}", token_hash=f"t{i}"))
    assert cache.ended_since(before, "ann", "a1")


# -- processes on one store ---------------------------------------------------------------------


async def test_without_a_bus_another_process_forgets_an_ended_session_in_its_cache_time() -> None:
    store = InMemoryStore()
    here, there = process(store), process(store)
    ann, first = await an_account(here)
    second = (await here.accounts.login("Ann", "correct horse"))[1]
    assert await resolve(there, second) == ann  # read once, kept
    await here.accounts.change_password(ann, first, "correct horse", "battery staple")
    assert await resolve(here, second) is None  # here it ended at once
    there.clock.now_ms += TOKEN_CACHE_MS - 1
    assert await resolve(there, second) == ann  # there, only its brief memory holds it
    there.clock.now_ms += 1
    assert await resolve(there, second) is None
    assert await resolve(there, first) == ann


async def test_a_change_to_the_account_reads_the_store_not_the_cache() -> None:
    store = InMemoryStore()
    here, there = process(store), process(store)
    ann, first = await an_account(here)
    second = (await here.accounts.login("Ann", "correct horse"))[1]
    assert await resolve(there, second) == ann
    await here.accounts.change_password(ann, first, "correct horse", "battery staple")
    with pytest.raises(Rejection) as refused:
        await there.accounts.change_password(ann, second, "battery staple", "stolen for good")
    assert refused.value.code is ErrorCode.UNAUTHORIZED
    assert (await here.accounts.login("Ann", "battery staple"))[0] == ann


async def test_with_a_bus_every_process_drops_an_ended_token_at_once() -> None:
    store = InMemoryStore()
    wire = Wire()
    procs = [process(store) for _ in range(3)]
    for proc in procs:
        await proc.accounts.ends.attach(wire)
    here, *others = procs
    player, guest_token = await here.guests.create("Ann", 0)
    for proc in others:
        assert await resolve(proc, guest_token) == player
    session = await here.accounts.claim(player, guest_token, "correct horse")
    ann = replace_account(player)
    for proc in procs:
        assert await resolve(proc, guest_token) is None
        assert await resolve(proc, session) == ann
    await others[0].accounts.logout(ann, session)
    for proc in procs:
        assert await resolve(proc, session) is None
    assert [EndedTokens.parse(text).token_hash for text in wire.sent] == [
        token_hash(guest_token),
        token_hash(session),
    ]


async def test_ending_every_session_of_a_player_ends_them_everywhere() -> None:
    store = InMemoryStore()
    wire = Wire()
    here, there = process(store), process(store)
    for proc in (here, there):
        await proc.accounts.ends.attach(wire)
    ann, first = await an_account(here)
    second = (await there.accounts.login("Ann", "correct horse"))[1]
    assert await resolve(here, second) == ann
    assert await resolve(there, first) == ann
    await here.accounts.end_sessions(ann.id)
    for proc in (here, there):
        assert await resolve(proc, first) is None
        assert await resolve(proc, second) is None


async def test_a_guest_logging_out_ends_nothing() -> None:
    """A guest's token is its only credential: the browser forgets it, the server does not."""
    store = InMemoryStore()
    wire = Wire()
    here = process(store)
    await here.accounts.ends.attach(wire)
    player, token = await here.guests.create("Bo", 0)
    await here.accounts.logout(player, token)
    assert wire.sent == []
    assert await resolve(here, token) == player


async def test_a_gap_forgets_everything_read() -> None:
    store = InMemoryStore()
    wire = Wire()
    here = process(store)
    await here.accounts.ends.attach(wire)
    await here.guests.create("Bo", 0)
    assert len(here.guests) == 1
    for reconnected in wire.reconnects:
        reconnected()  # type: ignore[operator]
    assert len(here.guests) == 0


async def test_a_garbled_announcement_is_taken_for_a_gap() -> None:
    """It ended something; which, this process cannot tell: it forgets everything."""
    here = process(InMemoryStore())
    await here.guests.create("Bo", 0)
    here.accounts.ends.heard("{")
    assert len(here.guests) == 0


class PausedStore(InMemoryStore):
    """A store whose session reads wait for ``go`` once ``paused`` is set: a read in flight."""

    def __init__(self) -> None:
        super().__init__()
        self.paused = False
        self.reading = asyncio.Event()
        self.go = asyncio.Event()
        self.reads = 0

    async def session(self, token_hash: str) -> SessionRecord | None:
        found = await super().session(token_hash)
        self.reads += 1
        if self.paused:
            self.paused = False
            self.reading.set()
            await self.go.wait()
        return found


async def test_a_read_that_overlapped_the_end_of_its_token_is_read_again() -> None:
    """The read began before the end was stored and returned after it was announced: kept, it
    would honour the ended session for the whole cache time."""
    store = PausedStore()
    wire = Wire()
    here, there = process(store), process(store)
    for proc in (here, there):
        await proc.accounts.ends.attach(wire)
    ann, session = await an_account(here)
    store.paused = True
    reads_before = store.reads
    reading = asyncio.create_task(there.accounts.resolve(session))
    await store.reading.wait()  # there has read the live session, and not yet returned
    await here.accounts.logout(ann, session)
    store.go.set()
    assert await reading is None
    assert store.reads == reads_before + 2
