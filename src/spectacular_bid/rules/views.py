"""What one seat, or a spectator, may see — the only place hidden tiles are filtered (R2.2, D4).

A seat sees its own hand, the board, both balances, counts of the other hand and the boneyard,
and what it may do now. A spectator sees no hand. When a round ends both hands become public
(D4); the boneyard's order never appears in a view (the round's deck, revealed when the round
ends, and the match record publish it, D4). Events pass through :func:`event_for` on their way
to each viewer for the same reason.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from spectacular_bid.rules.actions import (
    Accept,
    Bid,
    Decline,
    Draw,
    Drew,
    Event,
    MatchEnded,
    OpenerChosen,
    Play,
    RoundDealt,
    RoundEnd,
)
from spectacular_bid.rules.auction import bid_cost
from spectacular_bid.rules.board import Board, Joint, Place
from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.seats import BySeat, Seat
from spectacular_bid.rules.tiles import Tile


@dataclass(frozen=True, slots=True)
class BoardView:
    tiles: tuple[Tile, ...]
    """In placement order; the last one is the last placed."""
    spinner: Tile | None
    joints: tuple[Joint, ...]
    open_places: tuple[Place, ...]
    scoring_ends: tuple[tuple[Tile, int], ...]
    ends_sum: int
    award: int


@dataclass(frozen=True, slots=True)
class PlayOption:
    """A tile the viewer may lay and where; ``places`` is empty for an opening tile."""

    tile: Tile
    places: tuple[Place, ...]


@dataclass(frozen=True, slots=True)
class BidOption:
    amount: int
    cost: int
    """What the bid costs if accepted, the jockey's discount applied (R6.4)."""
    loses_match: bool = False
    """R6.5: if accepted, the bid's payment is the bidder's whole balance, which loses the match at
    once (R1.5). Set on the bids the viewer may make, so that a client can warn before sending."""


@dataclass(frozen=True, slots=True)
class LegalView:
    """Everything the viewer may do now; a client offers exactly this (R8.1)."""

    plays: tuple[PlayOption, ...] = ()
    opening: bool = False
    can_draw: bool = False
    can_decline: bool = False
    can_accept: bool = False
    bids: tuple[BidOption, ...] = ()


@dataclass(frozen=True, slots=True)
class AuctionView:
    jockey: Seat
    bids: tuple[BidOption, ...]
    bidders: tuple[Seat, ...]
    """Who made each bid in ``bids``, in order (they alternate)."""


@dataclass(frozen=True, slots=True)
class RoundResultView:
    """The end of the last round with both hands public (D4)."""

    number: int
    reason: RoundEnd | None
    hands: BySeat[tuple[Tile, ...]]
    pip_totals: BySeat[int]


@dataclass(frozen=True, slots=True)
class MatchView:
    viewer: Seat | None
    """None for a spectator."""
    phase: Phase
    round_number: int
    to_act: Seat | None
    decision: int
    balances: BySeat[int]
    jockey: Seat | None
    hand: tuple[Tile, ...] | None
    """The viewer's own hand; None for a spectator or before the first deal."""
    must_play: Tile | None
    """The viewer's drawn tile that must be played at once (R4.2)."""
    hand_counts: BySeat[int]
    boneyard_count: int
    board: BoardView | None
    auction: AuctionView | None
    opening_tile: Tile | None
    """The tile the viewer must open with (R2.3); only the opener is told."""
    legal: LegalView | None
    """What the viewer may do now; None when it is not the viewer's decision."""
    last_round: RoundResultView | None
    """Set between rounds and after the match: the finished round with both hands."""
    result: MatchEnded | None


def board_view(match: Match) -> BoardView | None:
    rnd = match.round
    if rnd is None:
        return None
    return board_view_of(rnd.board)


def board_view_of(board: Board) -> BoardView:
    """What a board shows: also the rules' worked positions (Appendix B), built from notation."""
    return BoardView(
        tiles=tuple(board.tiles),
        spinner=board.spinner,
        joints=tuple(board.joints()),
        open_places=tuple(board.open_places()),
        scoring_ends=tuple(board.scoring_ends()),
        ends_sum=board.ends_sum,
        award=board.award,
    )


def legal_view(match: Match, seat: Seat) -> LegalView | None:
    if match.to_act != seat:
        return None
    actions = match.legal_actions(seat)
    places: dict[Tile, list[Place]] = {}
    opening = False
    bids: list[BidOption] = []
    can_draw = can_decline = can_accept = False
    auction = match.auction
    for action in actions:
        if isinstance(action, Play):
            entry = places.setdefault(action.tile, [])
            if action.at is None:
                opening = True
            else:
                entry.append(action.at)
        elif isinstance(action, Draw):
            can_draw = True
        elif isinstance(action, Decline):
            can_decline = True
        elif isinstance(action, Accept):
            can_accept = True
        elif isinstance(action, Bid):
            assert auction is not None
            cost = auction.cost(seat, action.amount)
            bids.append(BidOption(action.amount, cost, cost == match.balances[seat]))
    return LegalView(
        plays=tuple(PlayOption(t, tuple(sorted(p))) for t, p in sorted(places.items())),
        opening=opening,
        can_draw=can_draw,
        can_decline=can_decline,
        can_accept=can_accept,
        bids=tuple(bids),
    )


def _last_round(match: Match) -> RoundResultView | None:
    rnd = match.round
    if rnd is None or match.phase not in (Phase.AWAITING_DEAL, Phase.OVER):
        return None
    hands = BySeat(tuple(rnd.hand(Seat.FIRST)), tuple(rnd.hand(Seat.SECOND)))
    totals = BySeat(rnd.pip_total(Seat.FIRST), rnd.pip_total(Seat.SECOND))
    return RoundResultView(rnd.number, match.round_end, hands, totals)


@dataclass(frozen=True, slots=True)
class PrivateView:
    """The part of a :class:`MatchView` that differs between viewers: everything else is the
    same for both seats and every spectator, so a server can build that part once."""

    viewer: Seat | None
    hand: tuple[Tile, ...] | None
    must_play: Tile | None
    opening_tile: Tile | None
    legal: LegalView | None


PRIVATE_FIELDS = frozenset(PrivateView.__slots__)


def private_view(match: Match, viewer: Seat | None) -> PrivateView:
    """What only ``viewer`` may see: its hand, its drawn tile, its forced opening tile, and its
    legal actions. A spectator (None) gets nothing here."""
    rnd = match.round
    in_round = rnd is not None and match.phase not in (Phase.AWAITING_DEAL, Phase.OVER)
    if viewer is None or rnd is None or not in_round:
        return PrivateView(viewer, None, None, None, None)
    to_act = match.to_act == viewer
    return PrivateView(
        viewer=viewer,
        hand=tuple(rnd.hand(viewer)),
        must_play=rnd.must_play if to_act else None,
        opening_tile=match.opening_tile if to_act else None,
        legal=legal_view(match, viewer),
    )


def view_for(match: Match, viewer: Seat | None) -> MatchView:
    """The view of ``viewer`` (a seat, or None for a spectator)."""
    rnd = match.round
    auction = match.auction
    private = private_view(match, viewer)
    return MatchView(
        viewer=viewer,
        phase=match.phase,
        round_number=match.round_number,
        to_act=match.to_act,
        decision=match.decision,
        balances=match.balance,
        jockey=match.jockey,
        hand=private.hand,
        must_play=private.must_play,
        hand_counts=BySeat(
            rnd.hand_count(Seat.FIRST) if rnd is not None else 0,
            rnd.hand_count(Seat.SECOND) if rnd is not None else 0,
        ),
        boneyard_count=rnd.boneyard_count if rnd is not None else 0,
        board=board_view(match),
        auction=(
            AuctionView(
                jockey=auction.jockey,
                bids=tuple(
                    BidOption(a, bid_cost(a, by_jockey=s == auction.jockey))
                    for s, a in auction.bids
                ),
                bidders=tuple(s for s, _ in auction.bids),
            )
            if auction is not None
            else None
        ),
        opening_tile=private.opening_tile,
        legal=private.legal,
        last_round=_last_round(match),
        result=match.result,
    )


def event_for(viewer: Seat | None, event: Event) -> Event:
    """``event`` as ``viewer`` may see it: other hands, other draws and the boneyard removed."""
    if isinstance(event, RoundDealt):
        return replace(
            event,
            hands=BySeat(
                event.hands.first if viewer is Seat.FIRST else None,
                event.hands.second if viewer is Seat.SECOND else None,
            ),
            boneyard=None,
        )
    if isinstance(event, Drew) and event.seat != viewer and event.tile is not None:
        return replace(event, tile=None)
    if isinstance(event, OpenerChosen) and event.seat != viewer and event.tile is not None:
        return replace(event, tile=None)
    return event
