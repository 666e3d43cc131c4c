"""Every record the test suite produces replays through the machine to exactly the recorded
events and final state (PROTOCOL.md "The version rule").

:class:`StoredMatches` notes every :class:`InMemoryStore` and every :class:`MatchActor` a test
creates. After the test, each stored match's versions are re-run through the match machine
(:class:`~spectacular_bid.service.replay.Replay`, the code ``--verify``, the replay frames and
recovery use) and each version must give exactly what was stored: its events, its clock reading,
its command, seat and times; the header must say what the replay says (status, result, rated).
An ended match's record document must also pass :func:`~spectacular_bid.service.replay.verify`
(rounds, commitments, result). For a match whose actor the test created, the replayed state at
the actor's version must be the actor's own — its match, clock, status, presses, hand-over and
deck commitment — and nothing but start-up recovery's abort may be stored after it: the state an
actor installed is the state its record describes.

The autouse fixture :func:`stored_matches`, imported by the ``conftest.py`` of ``tests/service``,
``tests/web`` and ``tests/durable``, runs it after every test there, so it covers every
in-memory store those tests create.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.codec import clock_json, command_json, event_json
from spectacular_bid.service.entries import header_of
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.ports import MatchRecord, MatchStatus, Player
from spectacular_bid.service.record_document import ENDED, IMPORTED, version_of
from spectacular_bid.service.records import read_document
from spectacular_bid.service.replay import Replay, verify
from spectacular_bid.service.state import MatchState


@dataclass
class StoredMatches:
    """The in-memory stores and actors one test created."""

    stores: list[InMemoryStore] = field(default_factory=list)
    actors: list[tuple[MatchActor, object]] = field(default_factory=list)
    """Each actor with the store it writes to."""
    checked: int = 0
    """How many stored versions the last :meth:`check` re-ran."""

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Note every store and actor created from now on (until the test ends)."""
        store_init = InMemoryStore.__init__
        actor_init = MatchActor.__init__
        actor_signature = inspect.signature(actor_init)

        def new_store(store: InMemoryStore, *args: Any, **kwargs: Any) -> None:
            store_init(store, *args, **kwargs)
            self.stores.append(store)

        def new_actor(actor: MatchActor, *args: Any, **kwargs: Any) -> None:
            actor_init(actor, *args, **kwargs)
            bound = actor_signature.bind(actor, *args, **kwargs)
            self.actors.append((actor, bound.arguments["store"]))

        monkeypatch.setattr(InMemoryStore, "__init__", new_store)
        monkeypatch.setattr(MatchActor, "__init__", new_actor)

    def _actor(self, store: InMemoryStore, match_id: str) -> MatchActor | None:
        found = [a for a, s in self.actors if s is store and a.id == match_id]
        return found[-1] if found else None

    async def check(self) -> None:
        """Re-run every stored match; fail with the first difference."""
        self.checked = 0
        for store in self.stores:
            ids = await _match_ids(store)
            mine = {a.id for a, s in self.actors if s is store}
            assert mine <= set(ids), f"matches stored but not listed: {sorted(mine - set(ids))}"
            for match_id in ids:
                self.checked += await self._check_match(store, match_id)

    async def _check_match(self, store: InMemoryStore, match_id: str) -> int:
        header = await store.match(match_id)
        assert header is not None
        records = await store.events(match_id)
        names = await _names(store, header)
        first = version_of(records[0]) if records else None
        accounts = {"first": header.first_account, "second": header.second_account}
        replayer = Replay.of(header.mode, header.settings, names, first, accounts)
        states = [replayer.state]  # at creation, then after each version
        for record in records:
            where = f"match {match_id}, version {record.version}"
            entry = replayer.step(version_of(record))
            seat = str(entry.seat) if entry.seat is not None else None
            _same(where, "version", entry.version, record.version)
            _same(where, "events", [event_json(e) for e in entry.events], record.events)
            _same(where, "clock", clock_json(entry.clock), record.clock)
            _same(where, "command", command_json(entry.command), record.command)
            _same(where, "seat", seat, record.seat)
            _same(where, "mono_ms", entry.now_ms, record.mono_ms)
            if record.received_ms is not None:  # None: stored before record format 2
                _same(where, "received_ms", entry.received_ms, record.received_ms)
            states.append(replayer.state)
        state = replayer.state
        where = f"match {match_id}"
        _check_header(header, replace(state, seats=_seated(header)), where)
        if header.status in ENDED:
            verify(await read_document(store, match_id))
        actor = self._actor(store, match_id)
        if actor is not None:
            _check_actor(actor.state, states, where)
            later = [r.command for r in records[actor.version :]]
            assert later in ([], [RESTART_ABORT]), (
                f"{where}: stored after the actor's version {actor.version}: {later}"
            )
        return len(records)


RESTART_ABORT = {"type": "abort", "reason": "timing_failure"}
"""The one version another service may store after an actor's last: start-up recovery's (D5)."""


def _check_actor(live: MatchState, states: list[MatchState], where: str) -> None:
    """The state the actor installed is the one its stored versions give."""
    assert live.version < len(states), f"{where}: the actor is at version {live.version}, unstored"
    state = states[live.version]
    _same(where, "the actor's version", state.version, live.version)
    _same(where, "the actor's status", state.status, live.status)
    _same(where, "the actor's match", state.match, live.match)
    _same(where, "the actor's clock", state.clock, live.clock)
    # And the rest of it (presses, hand-over, deck commitment...), but what no record holds:
    # who the players are, the server-only settings, the timers set at the match's creation.
    created = state.version == 0
    comparable = replace(
        state,
        seats=live.seats,
        settings=live.settings,
        join_deadline_ms=live.join_deadline_ms,
        start_deadline_ms=live.start_deadline_ms if created else state.start_deadline_ms,
    )
    _same(where, "the actor's state", comparable, live)


def _same(where: str, what: str, replayed: object, stored: object) -> None:
    assert replayed == stored, f"{where}: {what}: replayed {replayed!r}, stored {stored!r}"


def _check_header(header: MatchRecord, state: MatchState, where: str) -> None:
    """The stored header says what the replayed state says (status, result, rated)."""
    expected = header_of(header.id, state, header.created_at_ms, header.ended_at_ms)
    _same(
        where,
        "the header's status, winner and reason",
        (expected.status, expected.winner, expected.reason),
        (header.status, header.winner, header.reason),
    )
    imported = isinstance(header.settings, dict) and bool(header.settings.get(IMPORTED))
    _same(where, "the header's rated", False if imported else expected.rated, header.rated)


def _seated(header: MatchRecord) -> tuple[Player | None, Player | None]:
    """The header's players (the replay knows them by seat only, and whether each was an
    account); names do not matter here."""

    def player(player_id: str | None, account: bool) -> Player | None:
        return None if player_id is None else Player(player_id, "", account)

    return (
        player(header.first_player, header.first_account),
        player(header.second_player, header.second_account),
    )


async def _names(store: InMemoryStore, header: MatchRecord) -> dict[str, str | None]:
    ids = [p for p in (header.first_player, header.second_player) if p is not None]
    players = await store.players(ids)

    def name(player_id: str | None) -> str | None:
        found = players.get(player_id) if player_id is not None else None
        return found.name if found is not None else None

    return {"first": name(header.first_player), "second": name(header.second_player)}


async def _match_ids(store: InMemoryStore) -> list[str]:
    """Every match in ``store``, through its public port: the unfinished and the ended ones."""
    unfinished = await store.unfinished_matches()
    ended = await store.ended_matches(ENDED, limit=1_000_000)
    ids = [m.id for m in unfinished] + [m.id for m in ended]
    assert all(m.status in (MatchStatus.WAITING, MatchStatus.ACTIVE) for m in unfinished)
    return ids


@pytest.fixture(autouse=True)
async def stored_matches(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[StoredMatches]:
    """After each test, every match it stored in memory replays through the machine to exactly
    its recorded events, clocks and final state (imported by the ``conftest.py`` files)."""
    noted = StoredMatches()
    noted.install(monkeypatch)
    yield noted
    await noted.check()
