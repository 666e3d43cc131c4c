"""Golden playthroughs: a whole seeded match as a line-based text record (the third kind of engine
tests).

:func:`record` plays a complete match with ``random.Random(seed)`` — a shuffle for every deal, a
uniform pick among ``legal_actions()`` for every decision, no resignation — and writes its
transcript; :func:`replay` reads the inputs back out of a transcript, applies them to a fresh
:class:`Match` and writes the transcript again. A golden file passes when both give it back
byte for byte, so any change of the engine's behaviour shows up as a diff.

The format, one item a line (UTF-8)::

    # Spectacular Bid golden playthrough …            comments: regenerated, never parsed
    seed 7                                           the seed the match was recorded with
    deal 3-5 0-0 … (28 tiles)                        an input: positions 0–6 are the first
                                                     seat's hand, 7–13 the second's, 14–27 the
                                                     boneyard in draw order (R2.1)
      dealt round 1: first [0|0] …; second …; boneyard 14      the events it caused, indented
      opener first with [6|6]
      balances 150–150                               the balances after every input
    first play 6-6                                   a seat's input, Appendix A notation
      played first 6-6: sum 12, award 0
      board Tiles: [6|6]. Spinners: [6|6]. …         Appendix A description after a placement
      balances 150–150
    second play 3-6@6-6:lineB
    second draw / first bid 20 / second accept / first decline / first resign
    flag first / abort timing_failure                the service's commands
    result first wins by zero_balance (300–0)

Only the ``seed`` line and the unindented input lines are parsed; indented lines, comments and
the ``result`` line are outputs that :func:`replay` regenerates. An input the engine refuses is
written as ``  rejected: <message>`` and ends the replay.

Regenerate the golden files under ``tests/golden/`` after an intended change of behaviour with
``SPECBID_UPDATE_GOLDEN=1 .venv/bin/pytest tests/rules/test_golden.py`` and review the diff.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from spectacular_bid.rules.actions import (
    Abort,
    AbortReason,
    Accept,
    Action,
    AuctionOpened,
    Bid,
    BidAccepted,
    BidMade,
    Deal,
    Decline,
    Declined,
    Draw,
    Drew,
    Event,
    Flag,
    OpenerChosen,
    Passed,
    Play,
    Played,
    Resign,
    RoundDealt,
    RoundEnd,
    RoundEnded,
    Transferred,
)
from spectacular_bid.rules.errors import NotationError, RulesError
from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.notation import parse_placement, parse_tile, placement_text, tile_text
from spectacular_bid.rules.seats import SEATS, BySeat, Seat
from spectacular_bid.rules.tiles import TILES, Tile

HEADER: Final = (
    "# Spectacular Bid golden playthrough (format and regeneration: tests/rules/transcript.py)."
)
INDENT: Final = "  "
MAX_ACTIONS: Final = 20_000
_SEATS_BY_NAME: Final = {str(seat): seat for seat in SEATS}
_ABORTS_BY_NAME: Final = {reason.value: reason for reason in AbortReason}


# -- formatting -------------------------------------------------------------------------------


def _tiles(tiles: tuple[Tile, ...] | list[Tile]) -> str:
    return " ".join(str(t) for t in tiles) or "none"


def _pair(values: BySeat[int] | list[int]) -> str:
    first, second = values
    return f"{first}–{second}"


def format_action(action: Action) -> str:
    """An input line: ``deal …``, ``first play 1-1@1-4:smaller``, ``second draw``…"""
    if isinstance(action, Deal):
        return "deal " + " ".join(tile_text(t) for t in action.deck)
    if isinstance(action, Play):
        return f"{action.seat} play {placement_text(action.tile, action.at)}"
    if isinstance(action, Bid):
        return f"{action.seat} bid {action.amount}"
    if isinstance(action, Draw):
        return f"{action.seat} draw"
    if isinstance(action, Accept):
        return f"{action.seat} accept"
    if isinstance(action, Decline):
        return f"{action.seat} decline"
    if isinstance(action, Resign):
        return f"{action.seat} resign"
    if isinstance(action, Flag):
        return f"flag {action.seat}"
    return f"abort {action.reason.value}"


def _forced(forced: bool) -> str:
    return " (forced)" if forced else ""


def format_event(event: Event) -> str:
    """One readable line per event (without the indent)."""
    if isinstance(event, RoundDealt):
        hands = event.hands
        assert hands.first is not None
        assert hands.second is not None
        return (
            f"dealt round {event.number}: first {_tiles(hands.first)}; "
            f"second {_tiles(hands.second)}; boneyard {event.boneyard_count}"
        )
    if isinstance(event, AuctionOpened):
        return f"auction opened, jockey {event.jockey}"
    if isinstance(event, OpenerChosen):
        tile = str(event.tile) if event.tile is not None else "any tile"
        return f"opener {event.seat} with {tile}"
    if isinstance(event, Declined):
        return f"declined {event.seat}{_forced(event.forced)}"
    if isinstance(event, BidMade):
        return f"bid {event.seat} {event.amount} (cost {event.cost})"
    if isinstance(event, BidAccepted):
        return (
            f"accepted {event.seat}: {event.bidder}'s bid {event.amount}, "
            f"payment {event.payment}{_forced(event.forced)}"
        )
    if isinstance(event, Transferred):
        return (
            f"transferred {event.amount} {event.payer}→{event.payee} {event.reason.value} "
            f"({_pair(event.balances)})"
        )
    if isinstance(event, Played):
        move = placement_text(event.tile, event.at)
        return f"played {event.seat} {move}: sum {event.ends_sum}, award {event.award}"
    if isinstance(event, Drew):
        return f"drew {event.seat} {event.tile}, boneyard {event.boneyard_count}"
    if isinstance(event, Passed):
        return f"passed {event.seat}"
    if isinstance(event, RoundEnded):
        jockey = str(event.jockey) if event.jockey is not None else "none"
        return (
            f"round {event.number} ended by {event.reason.value}: "
            f"first {_tiles(event.hands.first)} ({event.pip_totals.first} pips); "
            f"second {_tiles(event.hands.second)} ({event.pip_totals.second} pips); "
            f"jockey {jockey}"
        )
    winner = f"{event.winner} wins" if event.winner is not None else "aborted"
    return f"match ended: {winner} by {event.reason.value}"


def format_result(match: Match) -> str:
    result = match.result
    if result is None:
        return "result unfinished"
    winner = f"{result.winner} wins" if result.winner is not None else "no result"
    return f"result {winner} by {result.reason.value} ({_pair(match.balances)})"


# -- parsing ----------------------------------------------------------------------------------


def _seat(name: str, line: str) -> Seat:
    try:
        return _SEATS_BY_NAME[name]
    except KeyError:
        raise NotationError(f"invalid seat {name!r} in {line!r}") from None


def parse_action(line: str) -> Action:
    """Parse one input line written by :func:`format_action`."""
    words = line.split()
    if not words:
        raise NotationError(f"empty command: {line!r}")
    head, args = words[0], words[1:]
    if head == "deal":
        return Deal(tuple(parse_tile(t) for t in args))
    if head == "flag" and len(args) == 1:
        return Flag(_seat(args[0], line))
    if head == "abort" and len(args) == 1 and args[0] in _ABORTS_BY_NAME:
        return Abort(_ABORTS_BY_NAME[args[0]])
    seat = _seat(head, line)
    verb = args[0] if args else ""
    if verb == "play" and len(args) == 2:
        tile, at = parse_placement(args[1])
        return Play(seat, tile, at)
    if verb == "bid" and len(args) == 2 and args[1].isdigit():
        return Bid(seat, int(args[1]))
    simple: dict[str, Callable[[Seat], Action]] = {
        "draw": Draw,
        "accept": Accept,
        "decline": Decline,
        "resign": Resign,
    }
    if verb in simple and len(args) == 1:
        return simple[verb](seat)
    raise NotationError(f"invalid command: {line!r}")


@dataclass
class Inputs:
    seed: int
    actions: list[Action] = field(default_factory=list)


def parse_inputs(text: str) -> Inputs:
    """The seed and the input commands of a transcript, in order."""
    seed: int | None = None
    actions: list[Action] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line or line.startswith(("#", INDENT, "result ")):
            continue
        if line.startswith("seed "):
            if seed is not None or not line[5:].isdigit():
                raise NotationError(f"line {number}: invalid seed line: {line!r}")
            seed = int(line[5:])
            continue
        try:
            actions.append(parse_action(line))
        except NotationError as exc:
            raise NotationError(f"line {number}: {exc}") from None
    if seed is None:
        raise NotationError("the transcript has no seed line")
    return Inputs(seed, actions)


# -- playing ----------------------------------------------------------------------------------


@dataclass
class _Summary:
    rounds: int = 0
    blocks: int = 0
    dominoes: int = 0
    cut_short: int = 0
    auctions: int = 0
    raises: int = 0
    draws: int = 0
    passes: int = 0

    bids_now: int = 0
    """Bids so far in the current auction: every bid after the first is a raise (R6.2)."""

    def count(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, RoundDealt):
                self.rounds += 1
            elif isinstance(event, RoundEnded):
                self.blocks += event.reason is RoundEnd.BLOCK
                self.dominoes += event.reason is RoundEnd.DOMINO
                self.cut_short += event.reason is RoundEnd.MATCH_OVER
            elif isinstance(event, AuctionOpened):
                self.auctions += 1
                self.bids_now = 0
            elif isinstance(event, BidMade):
                self.raises += self.bids_now > 0
                self.bids_now += 1
            elif isinstance(event, Drew):
                self.draws += 1
            elif isinstance(event, Passed):
                self.passes += 1

    def __str__(self) -> str:
        return (
            f"# {self.rounds} rounds ({self.dominoes} by domino, {self.blocks} blocked, "
            f"{self.cut_short} cut short by the match's end), "
            f"{self.auctions} auctions, {self.raises} raises, "
            f"{self.draws} draws, {self.passes} passes."
        )


def _write(seed: int, choose: Callable[[Match], Action | None]) -> str:
    """Play a match from a fresh start, asking ``choose`` for each input (None: stop), and write
    its transcript."""
    match = Match()
    summary = _Summary()
    body: list[str] = []
    for _ in range(MAX_ACTIONS):
        action = choose(match)
        if action is None:
            break
        body.append(format_action(action))
        try:
            events = match.apply(action)
        except RulesError as exc:
            body.append(f"{INDENT}rejected: {exc}")
            break
        summary.count(events)
        for event in events:
            body.append(INDENT + format_event(event))
            if isinstance(event, Played):
                assert match.round is not None
                body.append(f"{INDENT}board {match.round.board.describe()}")
        body.append(f"{INDENT}balances {_pair(match.balances)}")
    body.append(format_result(match))
    return "\n".join([HEADER, str(summary), f"seed {seed}", *body]) + "\n"


def record(seed: int) -> str:
    """Play a complete match with ``random.Random(seed)`` and return its transcript: a fresh
    shuffle for each deal, a uniform choice among the legal actions for each decision."""
    rng = random.Random(seed)
    deck = list(TILES)

    def choose(match: Match) -> Action | None:
        if match.is_over:
            return None
        if match.phase is Phase.AWAITING_DEAL:
            rng.shuffle(deck)
            return Deal(tuple(deck))
        return rng.choice(match.legal_actions())

    return _write(seed, choose)


def replay(text: str) -> str:
    """Re-apply the inputs of a transcript to a fresh match and return the regenerated
    transcript; equal to ``text`` exactly when the engine still behaves as recorded."""
    inputs = parse_inputs(text)
    pending = iter(inputs.actions)
    return _write(inputs.seed, lambda _match: next(pending, None))
