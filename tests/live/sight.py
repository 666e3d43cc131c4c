"""What a receiver may see (R2.2, D4), checked on every frame it received.

The referee's truth is each round's deck in dealt order (the first seat's seven, the second's
seven, then the boneyard in draw order), taken from the round's ``deck_revealed`` event once its
commitment from the deal checks out. :class:`SightCheck` replays one receiver's frames in order
and fails on the first tile that receiver could not see at that moment: at any time a seat sees
its own dealt tiles, the tiles it drew, and the tiles on the board; a spectator only the board;
everyone, every tile of a round once that round has ended (its ``round_ended`` event, or a
``deck_revealed``/``deck_reveal``/``last_round`` naming an ended round).

A tile is any string that is a tile (``"1-4"``) or a place (``"1-4:smaller"``) as a whole, and
any ``[a|b]`` written inside prose (error messages).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Any

from spectacular_bid.rules.notation import tile_text
from spectacular_bid.service.decks import seeded_decks

Msg = dict[str, Any]
SEATS = ("first", "second")
HAND_SIZE = 7
DEALT = 2 * HAND_SIZE
DECK_SIZE = 28

_TILE_OR_PLACE = re.compile(r"([0-9])-([0-9])(?::[A-Za-z]+)?")
_TILE_IN_PROSE = re.compile(r"\[([0-9])\|([0-9])\]")


def _tile(a: str, b: str) -> str:
    low, high = sorted((a, b))
    return f"{low}-{high}"


def tiles_named(value: object) -> set[str]:
    """Every tile a JSON value names, wherever it appears in it."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if match := _TILE_OR_PLACE.fullmatch(item):
                found.add(_tile(match[1], match[2]))
            found.update(_tile(m[1], m[2]) for m in _TILE_IN_PROSE.finditer(item))
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def revealed_decks(frames: Iterable[Msg], seed: int) -> dict[int, list[str]]:
    """Each finished round's deck from a receiver's frames, checked against the commitment
    published at its deal and against the fixed-deck seed the server was started with."""
    commitments: dict[int, str] = {}
    decks: dict[int, list[str]] = {}
    for frame in frames:
        for event in frame.get("events", ()):
            if event["type"] == "deck_committed":
                commitments[event["round"]] = event["commitment"]
            elif event["type"] == "deck_revealed":
                number, deck = event["round"], event["deck"]
                text = f"{event['salt']}:{' '.join(deck)}"
                assert hashlib.sha256(text.encode()).hexdigest() == commitments[number], event
                assert event["commitment"] == commitments[number], event
                decks[number] = deck
    expected = seeded_decks(seed)
    for number in range(1, len(decks) + 1):
        assert decks[number] == [tile_text(t) for t in expected()], f"round {number}"
    return decks


class SightCheck:
    """One receiver (``"first"``, ``"second"`` or None for a spectator) replaying its frames."""

    def __init__(self, receiver: str | None, decks: dict[int, list[str]]) -> None:
        self.receiver = receiver
        self.decks = decks
        self.round = 0
        self.ended: set[int] = set()
        self.held: dict[str, set[str]] = {seat: set() for seat in SEATS}
        """Every tile each seat has had this round: dealt or drawn (the referee's truth)."""
        self.played: set[str] = set()

    def visible(self) -> set[str]:
        if self.round in self.ended:
            return set(self.decks[self.round])
        own = self.held[self.receiver] if self.receiver is not None else set()
        return own | self.played

    def hand(self, seat: str) -> set[str]:
        return self.held[seat] - self.played

    def check_all(self, frames: Iterable[Msg]) -> int:
        count = 0
        for index, frame in enumerate(frames):
            try:
                self.check(frame)
            except AssertionError as exc:
                raise AssertionError(
                    f"{self.receiver or 'spectator'} frame {index}: {exc}"
                ) from exc
            count += 1
        return count

    def check(self, frame: Msg) -> None:
        if frame["type"] == "state":
            assert frame["match"]["round_number"] == self.round, "a state from the middle of play"
        for event in frame.get("events", ()):
            self._event(event)
        if "match" in frame:
            self._match(frame["match"])
            rest = {k: v for k, v in frame.items() if k not in ("events", "match")}
        else:
            rest = frame
        self._only_visible(rest, frame["type"])

    def _only_visible(self, value: object, what: str) -> None:
        hidden = tiles_named(value) - self.visible()
        assert not hidden, f"{what} names hidden tiles {sorted(hidden)}: {value}"

    def _event(self, event: Msg) -> None:
        kind = event["type"]
        if kind == "round_dealt":
            self.round = event["number"]
            deck = self.decks[self.round]
            self.held = {"first": set(deck[:HAND_SIZE]), "second": set(deck[HAND_SIZE:DEALT])}
            self.played = set()
            for seat in SEATS:
                shown = event["hands"][seat]
                if seat == self.receiver:
                    assert set(shown) == self.held[seat], event
                else:
                    assert shown is None, event
            assert event["boneyard"] is None, event
        elif kind == "drew":
            drawn = self.decks[self.round][DECK_SIZE - 1 - event["boneyard_count"]]
            self.held[event["seat"]].add(drawn)
            assert event["tile"] == (drawn if event["seat"] == self.receiver else None), event
        elif kind == "played":
            assert event["tile"] in self.hand(event["seat"]), event
            self.played.add(event["tile"])
        elif kind == "opener_chosen":
            if event["seat"] != self.receiver:
                assert event["tile"] is None, event
        elif kind == "round_ended":
            assert event["number"] == self.round, event
            for seat in SEATS:
                assert set(event["hands"][seat]) == self.hand(seat), event
            self.ended.add(self.round)
        elif kind == "deck_revealed":
            assert event["round"] in self.ended, f"the deck of a round not over: {event}"
            assert event["deck"] == self.decks[event["round"]], event
            return  # every tile of an ended round is public
        self._only_visible(event, kind)

    def _match(self, match: Msg) -> None:
        rest = dict(match)
        reveal = rest.pop("deck_reveal")
        if reveal is not None:
            assert reveal["round"] in self.ended, f"the deck of a round not over: {reveal}"
            assert reveal["deck"] == self.decks[reveal["round"]], reveal
        last_round = rest.pop("last_round")
        if last_round is not None:
            assert last_round["number"] in self.ended, f"a round not over: {last_round}"
        hand = rest["hand"]
        if self.receiver is None:
            assert hand is None, f"a spectator was sent a hand: {hand}"
            assert rest["legal"] is None, rest
            assert rest["opening_tile"] is None, rest
        elif hand is not None:
            assert set(hand) == self.hand(self.receiver), f"hand {hand}"
        self._only_visible(rest, "match")
