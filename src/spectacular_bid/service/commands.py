"""The one vocabulary of what reaches a match, from the wire to the machine (PROTOCOL.md "Client →
server").

A player's command is an engine action without its seat — the machine decides which seat acts —
plus the service's own: Start/Continue (D3) and Reveal (R7.5). ``Resign`` is both (R5.2). The
machine's other inputs are the join of a second player and the timers the service arms.

What the machine *records* for a version is a :data:`RecordedCommand`: an engine action with its
seat, a deal with the salt of its commitment, or a service command with the seat that gave it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from spectacular_bid.rules.actions import (
    Abort,
    Accept,
    Bid,
    Decline,
    Draw,
    Flag,
    Play,
    Resign,
    SeatAction,
)
from spectacular_bid.rules.board import Place
from spectacular_bid.rules.seats import Seat
from spectacular_bid.rules.tiles import Tile
from spectacular_bid.service.ports import Player

# -- a player's commands ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayTile:
    """Lay ``tile`` at ``at``, or open with it when ``at`` is None (R2.5, R3.1)."""

    tile: Tile
    at: Place | None = None

    def action(self, seat: Seat) -> SeatAction:
        return Play(seat, self.tile, self.at)


@dataclass(frozen=True, slots=True)
class DrawTile:
    """Draw one tile (R4.1, D1)."""

    def action(self, seat: Seat) -> SeatAction:
        return Draw(seat)


@dataclass(frozen=True, slots=True)
class PlaceBid:
    """Bid or raise by ``amount`` points (R6.1, R6.2)."""

    amount: int

    def action(self, seat: Seat) -> SeatAction:
        return Bid(seat, self.amount)


@dataclass(frozen=True, slots=True)
class AcceptBid:
    """Accept the standing bid (R6.2, R6.3)."""

    def action(self, seat: Seat) -> SeatAction:
        return Accept(seat)


@dataclass(frozen=True, slots=True)
class DeclineBid:
    """The non-jockey's first decision: the jockey opens for free (R6.1)."""

    def action(self, seat: Seat) -> SeatAction:
        return Decline(seat)


@dataclass(frozen=True, slots=True)
class ResignMatch:
    """Give up the match; the opponent wins (R5.2). Allowed at any time, hand-over included."""

    def action(self, seat: Seat) -> SeatAction:
        return Resign(seat)


@dataclass(frozen=True, slots=True)
class Start:
    """Start (the first round) or Continue (after a settlement), D3. A press, not a move: it is
    never refused as stale, and a press already in effect changes nothing (PROTOCOL.md "Client →
    server")."""


@dataclass(frozen=True, slots=True)
class Reveal:
    """Shared device: the next player shows their tiles and their clock starts (R7.5). A press,
    like :class:`Start`."""


Move = PlayTile | DrawTile | PlaceBid | AcceptBid | DeclineBid | ResignMatch
"""A player's command that becomes an engine action of the acting seat."""
PlayerCommand = Move | Start | Reveal


def move_of(action: SeatAction) -> Move:
    """The player's command that gives ``action`` for its seat (a recorded move, replayed)."""
    if isinstance(action, Play):
        return PlayTile(action.tile, action.at)
    if isinstance(action, Bid):
        return PlaceBid(action.amount)
    simple: dict[type, Move] = {
        Draw: DrawTile(),
        Accept: AcceptBid(),
        Decline: DeclineBid(),
        Resign: ResignMatch(),
    }
    return simple[type(action)]


@dataclass(frozen=True, slots=True)
class DealSeed:
    """A deck and the salt of its commitment, drawn by the service (R2.1): the machine
    deals from it only when the command it comes with starts a round."""

    deck: tuple[Tile, ...]
    salt: str


# -- the machine's inputs ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Submit:
    """A player's command, made against ``version``, received by the server at ``received_ms``
    (the time that counts, R7.7). ``seat`` names the acting seat on a shared device."""

    player_id: str | None
    command: PlayerCommand
    version: int
    received_ms: int
    seat: Seat | None = None
    deal: DealSeed | None = None
    """The deck a Start that completes the presses deals from. Without one, such a Start gets
    :class:`NeedsDeck` back and is sent again with a deck (decks are drawn only for deals)."""


@dataclass(frozen=True, slots=True)
class Join:
    """A second player takes the free seat (D3)."""

    player: Player
    timeout_ms: int | None = None
    """When the service's join timer ends the match (D3: armed from who is there, never before
    the machine's own lower bound): a join at that time or later is too late. None while the
    timer is held, the creator being there, and in a replay (a recorded join was in time)."""


@dataclass(frozen=True, slots=True)
class FlagDue:
    """The flag timer ran: flag the running seat if its deadline has passed (R7.7, D6)."""


@dataclass(frozen=True, slots=True)
class GraceDue:
    """The grace timer ran: deal the round if nobody pressed in time (D3)."""

    deal: DealSeed | None = None


@dataclass(frozen=True, slots=True)
class JoinDue:
    """The join timer ran: abort a match still waiting for its second player (D3)."""


@dataclass(frozen=True, slots=True)
class AbandonDue:
    """Nobody has had the shared-device match open for the abandon timeout (D8): abort it. Who
    is there is the service's knowledge, not the machine's; the machine checks only that the
    match is a live shared one."""


@dataclass(frozen=True, slots=True)
class LoopStalled:
    """The event loop stalled while this match's clock ran (D5): abort it unrated."""


@dataclass(frozen=True, slots=True)
class Restarted:
    """The server stopped while the match was unfinished (D5): abort it unrated, charging nobody
    for the time the server was down. ``received_ms`` is the last time the match was measured."""

    received_ms: int


@dataclass(frozen=True, slots=True)
class NeedsDeck:
    """The machine's answer to an input that would deal but came without a deck: nothing
    changed; send the same input again with a :class:`DealSeed`."""


@dataclass(frozen=True, slots=True)
class HandingOver:
    """This server hands the match to a peer (PROTOCOL.md "Several servers on one database"): its
    clocks stand from now, with the running decision's delay and bank as they are, until the peer
    resumes it. Recorded as it is, so the record shows where the match left its owner."""


@dataclass(frozen=True, slots=True)
class Resumed:
    """The peer that took the match over resumes its clocks (R7.9): the
    ``paused_ms`` it stood, measured by the wall clocks of both servers, is charged to nobody and
    is recorded as the match's clock audit. Recorded as it is."""

    paused_ms: int


Input = (
    Submit
    | Join
    | FlagDue
    | GraceDue
    | JoinDue
    | AbandonDue
    | LoopStalled
    | Restarted
    | HandingOver
    | Resumed
)


def with_deck(command: Input, seed: DealSeed) -> Input:
    """``command`` again, now with the deck the machine asked for (:class:`NeedsDeck`)."""
    if isinstance(command, Submit):
        return replace(command, deal=seed)
    if isinstance(command, GraceDue):
        return GraceDue(seed)
    raise ValueError(f"{command!r} never deals")


# -- what a version records ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SaltedDeal:
    """A deal as recorded: its deck and the salt of its commitment (D4)."""

    deck: tuple[Tile, ...]
    salt: str


@dataclass(frozen=True, slots=True)
class TookSeat:
    seat: Seat


@dataclass(frozen=True, slots=True)
class PressedStart:
    seat: Seat


@dataclass(frozen=True, slots=True)
class PressedReveal:
    seat: Seat


RecordedCommand = (
    SeatAction
    | Flag
    | Abort
    | SaltedDeal
    | TookSeat
    | PressedStart
    | PressedReveal
    | HandingOver
    | Resumed
)
