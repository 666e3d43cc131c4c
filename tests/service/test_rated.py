"""The rated policy (service/rated.py, PROTOCOL.md "Players: profiles, ratings and archives"): rated
only online, between two different accounts, on the rules' default clock (R7.1, R7.2), ended by
score, time or resignation; never a guest's, a shared device's, a custom clock's or an abort (D3,
D5, D7, D8). Format 2 records keep their own policy, which did not ask for accounts."""

from __future__ import annotations

from dataclasses import replace

import pytest

from spectacular_bid.clock import DEFAULT_SETTINGS, ClockSettings
from spectacular_bid.rules.actions import MatchEnd, MatchEnded
from spectacular_bid.rules.seats import Seat
from spectacular_bid.service.ports import MatchMode, Player
from spectacular_bid.service.rated import is_rated, rated_in_v1, rated_in_v2

ANN = Player("ann", "Ann", account=True)
BO = Player("bo", "Bo", account=True)
WON = MatchEnded(Seat.FIRST, MatchEnd.RESIGNATION)


def test_a_match_between_two_accounts_on_the_default_clock_is_rated() -> None:
    for reason in (MatchEnd.ZERO_BALANCE, MatchEnd.TIME, MatchEnd.RESIGNATION):
        ended = MatchEnded(Seat.SECOND, reason)
        for mode in (MatchMode.INVITE, MatchMode.OPEN):
            assert is_rated(mode, (ANN, BO), DEFAULT_SETTINGS, ended)


@pytest.mark.parametrize(
    ("seats", "why"),
    [
        ((ANN, replace(BO, account=False)), "the second seat is a guest"),
        ((replace(ANN, account=False), BO), "the first seat is a guest"),
        ((ANN, ANN), "one player in both seats"),
        ((ANN, None), "an empty seat"),
    ],
)
def test_a_guest_or_a_lone_player_is_never_rated(
    seats: tuple[Player, Player | None], why: str
) -> None:
    assert not is_rated(MatchMode.INVITE, seats, DEFAULT_SETTINGS, WON), why


def test_a_shared_device_a_custom_clock_or_an_abort_is_never_rated() -> None:
    assert not is_rated(MatchMode.SHARED, (ANN, BO), DEFAULT_SETTINGS, WON)
    custom = ClockSettings(bank_ms=300_000, delay_ms=10_000)
    assert not is_rated(MatchMode.INVITE, (ANN, BO), custom, WON)
    for reason in (MatchEnd.TIMING_FAILURE, MatchEnd.JOIN_TIMEOUT):  # D5, D3
        aborted = MatchEnded(None, reason)
        assert not is_rated(MatchMode.INVITE, (ANN, BO), DEFAULT_SETTINGS, aborted)
    # D7: two accounts on the rules' clock, but a player never decided: nobody's rating moves.
    undecided = MatchEnded(None, MatchEnd.NO_FIRST_DECISION, Seat.SECOND)
    assert not is_rated(MatchMode.INVITE, (ANN, BO), DEFAULT_SETTINGS, undecided)
    assert not rated_in_v1(undecided)
    abandoned = MatchEnded(None, MatchEnd.ABANDONED)  # D8, a shared device
    assert not is_rated(MatchMode.SHARED, (ANN, ANN), DEFAULT_SETTINGS, abandoned)
    assert not is_rated(MatchMode.INVITE, (ANN, BO), DEFAULT_SETTINGS, None)


def test_earlier_formats_keep_the_policy_of_their_time() -> None:
    guests = (replace(ANN, account=False), replace(BO, account=False))
    assert rated_in_v2(MatchMode.INVITE, guests, DEFAULT_SETTINGS, WON)
    assert not is_rated(MatchMode.INVITE, guests, DEFAULT_SETTINGS, WON)
    assert not rated_in_v2(MatchMode.SHARED, guests, DEFAULT_SETTINGS, WON)
    assert rated_in_v1(WON)  # format 1: every match with a winner
    assert not rated_in_v1(MatchEnded(None, MatchEnd.TIMING_FAILURE))
