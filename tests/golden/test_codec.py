"""The record codec is explicit and pinned (PROTOCOL.md "Events"): one value of every event and
recorded command encodes to exactly the JSON in ``codec.json`` — the shapes of record format 1,
which format 2 keeps — and every command decodes back to itself. Renaming a field of an event or a
command in ``rules/actions.py`` or ``service/events.py`` must fail here, not change the record.

To see what changed after an intended change of the format: ``pytest tests/golden/test_codec.py``
prints the first differing value; the file is edited by hand, never regenerated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

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
    MatchEnd,
    MatchEnded,
    OpenerChosen,
    Passed,
    Play,
    Played,
    Resign,
    RoundDealt,
    RoundEnd,
    RoundEnded,
    TransferReason,
    Transferred,
)
from spectacular_bid.rules.notation import parse_place, parse_tile
from spectacular_bid.rules.seats import BySeat, Seat
from spectacular_bid.service.codec import clock_json, command_json, event_json, parse_command
from spectacular_bid.service.commands import (
    PressedReveal,
    PressedStart,
    RecordedCommand,
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

GOLDEN = Path(__file__).with_name("codec.json")
FIRST, SECOND = Seat.FIRST, Seat.SECOND


def tiles(text: str) -> tuple[Any, ...]:
    return tuple(parse_tile(t) for t in text.split())


DECK = tiles(
    "0-0 0-1 0-2 0-3 0-4 0-5 0-6 1-1 1-2 1-3 1-4 1-5 1-6 2-2 "
    "2-3 2-4 2-5 2-6 3-3 3-4 3-5 3-6 4-4 4-5 4-6 5-5 5-6 6-6"
)
EVENTS: dict[str, MatchEvent] = {
    "round_dealt": RoundDealt(2, BySeat(DECK[:7], None), None, 14),
    "auction_opened": AuctionOpened(SECOND),
    "opener_chosen": OpenerChosen(FIRST, parse_tile("6-6")),
    "declined": Declined(FIRST, True),
    "bid_made": BidMade(SECOND, 20, 5),
    "bid_accepted": BidAccepted(FIRST, SECOND, 20, 5, False),
    "transferred": Transferred(SECOND, FIRST, 15, TransferReason.AWARD, BySeat(165, 135)),
    "played": Played(FIRST, parse_tile("1-1"), parse_place("1-4:smaller"), 6, 0),
    "played_opening": Played(FIRST, parse_tile("1-4"), None, 5, 5),
    "drew": Drew(SECOND, None, 13),
    "passed": Passed(SECOND),
    "round_ended": RoundEnded(
        3, RoundEnd.BLOCK, BySeat(tiles("0-1 2-2"), tiles("6-6")), BySeat(5, 12), None
    ),
    "match_ended": MatchEnded(FIRST, MatchEnd.TIME),
    "seat_taken": SeatTaken(SECOND, "Bo"),
    "ready": Ready(FIRST),
    "revealed": Revealed(SECOND),
    "deck_committed": DeckCommitted(1, "ab" * 32),
    "deck_revealed": DeckRevealed(1, "ab" * 32, "0f" * 16, DECK),
}
COMMANDS: dict[str, RecordedCommand] = {
    "play": Play(SECOND, parse_tile("4-4"), parse_place("1-4:larger")),
    "play_opening": Play(FIRST, parse_tile("6-6"), None),
    "draw": Draw(FIRST),
    "bid": Bid(SECOND, 25),
    "accept": Accept(FIRST),
    "decline": Decline(SECOND),
    "resign": Resign(FIRST),
    "flag": Flag(SECOND),
    "abort": Abort(AbortReason.TIMING_FAILURE),
    "abort_join": Abort(AbortReason.JOIN_TIMEOUT),
    "deal": SaltedDeal(DECK, "0f" * 16),
    "join": TookSeat(SECOND),
    "start": PressedStart(FIRST),
    "reveal": PressedReveal(SECOND),
}
CLOCK = ClockReading(1_000, SECOND, BySeat(120_000, 97_500), 4_000, 111_500)


def golden() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(GOLDEN.read_text())
    return loaded


def test_every_event_and_command_type_is_pinned() -> None:
    """A new event or command type needs its golden line too."""
    data = golden()
    assert sorted(data["events"]) == sorted(EVENTS)
    assert sorted(data["commands"]) == sorted(COMMANDS)
    encoded_types = {event_json(e)["type"] for e in EVENTS.values()}
    assert len(encoded_types) == len(EVENTS) - 1  # two samples of `played`


@pytest.mark.parametrize("name", sorted(EVENTS))
def test_event_encodes_to_its_golden_json(name: str) -> None:
    assert event_json(EVENTS[name]) == golden()["events"][name]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_command_encodes_to_its_golden_json_and_back(name: str) -> None:
    encoded = command_json(COMMANDS[name])
    assert encoded == golden()["commands"][name]
    assert parse_command(encoded) == COMMANDS[name]


def test_clock_reading_encodes_to_its_golden_json() -> None:
    assert clock_json(CLOCK) == golden()["clock"]
