"""Re-running a match's record through the engine (D4): rebuild an ended match, verify a record
document, and describe it move by move.

A record is its commands: each version's recorded command is decoded (``codec.parse_action``) and
applied to a fresh :class:`~spectacular_bid.rules.match.Match`, and the service's own commands
(``join``, ``start``, ``reveal``) are followed the way the match actor makes them. Because the
engine is deterministic and each deal's deck is in its command, the engine's events, every
balance and the result follow from the commands alone; :func:`verify` recomputes all of them,
every deck commitment (``fairness.verify_commitment``) and the header's result, and names the
first thing that differs from what the document says.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from spectacular_bid.rules.actions import (
    Action,
    Bid,
    Deal,
    Event,
    Play,
    RoundEnded,
)
from spectacular_bid.rules.errors import RulesError
from spectacular_bid.rules.match import Match
from spectacular_bid.rules.seats import SEATS, Seat
from spectacular_bid.rules.tiles import Tile, parse_tile
from spectacular_bid.rules.views import view_for
from spectacular_bid.service.actor import Audience, audience_of, seats_held
from spectacular_bid.service.codec import JSON, event_json, parse_action, to_json
from spectacular_bid.service.fairness import (
    committed_event,
    deck_commitment,
    revealed_event,
    verify_commitment,
)
from spectacular_bid.service.guests import Player
from spectacular_bid.service.ports import EventRecord, MatchMode, MatchRecord, MatchStatus
from spectacular_bid.service.records import IMPORTED, MatchDocument

SERVICE_COMMANDS: Final = frozenset({"join", "start", "reveal"})
"""Commands the match actor records that are not engine actions."""
_SEAT_COMMANDS: Final = frozenset({"play", "draw", "bid", "accept", "decline", "resign"})
_NOTHING: Final = "(nothing)"


# -- discrepancies --------------------------------------------------------------------------


class _Missing:
    def __repr__(self) -> str:
        return _NOTHING


MISSING: Final = _Missing()
"""Stands for a value one side has and the other lacks."""


@dataclass(frozen=True, slots=True)
class Discrepancy:
    """The first place a record differs from its replay: ``where`` (``version 12``, ``round 2``,
    ``match``), the ``field`` within it, what the replay expected and what the record holds."""

    where: str
    field: str
    expected: object
    found: object

    def __str__(self) -> str:
        expected, found = _show(self.expected), _show(self.found)
        return f"{self.where}: {self.field}: expected {expected}, found {found}"


def _show(value: object) -> str:
    if value is MISSING:
        return _NOTHING
    text = repr(value) if isinstance(value, str) else _compact(value)
    return text if len(text) <= 200 else text[:197] + "..."


def _compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class RecordMismatchError(ValueError):
    """A record the engine does not reproduce; ``discrepancy`` is the first difference."""

    def __init__(self, discrepancy: Discrepancy) -> None:
        super().__init__(str(discrepancy))
        self.discrepancy = discrepancy


def first_difference(expected: object, found: object, path: str) -> tuple[str, object, object]:
    """The path of the first value that differs between two JSON values, and both values there;
    ``("", …)`` is never returned for equal values — call only when they differ or to check."""
    if isinstance(expected, dict) and isinstance(found, dict):
        for key, value in expected.items():
            if key not in found:
                return f"{path}.{key}", value, MISSING
            if _differs(value, found[key]):
                return first_difference(value, found[key], f"{path}.{key}")
        for key, value in found.items():
            if key not in expected:
                return f"{path}.{key}", MISSING, value
    elif isinstance(expected, list) and isinstance(found, list):
        for i in range(max(len(expected), len(found))):
            mine = expected[i] if i < len(expected) else MISSING
            theirs = found[i] if i < len(found) else MISSING
            if mine is MISSING or theirs is MISSING or _differs(mine, theirs):
                if mine is MISSING or theirs is MISSING:
                    return f"{path}[{i}]", mine, theirs
                return first_difference(mine, theirs, f"{path}[{i}]")
    return path, expected, found


def _differs(a: object, b: object) -> bool:
    """JSON inequality that tells ``true`` from ``1`` (Python's ``==`` does not)."""
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        return _canonical(a) != _canonical(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return a is not b
    return type(a) is not type(b) or bool(a != b)


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)


def _check(where: str, field: str, expected: object, found: object) -> None:
    if _differs(expected, found):
        path, mine, theirs = first_difference(expected, found, field)
        raise RecordMismatchError(Discrepancy(where, path, mine, theirs))


# -- replaying ------------------------------------------------------------------------------


@dataclass(slots=True)
class Step:
    """One version replayed: its recorded entry, the engine action (None for a service command),
    the engine's events, and every event the actor would have recorded for it."""

    entry: Mapping[str, Any]
    action: Action | None
    events: list[Event]
    expected_events: list[JSON]


@dataclass(slots=True)
class Replayer:
    """Applies recorded commands to a fresh match, following the actor's own bookkeeping: the
    current round's commitment and the deck and salt it hides until the round ends."""

    names: Mapping[str, str | None] = field(default_factory=dict)
    """Display names by seat, for the ``seat_taken`` events; unknown names are not checked."""
    match: Match = field(default_factory=Match)
    secret: tuple[tuple[Tile, ...], str] | None = None
    commitment: JSON = None
    """The last ``deck_committed`` event the actor would have sent."""
    reveal: JSON = None
    """The last ``deck_revealed`` event."""
    deals: list[tuple[int, tuple[Tile, ...], str]] = field(default_factory=list)
    """(version, deck, salt) of each deal in order."""

    def step(self, entry: Mapping[str, Any]) -> Step:
        """Apply one recorded version; raise ``RulesError`` or ``ValueError`` when it cannot be."""
        command = entry["command"]
        kind = command.get("type")
        if kind in SERVICE_COMMANDS:
            seat = str(command.get("seat"))
            if kind == "join":
                name = self.names.get(seat)
                recorded = _event_of(entry, "seat_taken")
                shown = name if name is not None else (recorded or {}).get("name")
                extra: JSON = {"type": "seat_taken", "seat": seat, "name": shown}
            else:
                extra = {"type": "ready" if kind == "start" else "revealed", "seat": seat}
            return Step(entry, None, [], [extra])
        action = parse_action(command)
        events = self.match.apply(action)
        expected = [event_json(e) for e in events]
        if isinstance(action, Deal):
            salt = command.get("salt")
            if not isinstance(salt, str):
                raise ValueError(f"a deal's command needs its salt, found {salt!r}")
            self.secret = (action.deck, salt)
            self.deals.append((entry.get("version", 0), action.deck, salt))
            self.commitment = committed_event(self.match.round_number, action.deck, salt)
            expected.append(self.commitment)
        elif self.secret is not None and any(isinstance(e, RoundEnded) for e in events):
            deck, salt = self.secret
            self.secret = None
            commitment = self.commitment["commitment"] if self.commitment else None
            self.reveal = revealed_event(self.match.round_number, commitment, deck, salt)
            expected.append(self.reveal)
        return Step(entry, action, events, expected)


def _event_of(entry: Mapping[str, Any], kind: str) -> dict[str, Any] | None:
    for event in entry.get("events") or ():
        if isinstance(event, dict) and event.get("type") == kind:
            return event
    return None


def replay(document: MatchDocument) -> Iterator[tuple[Step, Match]]:
    """Each version replayed, with the match as it stands after it (the same object, changed
    in place: read it before asking for the next step). Stops at the first command the engine
    refuses, with :class:`RecordMismatchError`."""
    replayer = Replayer({s: document.name(s) for s in ("first", "second")})
    for entry in document.versions:
        yield _step(replayer, entry), replayer.match


def _step(replayer: Replayer, entry: Mapping[str, Any]) -> Step:
    try:
        return replayer.step(entry)
    except (RulesError, ValueError, KeyError, TypeError) as exc:
        raise RecordMismatchError(
            Discrepancy(
                f"version {entry.get('version')}",
                "command",
                "a command the rules accept",
                f"{_compact(entry.get('command'))} ({exc})",
            )
        ) from None


# -- verifying ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verified:
    """What a record that verified contains (for the one-line report)."""

    match_id: str
    versions: int
    rounds: int
    winner: str | None
    reason: str


def verify(document: MatchDocument) -> Verified:
    """Re-run ``document`` through the engine and check every version's seat, events (each
    balance included) and clock, every round's commitment and reveal, and the header's result.
    Raise :class:`RecordMismatchError` with the first discrepancy."""
    replayer = Replayer({s: document.name(s) for s in ("first", "second")})
    settings = document.match.get("settings") or {}
    bank_ms = settings.get("bank_ms")
    banks: list[int | None] = [bank_ms, bank_ms]
    shared = document.match["mode"] == MatchMode.SHARED.value
    for index, entry in enumerate(document.versions):
        where = f"version {entry['version']}"
        _check(where, "version", index + 1, entry["version"])
        step = _step(replayer, entry)
        _check(where, "seat", _expected_seat(entry), entry["seat"])
        _check(where, "events", step.expected_events, entry["events"])
        _check_clock(where, entry["clock"], replayer.match, banks, shared)
    match = replayer.match
    last = f"version {len(document.versions)}"
    if match.result is None:
        raise RecordMismatchError(Discrepancy(last, "result", "the match to have ended", "none"))
    _check_rounds(document, replayer)
    result = match.result
    winner = str(result.winner) if result.winner is not None else None
    status = MatchStatus.FINISHED if winner is not None else MatchStatus.ABORTED
    header = document.match
    _check("match", "status", status.value, header["status"])
    _check("match", "winner", winner, header["winner"])
    _check("match", "reason", result.reason.value, header["reason"])
    rated = result.is_rated and not header.get(IMPORTED, False)
    _check("match", "rated", rated, header["rated"])
    return Verified(
        document.id, len(document.versions), len(replayer.deals), winner, header["reason"]
    )


def _expected_seat(entry: Mapping[str, Any]) -> str | None:
    command = entry["command"]
    kind = command.get("type")
    if kind in _SEAT_COMMANDS or kind in ("start", "reveal"):
        seat = command.get("seat")
        return seat if isinstance(seat, str) else None
    if kind == "deal":
        # Dealt by the press that completed Start/Continue, or by the grace timer (D3).
        recorded = entry["seat"]
        return recorded if recorded in ("first", "second") else None
    return None


def _check_clock(
    where: str, clock: object, match: Match, banks: list[int | None], shared: bool
) -> None:
    """A reading's running seat is the seat to act (or none while clocks stand, R7.5), and no
    bank ever grows or leaves ``[0, bank_ms]`` (R7.1)."""
    if not isinstance(clock, dict):
        raise RecordMismatchError(Discrepancy(where, "clock", "a clock reading", clock))
    running = clock.get("running")
    to_act = str(match.to_act) if match.to_act is not None else None
    if running != to_act and not (running is None and shared):
        _check(where, "clock.running", to_act, running)
    left = clock.get("bank_left_ms")
    if not isinstance(left, dict):
        raise RecordMismatchError(Discrepancy(where, "clock.bank_left_ms", "both banks", left))
    for seat in SEATS:
        name = str(seat)
        value = left.get(name)
        limit = banks[seat]
        if not isinstance(value, int) or value < 0 or (limit is not None and value > limit):
            shown = f"at most {limit} ms" if limit is not None else "a bank in ms"
            raise RecordMismatchError(
                Discrepancy(where, f"clock.bank_left_ms.{name}", shown, value)
            )
        banks[seat] = value


def _check_rounds(document: MatchDocument, replayer: Replayer) -> None:
    """Each dealt round has a row whose commitment, salt and deck are the deal's, and whose
    commitment the salt and deck reproduce."""
    _check("rounds", "length", len(replayer.deals), len(document.rounds))
    for number, ((_version, deck, salt), row) in enumerate(
        zip(replayer.deals, document.rounds, strict=True), start=1
    ):
        where = f"round {number}"
        _check(where, "number", number, row["number"])
        _check(where, "commitment", deck_commitment(deck, salt), row["commitment"])
        _check(where, "salt", salt, row["salt"])
        _check(where, "deck", [t.notation() for t in deck], row["deck"])
        try:
            tiles = [parse_tile(t) for t in row["deck"]]
        except ValueError:
            tiles = []
        if not verify_commitment(row["commitment"], tiles, row["salt"]):
            raise RecordMismatchError(
                Discrepancy(where, "commitment", "sha256(salt:deck)", row["commitment"])
            )


# -- a finished match, rebuilt --------------------------------------------------------------


class FinishedMatch:
    """An ended match no longer in memory, rebuilt read-only from its stored record so that a
    player who comes back sees how and why it ended (D5). It offers what readers of a live
    :class:`~spectacular_bid.service.actor.MatchActor` use: ``id``, ``mode``, ``status``,
    ``version``, ``match``, ``seats_of``, ``default_audience``, ``snapshot`` and
    ``snapshot_json``."""

    is_live = False

    def __init__(
        self,
        header: MatchRecord,
        seats: tuple[Player | None, Player | None],
        match: Match,
        version: int,
        clock: JSON,
        commitment: JSON,
        reveal: JSON,
    ) -> None:
        self.id = header.id
        self.mode = header.mode
        self.status = header.status
        self.header = header
        self.seats = seats
        self.match = match
        self.version = version
        self.clock = clock
        self.commitment = commitment
        self.reveal = reveal

    @classmethod
    def rebuild(
        cls,
        header: MatchRecord,
        seats: tuple[Player | None, Player | None],
        events: Sequence[EventRecord],
    ) -> FinishedMatch:
        """Replay ``events``' commands; raise ``ValueError`` or ``RulesError`` on a record the
        engine does not accept."""
        names = {
            str(s): p.name if p is not None else None for s, p in zip(SEATS, seats, strict=True)
        }
        replayer = Replayer(names)
        commitment: JSON = None
        reveal: JSON = None
        for record in events:
            replayer.step(
                {"version": record.version, "command": record.command, "events": record.events}
            )
            for event in record.events:
                kind = event.get("type") if isinstance(event, dict) else None
                if kind == "deck_committed":
                    commitment = event
                elif kind == "deck_revealed":
                    reveal = event
        last = events[-1] if events else None
        clock = _stopped(last.clock if last is not None else None, header)
        return cls(
            header,
            seats,
            replayer.match,
            last.version if last is not None else 0,
            clock,
            commitment,
            reveal,
        )

    def seats_of(self, player: Player | None) -> list[Seat]:
        return seats_held(self.seats, player)

    def default_audience(self, player: Player | None) -> Audience:
        return audience_of(self.seats, player)

    async def snapshot(self, audience: Audience) -> tuple[int, JSON]:
        """The version and the snapshot (as ``MatchActor.snapshot``; nothing changes here)."""
        return self.version, self.snapshot_json(audience)

    def snapshot_json(self, audience: Audience) -> JSON:
        """The same match object a live actor sends, for a match that is over."""
        viewer = {Audience.FIRST: Seat.FIRST, Audience.SECOND: Seat.SECOND}.get(audience)
        view = view_for(self.match, viewer)
        if audience is Audience.DEVICE:
            view = replace(view, opening_tile=None)
        players = [None if p is None else {"name": p.name, "online": False} for p in self.seats]
        return {
            "id": self.id,
            "mode": self.mode.value,
            "status": self.status.value,
            "audience": audience.value,
            "players": {"first": players[0], "second": players[1]},
            "spectators": 0,
            **to_json(view),
            "clock": self.clock,
            "handover": None,
            "ready": {"first": False, "second": False},
            "start_deadline_ms": None,
            "join_deadline_ms": None,
            "deck_commitment": self.commitment,
            "deck_reveal": self.reveal,
        }


def _stopped(clock: JSON, header: MatchRecord) -> JSON:
    """A clock reading with the clocks standing, as they do once a match is over."""
    if isinstance(clock, dict) and isinstance(clock.get("bank_left_ms"), dict):
        return {**clock, "running": None, "delay_left_ms": 0, "deadline_ms": None}
    bank = header.settings.get("bank_ms", 0) if isinstance(header.settings, dict) else 0
    return {
        "now_ms": 0,
        "running": None,
        "bank_left_ms": {"first": bank, "second": bank},
        "delay_left_ms": 0,
        "deadline_ms": None,
    }


# -- describing -----------------------------------------------------------------------------


def describe(document: MatchDocument) -> Iterator[str]:
    """The match move by move, for ``specbid replay``: each version's command; after a
    placement, the board description of RULES.md Appendix A; after a transfer, both balances;
    then the clock reading. Stops with :class:`RecordMismatchError` at a command the engine
    refuses."""
    header = document.match
    names = {s: document.name(s) or "(empty)" for s in ("first", "second")}
    ending = (
        f"{header['winner']} ({names[header['winner']]}) wins"
        if header["winner"] in names
        else "aborted, no result"
    )
    rated = "rated" if header["rated"] else "unrated"
    yield (
        f"Match {document.id} ({header['mode']}): {names['first']} (first) v "
        f"{names['second']} (second). {ending}: {header['reason']}, {rated}."
    )
    for step, match in replay(document):
        entry = step.entry
        yield f"v{entry['version']} {_command_text(entry, step, match)}"
        for event in entry["events"]:
            line = _event_text(event, match)
            if line is not None:
                yield f"  {line}"
        clock = _clock_text(entry.get("clock"))
        if clock is not None:
            yield f"  {clock}"


def _command_text(entry: Mapping[str, Any], step: Step, match: Match) -> str:
    command = entry["command"]
    kind = command.get("type")
    action = step.action
    if isinstance(action, Play):
        return f"{action.seat}: play {action}"
    if isinstance(action, Bid):
        return f"{action.seat}: bid {action.amount}"
    if isinstance(action, Deal):
        pressed = f" (on {entry['seat']}'s start)" if entry.get("seat") else ""
        return f"deal round {match.round_number}{pressed}"
    if kind == "join":
        return f"{command.get('seat')}: join"
    if kind == "abort":
        return f"abort ({command.get('reason')})"
    if kind == "flag":
        return f"flag {command.get('seat')} (time)"
    seat = command.get("seat")
    return f"{seat}: {kind}" if seat else str(kind)


def _event_text(event: Mapping[str, Any], match: Match) -> str | None:
    kind = event.get("type")
    if kind == "played":
        board = match.round.board if match.round is not None else None
        return board.describe() if board is not None else None
    if kind == "transferred":
        balances = event["balances"]
        return (
            f"{event['payer']} pays {event['payee']} {event['amount']} ({event['reason']}): "
            f"balances first {balances['first']}, second {balances['second']}"
        )
    if kind == "round_dealt":
        hands = event["hands"]
        return (
            f"round {event['number']} dealt: first {' '.join(hands['first'])}; "
            f"second {' '.join(hands['second'])}; boneyard {' '.join(event['boneyard'])}"
        )
    if kind == "deck_committed":
        return f"deck commitment of round {event['round']}: {event['commitment']}"
    if kind == "deck_revealed":
        return f"deck of round {event['round']} revealed: salt {event['salt']}"
    if kind == "round_ended":
        totals = event["pip_totals"]
        return (
            f"round {event['number']} ends ({event['reason']}): pips first {totals['first']}, "
            f"second {totals['second']}"
        )
    if kind == "match_ended":
        winner = event.get("winner")
        return f"match ends: {winner + ' wins' if winner else 'no result'} ({event['reason']})"
    if kind == "opener_chosen":
        tile = event.get("tile")
        return f"{event['seat']} opens" + (f" with {tile}" if tile else " with any tile")
    if kind == "drew":
        return f"{event['seat']} draws {event['tile']} ({event['boneyard_count']} left)"
    if kind == "passed":
        return f"{event['seat']} passes (forced)"
    if kind == "seat_taken":
        return f"{event['name']} takes the {event['seat']} seat"
    if kind in ("ready", "revealed"):
        return None
    fields = ", ".join(f"{k} {_compact(v)}" for k, v in event.items() if k != "type")
    return f"{kind}: {fields}" if fields else str(kind)


def _clock_text(clock: object) -> str | None:
    if not isinstance(clock, dict) or not isinstance(clock.get("bank_left_ms"), dict):
        return None
    banks = clock["bank_left_ms"]
    running = clock.get("running")
    text = f"clock: first {_seconds(banks.get('first'))}, second {_seconds(banks.get('second'))}"
    if running is None:
        return text + "; stopped"
    return f"{text}; {running} to move, delay {_seconds(clock.get('delay_left_ms'))}"


def _seconds(ms: object) -> str:
    if not isinstance(ms, int):
        return "?"
    return f"{ms // 1000}.{ms % 1000:03d} s"
