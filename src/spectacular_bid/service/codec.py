"""The explicit JSON codec of the match record and of the events on the wire (PROTOCOL.md "Events").

Every event and recorded command has its own encoder here, naming each JSON field: renaming a
field in ``rules/actions.py`` cannot silently change a stored record or a frame — this module
stops type-checking, or ``tests/golden`` fails. The shapes are those of record format 1, which
format 2 keeps (it adds ``received_ms`` to each version, see ``record_document.py``). D7's
abort names its seat, in the command (``"seat"``) and in ``match_ended`` (``"undecided"``);
the other endings write neither, so older records encode as they always did.

Tiles are written in Appendix A move notation (``"1-4"``), open places as ``"1-4:smaller"``,
seats as ``"first"``/``"second"``, enums by value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from spectacular_bid.clock import ClockReading
from spectacular_bid.rules.actions import (
    Abort,
    AbortReason,
    Accept,
    AuctionOpened,
    Bid,
    BidAccepted,
    BidMade,
    Decline,
    Declined,
    Draw,
    Drew,
    Flag,
    MatchEnded,
    OpenerChosen,
    Passed,
    Play,
    Played,
    Resign,
    RoundDealt,
    RoundEnded,
    Transferred,
)
from spectacular_bid.rules.board import Place
from spectacular_bid.rules.errors import NotationError
from spectacular_bid.rules.notation import (
    parse_place,
    parse_seat,
    parse_tile,
    place_text,
    tile_text,
)
from spectacular_bid.rules.seats import BySeat, Seat
from spectacular_bid.rules.tiles import Tile
from spectacular_bid.service.commands import (
    HandingOver,
    PressedReveal,
    PressedStart,
    RecordedCommand,
    Resumed,
    SaltedDeal,
    TookSeat,
)
from spectacular_bid.service.events import (
    DeckCommitted,
    DeckRevealed,
    MatchEvent,
    Ready,
    Revealed,
    SeatTaken,
)
from spectacular_bid.service.ports import JSON


def _tiles(tiles: tuple[Tile, ...] | None) -> list[str] | None:
    return None if tiles is None else [tile_text(t) for t in tiles]


def _tile(tile: Tile | None) -> str | None:
    return None if tile is None else tile_text(tile)


def _place(place: Place | None) -> str | None:
    return None if place is None else place_text(place)


def _seat(seat: Seat | None) -> str | None:
    return None if seat is None else str(seat)


def _pair(pair: BySeat[Any], each: Callable[[Any], JSON]) -> JSON:
    return {"first": each(pair.first), "second": each(pair.second)}


def _same(value: JSON) -> JSON:
    return value


def _match_ended(event: MatchEnded) -> JSON:
    """``undecided`` is written only when D7 names a seat: no other ending has it, so every
    record written before D7 encodes exactly as it did."""
    data: dict[str, JSON] = {
        "type": "match_ended",
        "winner": _seat(event.winner),
        "reason": event.reason.value,
    }
    if event.undecided is not None:
        data["undecided"] = _seat(event.undecided)
    return data


_EVENTS: Final[dict[type, Callable[[Any], JSON]]] = {
    RoundDealt: lambda e: {
        "type": "round_dealt",
        "number": e.number,
        "hands": _pair(e.hands, _tiles),
        "boneyard": _tiles(e.boneyard),
        "boneyard_count": e.boneyard_count,
    },
    AuctionOpened: lambda e: {"type": "auction_opened", "jockey": _seat(e.jockey)},
    OpenerChosen: lambda e: {"type": "opener_chosen", "seat": _seat(e.seat), "tile": _tile(e.tile)},
    Declined: lambda e: {"type": "declined", "seat": _seat(e.seat), "forced": e.forced},
    BidMade: lambda e: {
        "type": "bid_made",
        "seat": _seat(e.seat),
        "amount": e.amount,
        "cost": e.cost,
    },
    BidAccepted: lambda e: {
        "type": "bid_accepted",
        "seat": _seat(e.seat),
        "bidder": _seat(e.bidder),
        "amount": e.amount,
        "payment": e.payment,
        "forced": e.forced,
    },
    Transferred: lambda e: {
        "type": "transferred",
        "payer": _seat(e.payer),
        "payee": _seat(e.payee),
        "amount": e.amount,
        "reason": e.reason.value,
        "balances": _pair(e.balances, _same),
    },
    Played: lambda e: {
        "type": "played",
        "seat": _seat(e.seat),
        "tile": _tile(e.tile),
        "at": _place(e.at),
        "ends_sum": e.ends_sum,
        "award": e.award,
    },
    Drew: lambda e: {
        "type": "drew",
        "seat": _seat(e.seat),
        "tile": _tile(e.tile),
        "boneyard_count": e.boneyard_count,
    },
    Passed: lambda e: {"type": "passed", "seat": _seat(e.seat)},
    RoundEnded: lambda e: {
        "type": "round_ended",
        "number": e.number,
        "reason": e.reason.value,
        "hands": _pair(e.hands, _tiles),
        "pip_totals": _pair(e.pip_totals, _same),
        "jockey": _seat(e.jockey),
    },
    MatchEnded: lambda e: _match_ended(e),
    SeatTaken: lambda e: {"type": "seat_taken", "seat": _seat(e.seat), "name": e.name},
    Ready: lambda e: {"type": "ready", "seat": _seat(e.seat)},
    Revealed: lambda e: {"type": "revealed", "seat": _seat(e.seat)},
    DeckCommitted: lambda e: {
        "type": "deck_committed",
        "round": e.round,
        "commitment": e.commitment,
    },
    DeckRevealed: lambda e: {
        "type": "deck_revealed",
        "round": e.round,
        "commitment": e.commitment,
        "salt": e.salt,
        "deck": _tiles(e.deck),
    },
}

_SEAT_COMMANDS: Final[dict[type, str]] = {
    Draw: "draw",
    Accept: "accept",
    Decline: "decline",
    Resign: "resign",
    Flag: "flag",
    TookSeat: "join",
    PressedStart: "start",
    PressedReveal: "reveal",
}
_SEAT_COMMAND_TYPES: Final = {name: kind for kind, name in _SEAT_COMMANDS.items()}


def event_json(event: MatchEvent) -> JSON:
    """An event as ``{"type": "played", …fields}``."""
    return _EVENTS[type(event)](event)


def command_json(command: RecordedCommand) -> JSON:
    """A version's command as the record stores it: ``{"type": "play", "seat": …}``."""
    if isinstance(command, Play):
        return {
            "type": "play",
            "seat": _seat(command.seat),
            "tile": _tile(command.tile),
            "at": _place(command.at),
        }
    if isinstance(command, Bid):
        return {"type": "bid", "seat": _seat(command.seat), "amount": command.amount}
    if isinstance(command, SaltedDeal):
        return {"type": "deal", "deck": _tiles(command.deck), "salt": command.salt}
    if isinstance(command, Abort):
        if command.seat is None:
            return {"type": "abort", "reason": command.reason.value}
        return {"type": "abort", "reason": command.reason.value, "seat": _seat(command.seat)}
    if isinstance(command, HandingOver):
        return {"type": "hand_over"}
    if isinstance(command, Resumed):
        return {"type": "resume", "paused_ms": command.paused_ms}
    return {"type": _SEAT_COMMANDS[type(command)], "seat": _seat(command.seat)}


def _field(data: Mapping[str, Any], name: str) -> Any:
    if name not in data:
        raise NotationError(f"missing field {name!r} in {dict(data)!r:.200}")
    return data[name]


def parse_command(data: Mapping[str, Any]) -> RecordedCommand:
    """Decode a recorded command (the inverse of :func:`command_json`); raise
    :class:`NotationError` naming what is wrong."""
    kind = _field(data, "type")
    if kind == "deal":
        deck, salt = _field(data, "deck"), _field(data, "salt")
        if not isinstance(deck, list) or not isinstance(salt, str):
            raise NotationError(f"invalid deal: deck {deck!r:.80}, salt {salt!r:.80}")
        return SaltedDeal(tuple(parse_tile(t) for t in deck), salt)
    if kind == "abort":
        try:
            reason = AbortReason(_field(data, "reason"))
        except ValueError:
            raise NotationError(f"invalid abort reason: {data.get('reason')!r:.80}") from None
        seat = data.get("seat")
        return Abort(reason, None if seat is None else parse_seat(seat))
    if kind == "hand_over":
        return HandingOver()
    if kind == "resume":
        paused_ms = _field(data, "paused_ms")
        if not isinstance(paused_ms, int) or isinstance(paused_ms, bool) or paused_ms < 0:
            raise NotationError(f"invalid resume pause: {paused_ms!r:.80}")
        return Resumed(paused_ms)
    seat = parse_seat(_field(data, "seat"))
    if kind == "play":
        at = data.get("at")
        tile = parse_tile(_field(data, "tile"))
        return Play(seat, tile, None if at is None else parse_place(at))
    if kind == "bid":
        amount = _field(data, "amount")
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise NotationError(f"invalid bid amount: {amount!r:.80}")
        return Bid(seat, amount)
    if isinstance(kind, str) and kind in _SEAT_COMMAND_TYPES:
        made: RecordedCommand = _SEAT_COMMAND_TYPES[kind](seat)
        return made
    raise NotationError(f"unknown command type: {kind!r:.80}")


def clock_json(reading: ClockReading) -> JSON:
    """A clock reading as the record and the wire carry it (R7.6, R7.7)."""
    return {
        "now_ms": reading.now_ms,
        "running": _seat(reading.running),
        "bank_left_ms": _pair(reading.bank_left_ms, _same),
        "delay_left_ms": reading.delay_left_ms,
        "deadline_ms": reading.deadline_ms,
    }
