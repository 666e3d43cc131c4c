"""Which matches are rated: a written policy (PROTOCOL.md "Players: profiles, ratings and
archives"), applied when a match ends.

A match is rated only when all of these hold:

- it was played online (an invitation or an open challenge), not on a shared device, where one
  person holds both seats;
- its two seats are held by two different players;
- it ran on the default time control of the rules (R7.1: a 120 s bank; R7.2: a 10 s delay), so
  every rated result was reached under the same clock;
- it ended by score (R1.5, R6.5), on time (R7.7) or by resignation (R5.2) — never aborted, for
  a join timeout (D3), a timing failure (R5.3, R7.9, D5), a first decision that never came (D7:
  nobody loses rating by a match they never played) or an abandoned shared device (D8);
- it was played here: an imported record is never rated;
- both seats were held by accounts when they took them (PROTOCOL.md "Players: profiles, ratings
  and archives"): a guest's result moves no rating, and a guest who makes an account later does
  not make its earlier matches rated.

Records of earlier formats were written under earlier policies, which their replay still applies
so that they verify as they are: format 1 rated every match with a winner (:func:`rated_in_v1`);
format 2 applied this policy without asking for accounts (:func:`rated_in_v2`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from spectacular_bid.clock import DEFAULT_SETTINGS, ClockSettings
from spectacular_bid.rules.actions import MatchEnd, MatchEnded
from spectacular_bid.service.ports import MatchMode, Player

RATED_ENDS: Final = frozenset({MatchEnd.ZERO_BALANCE, MatchEnd.TIME, MatchEnd.RESIGNATION})
ONLINE: Final = frozenset({MatchMode.INVITE, MatchMode.OPEN})


def is_rated(
    mode: MatchMode,
    seats: Sequence[Player | None],
    clock: ClockSettings,
    result: MatchEnded | None,
) -> bool:
    """The policy above for a match played here (an import is unrated by its own flag)."""
    first, second = seats
    return (
        first is not None
        and second is not None
        and first.account
        and second.account
        and rated_in_v2(mode, seats, clock, result)
    )


def will_be_rated(mode: MatchMode, seats: Sequence[Player | None], clock: ClockSettings) -> bool:
    """Whether a match being played is rated if it ends by score, time or resignation: all of
    the policy but its end, known once both seats are taken (the match header's "rated" mark)."""
    first, second = seats
    return (
        first is not None
        and second is not None
        and first.account
        and second.account
        and _rated_table(mode, first, second, clock)
    )


def rated_in_v2(
    mode: MatchMode,
    seats: Sequence[Player | None],
    clock: ClockSettings,
    result: MatchEnded | None,
) -> bool:
    """The policy of record format 2: the one above, accounts or not."""
    first, second = seats
    return (
        first is not None
        and second is not None
        and _rated_table(mode, first, second, clock)
        and result is not None
        and result.winner is not None
        and result.reason in RATED_ENDS
    )


def _rated_table(mode: MatchMode, first: Player, second: Player, clock: ClockSettings) -> bool:
    """Online, two different players, the rules' time control (R7.1, R7.2)."""
    return mode in ONLINE and first.id != second.id and clock == DEFAULT_SETTINGS


def rated_in_v1(result: MatchEnded | None) -> bool:
    """The policy of record format version 1: rated whenever the match had a winner."""
    return result is not None and result.winner is not None


Policy = Callable[[MatchMode, Sequence[Player | None], ClockSettings, MatchEnded | None], bool]


def rated_policy(format_version: int) -> Policy:
    """The policy a record of ``format_version`` was rated under (its replay checks that)."""
    if format_version == 1:
        return lambda _mode, _seats, _clock, result: rated_in_v1(result)
    return rated_in_v2 if format_version == 2 else is_rated
