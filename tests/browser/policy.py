"""The seeded choice policy the browser players follow, and its check against the rules engine.

A player's options come from the server's ``legal`` object (the client offers exactly those,
R8.1); they are put in one canonical order and one is picked with ``random.Random``. The
same order built from :meth:`Match.legal_actions` lets :func:`simulate` predict, without a browser,
the match that the fixed deck (:data:`~.server.DECK_SEED`) and a move seed give — so the test
can be sure its seeds cover what a whole match must show (placements, draws, an auction with a
raise, a blocked round) and that it finishes quickly.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from spectacular_bid.rules.actions import (
    Accept,
    AuctionOpened,
    Bid,
    BidMade,
    Deal,
    Decline,
    Draw,
    Drew,
    Play,
    Played,
    RoundDealt,
    RoundEnd,
    RoundEnded,
)
from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.notation import place_text, tile_text
from spectacular_bid.service.decks import seeded_decks

Choice = tuple[str, str, str]
"""(kind, argument, place): ``("play", "1-4", "4-4:lineA")``, ``("play", "6-6", "")`` for an
opening, ``("draw", "", "")``, ``("decline", "", "")``, ``("accept", "", "")``,
``("bid", "0020", "")`` (the amount zero-padded, so the order is numeric)."""


Policy = Callable[[list[Choice], random.Random], Choice]
"""How a player picks one of its options (in :func:`choices`' order)."""


def uniform(options: list[Choice], rng: random.Random) -> Choice:
    return rng.choice(options)


def all_in_or_uniform(options: list[Choice], rng: random.Random) -> Choice:
    """The highest bid (the whole balance, R6.5) whenever a bid is legal, else any option: a
    match against a player who may accept it ends soon."""
    bids = [option for option in options if option[0] == "bid"]
    return bids[-1] if bids else rng.choice(options)


def branch_first(options: list[Choice], rng: random.Random) -> Choice:
    """Mostly a tile on a branch of the spinner when one may go there (R3.2), else any option:
    the board grows in all four directions, and its lines turn."""
    branches = [option for option in options if option[0] == "play" and "branch" in option[2]]
    if branches and rng.random() < 0.9:
        return rng.choice(branches)
    return rng.choice(options)


def choices(legal: dict[str, Any]) -> list[Choice]:
    """Every option of a wire ``legal`` object, in canonical order."""
    options: list[Choice] = []
    for play in legal["plays"]:
        if legal["opening"] or not play["places"]:
            options.append(("play", play["tile"], ""))
        else:
            options.extend(("play", play["tile"], place) for place in play["places"])
    if legal["can_draw"]:
        options.append(("draw", "", ""))
    if legal["can_decline"]:
        options.append(("decline", "", ""))
    if legal["can_accept"]:
        options.append(("accept", "", ""))
    options.extend(("bid", f"{bid['amount']:04d}", "") for bid in legal["bids"])
    return sorted(options)


def _engine_choice(action: object) -> Choice:
    if isinstance(action, Play):
        return ("play", tile_text(action.tile), "" if action.at is None else place_text(action.at))
    if isinstance(action, Draw):
        return ("draw", "", "")
    if isinstance(action, Decline):
        return ("decline", "", "")
    if isinstance(action, Accept):
        return ("accept", "", "")
    if isinstance(action, Bid):
        return ("bid", f"{action.amount:04d}", "")
    raise AssertionError(f"not a seat's choice: {action!r}")


@dataclass
class Forecast:
    """What a seeded match contains, counted from the engine's events."""

    decisions: int = 0
    rounds: int = 0
    placements: int = 0
    draws: int = 0
    auctions: int = 0
    raises: int = 0
    blocked_rounds: int = 0
    balances: dict[str, int] = field(default_factory=dict)


def simulate(
    deck_seed: int,
    move_seed: int,
    max_decisions: int = 2_000,
    policies: tuple[Policy, Policy] = (uniform, uniform),
) -> Forecast:
    """Play the policies' match through the engine alone, from the server's fixed decks: the
    first seat's policy and the second's, drawing from one generator seeded ``move_seed``."""
    decks = seeded_decks(deck_seed)
    rng = random.Random(move_seed)
    match = Match()
    forecast = Forecast()
    bids_in_auction = 0
    while not match.is_over and forecast.decisions < max_decisions:
        if match.phase is Phase.AWAITING_DEAL:
            events = match.apply(Deal(decks()))
        else:
            by_choice = {_engine_choice(a): a for a in match.legal_actions()}
            assert match.to_act is not None
            policy = policies[match.to_act]
            events = match.apply(by_choice[policy(sorted(by_choice), rng)])
            forecast.decisions += 1
        for event in events:
            if isinstance(event, RoundDealt):
                forecast.rounds += 1
            elif isinstance(event, Played):
                forecast.placements += 1
            elif isinstance(event, Drew):
                forecast.draws += 1
            elif isinstance(event, AuctionOpened):
                forecast.auctions += 1
                bids_in_auction = 0
            elif isinstance(event, BidMade):
                forecast.raises += bids_in_auction > 0
                bids_in_auction += 1
            elif isinstance(event, RoundEnded) and event.reason is RoundEnd.BLOCK:
                forecast.blocked_rounds += 1
    forecast.balances = {"first": match.balances[0], "second": match.balances[1]}
    return forecast
