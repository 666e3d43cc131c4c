"""Who plays whom in a "Play now" pool, as a pure calculation: waves, a widening rating gap, and
a minimum-cost matching of the players waiting.

**Why waves.** Pairing each player the moment they arrive gives them whoever happens to be
waiting, often the one player there, however far apart their ratings are. Gathering the pool for a
few seconds and pairing everyone at once (a *wave*) lets the matching choose among many partners,
so gaps are small, at the cost of a short wait. lichess's pools do this: a wave every 10 to 60 s,
or sooner once enough players wait to make a good matching likely
(:attr:`PairingParameters.wave_max_interval_ms`, :attr:`~PairingParameters.enough_players`).
A wave never follows the last one sooner than :attr:`~PairingParameters.wave_min_interval_ms`:
a pool that has just been emptied has nobody to choose among. Each time control is a pool with
its own waves; its rated and casual players share them but are never paired together.

**Why the gap widens.** A fixed limit would strand a player whose rating has no neighbour in the
pool (the strongest, the weakest, the only one at 3 a.m.). Each wave a player goes through
without a partner widens the gap they accept by :attr:`~PairingParameters.widen_per_missed_wave`,
up to :attr:`~PairingParameters.max_gap`: first a close match, then a fair enough one, never an
endless wait for a perfect one. A pair's gap is widened by the *fewer* waves its two players
missed, so a player who has just arrived is not handed to someone far away: they have not waited
for it. A provisional rating (:attr:`ratings.Rating.is_provisional`) is only a rough guess, so a
pair with one gets :attr:`~PairingParameters.provisional_extra_gap` more.

**The other rules**, each never broken whatever the wait:

- the same time control only, and accounts pair rated, guests casual: never mixed;
- never two players one of whom blocked the other (either direction is enough);
- a player who abandoned their last pool match is paired first with another such player
  (lichess pairs its habitual abandoners together); with anyone else only once they have missed
  :attr:`~PairingParameters.abandoner_apart_waves` waves, so they wait for a later wave while the
  others are paired.

**The matching.** In each group (time control, rated or casual) the players are sorted by rating
and a dynamic programme over the sorted list picks the set of pairs of least cost: each pair costs
its gap, each player left out costs more than any gap (so as many as possible are paired) and more
the more waves they have already missed (so who waited longest is left out last). A partner may
be any of the next :data:`REACH` - 1 players in rating order, not only the neighbour, so that a
block between neighbours does not strand either. Greedy pairing of neighbours can leave two
players unpaired where an exchange would have paired all four; the programme cannot.

No I/O, no clock reads, no randomness: the caller passes ``now_ms`` and the time each pool's last
wave ran, and stores back who stays (with their missed waves counted) and the waves that ran.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final

from spectacular_bid.service.ratings import MAX_DEVIATION, PROVISIONAL_DEVIATION

REACH: Final = 4
"""A player's partner is one of the next ``REACH - 1`` players in rating order within their
group. Gaps grow with distance in the sorted list, so a farther partner is needed only when
blocks or the abandoners' rule rule out the nearer ones; the programme's work grows as
``2**REACH`` per player."""


@dataclass(frozen=True, slots=True)
class PairingParameters:
    """How a pool pairs; the defaults follow lichess's pools (see the module's docstring)."""

    wave_min_interval_ms: int = 10_000
    """A wave never runs sooner than this after the last one, however many wait."""
    wave_max_interval_ms: int = 30_000
    """A wave runs at least this often while anyone waits (counted from the last wave, or from
    the arrival of the first player of an empty pool)."""
    enough_players: int = 20
    """Once this many wait in a time control, its wave runs as soon as the minimum interval
    allows: a matching among this many is already good."""
    base_gap: float = 100.0
    """The rating gap accepted by two players who have not yet missed a wave."""
    widen_per_missed_wave: float = 50.0
    """Added to the accepted gap for each wave both players of a pair went through unpaired."""
    max_gap: float = 400.0
    """The gap is never widened past this: at 400 points the stronger is expected to score about
    91%, a foregone match; the computer opponent the lobby offers serves better."""
    provisional_extra_gap: float = 100.0
    """Added (within :attr:`max_gap`) when either player's rating is provisional."""
    abandoner_apart_waves: int = 1
    """A player who abandoned their last pool match is paired only with another such player
    until they have missed this many waves; then with anyone. One: they sit out the first wave
    they are in unless another abandoner is there, and are paired in the next, before the
    lobby's computer offer (60 s) would take them."""

    def __post_init__(self) -> None:
        if self.wave_min_interval_ms < 0:
            raise ValueError(f"wave_min_interval_ms must be >= 0, got {self.wave_min_interval_ms}")
        if self.wave_max_interval_ms < max(self.wave_min_interval_ms, 1):
            raise ValueError(
                "wave_max_interval_ms must be >= 1 and >= wave_min_interval_ms "
                f"({self.wave_min_interval_ms}), got {self.wave_max_interval_ms}"
            )
        if self.enough_players < 2:
            raise ValueError(f"enough_players must be >= 2, got {self.enough_players}")
        for name in ("base_gap", "widen_per_missed_wave", "provisional_extra_gap"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        if not (math.isfinite(self.max_gap) and self.max_gap >= self.base_gap):
            raise ValueError(
                f"max_gap must be finite and >= base_gap ({self.base_gap}), got {self.max_gap!r}"
            )
        if self.abandoner_apart_waves < 0:
            raise ValueError(
                f"abandoner_apart_waves must be >= 0, got {self.abandoner_apart_waves}"
            )


@dataclass(frozen=True, slots=True)
class PoolEntry:
    """One player waiting in a pool."""

    player_id: str
    rating: float
    deviation: float
    """The rating's deviation (``ratings.Rating``); above ``PROVISIONAL_DEVIATION`` the rating is
    provisional. A guest without a rating passes a newcomer's 1500 and 350."""
    is_rated: bool
    """Accounts pair rated, guests casual; the two never meet."""
    time_control: str
    entered_at_ms: int
    abandoned_last: bool = False
    """They left their last pool match by abandoning it."""
    blocked: frozenset[str] = frozenset()
    """Players they blocked or who blocked them; checking both entries makes either one enough."""
    missed_waves: int = 0
    """Waves of their pool they went through unpaired; :func:`run_waves` counts them."""

    def __post_init__(self) -> None:
        if not self.player_id:
            raise ValueError("a pool entry needs a player id, got ''")
        if not self.time_control:
            raise ValueError(f"{self.player_id!r}: a pool entry needs a time control, got ''")
        if not math.isfinite(self.rating):
            raise ValueError(f"{self.player_id!r}: rating must be finite, got {self.rating!r}")
        if not (math.isfinite(self.deviation) and 0 <= self.deviation <= MAX_DEVIATION):
            raise ValueError(
                f"{self.player_id!r}: deviation must be between 0 and {MAX_DEVIATION}, "
                f"got {self.deviation!r}"
            )
        if self.missed_waves < 0:
            raise ValueError(
                f"{self.player_id!r}: missed_waves must be >= 0, got {self.missed_waves}"
            )

    @property
    def is_provisional(self) -> bool:
        return self.deviation > PROVISIONAL_DEVIATION

    def is_blocked_with(self, other: PoolEntry) -> bool:
        """True when either of the two blocked the other."""
        return other.player_id in self.blocked or self.player_id in other.blocked


@dataclass(frozen=True, slots=True)
class Pairing:
    """Two players to seat in one match now."""

    first: PoolEntry
    second: PoolEntry

    @property
    def gap(self) -> float:
        return abs(self.first.rating - self.second.rating)


@dataclass(frozen=True, slots=True)
class Waves:
    """What :func:`run_waves` decided at ``now_ms``."""

    pairs: tuple[Pairing, ...]
    staying: tuple[PoolEntry, ...]
    """Everyone not paired, in the order given; those whose wave ran have one more missed
    wave."""
    ran: frozenset[str] = frozenset()
    """The time controls whose wave ran: the caller records ``now_ms`` as their last wave."""
    next_wave_at_ms: int | None = None
    """When a wave is next due for someone staying (the caller's next call), None if nobody
    stays."""


def wave_due_at_ms(
    waiting: Sequence[PoolEntry],
    last_wave_at_ms: int | None,
    parameters: PairingParameters = PairingParameters(),
) -> int | None:
    """When the wave of one time control's pool is due, given who waits in it; None if nobody.

    The clock starts at the last wave, or at the first arrival into an empty pool, whichever is
    later: a player arriving long after the last wave is not counted as having missed one.
    """
    if not waiting:
        return None
    since_ms = min(entry.entered_at_ms for entry in waiting)
    if last_wave_at_ms is not None:
        since_ms = max(since_ms, last_wave_at_ms)
    if len(waiting) >= parameters.enough_players:
        return since_ms + parameters.wave_min_interval_ms
    return since_ms + parameters.wave_max_interval_ms


def run_waves(
    waiting: Sequence[PoolEntry],
    now_ms: int,
    last_wave_at_ms: Mapping[str, int],
    parameters: PairingParameters = PairingParameters(),
) -> Waves:
    """Run the wave of every time control whose wave is due at ``now_ms``.

    ``last_wave_at_ms`` maps a time control to when its last wave ran (absent: never). A pool
    whose wave is not due is left as it is, so calling this early is harmless.
    """
    seen: set[str] = set()
    for entry in waiting:
        if entry.player_id in seen:
            raise ValueError(f"player {entry.player_id!r} waits twice in the pool")
        seen.add(entry.player_id)
        if entry.entered_at_ms > now_ms:
            raise ValueError(
                f"{entry.player_id!r} entered at {entry.entered_at_ms}, after now ({now_ms})"
            )
    by_time_control: dict[str, list[PoolEntry]] = {}
    for entry in waiting:
        by_time_control.setdefault(entry.time_control, []).append(entry)
    ran: set[str] = set()
    paired: set[str] = set()
    pairs: list[Pairing] = []
    next_due: list[int] = []
    for time_control, pool in by_time_control.items():
        due_at_ms = wave_due_at_ms(pool, last_wave_at_ms.get(time_control), parameters)
        assert due_at_ms is not None  # the pool has at least one entry
        if due_at_ms > now_ms:
            next_due.append(due_at_ms)
            continue
        ran.add(time_control)
        for rated in (True, False):
            group = [entry for entry in pool if entry.is_rated is rated]
            for pair in pair_group(group, parameters):
                pairs.append(pair)
                paired.update((pair.first.player_id, pair.second.player_id))
        left = [entry for entry in pool if entry.player_id not in paired]
        if (due_again_ms := wave_due_at_ms(left, now_ms, parameters)) is not None:
            next_due.append(due_again_ms)
    staying = tuple(
        replace(entry, missed_waves=entry.missed_waves + 1) if entry.time_control in ran else entry
        for entry in waiting
        if entry.player_id not in paired
    )
    return Waves(tuple(pairs), staying, frozenset(ran), min(next_due, default=None))


def allowed_gap(a: PoolEntry, b: PoolEntry, parameters: PairingParameters) -> float:
    """The widest rating gap ``a`` and ``b`` accept now (see the module's docstring)."""
    gap = parameters.base_gap + parameters.widen_per_missed_wave * min(
        a.missed_waves, b.missed_waves
    )
    if a.is_provisional or b.is_provisional:
        gap += parameters.provisional_extra_gap
    return min(gap, parameters.max_gap)


def can_pair(a: PoolEntry, b: PoolEntry, parameters: PairingParameters) -> bool:
    """Whether the rules allow ``a`` and ``b`` in one match now, whatever else waits."""
    if a.player_id == b.player_id or a.time_control != b.time_control:
        return False
    if a.is_rated is not b.is_rated or a.is_blocked_with(b):
        return False
    if a.abandoned_last is not b.abandoned_last:
        abandoner = a if a.abandoned_last else b
        if abandoner.missed_waves < parameters.abandoner_apart_waves:
            return False
    return abs(a.rating - b.rating) <= allowed_gap(a, b, parameters)


def pair_group(
    group: Sequence[PoolEntry], parameters: PairingParameters = PairingParameters()
) -> list[Pairing]:
    """The pairs of least cost among one group's players (same time control, rated or not).

    Abandoners are matched among themselves first, so they are each other's partners whenever
    the gap allows; those left over join everyone else in a second matching, where
    :func:`can_pair` still keeps them apart until they have waited long enough.
    """
    abandoners = [entry for entry in group if entry.abandoned_last]
    pairs = _least_cost_pairs(abandoners, parameters)
    taken = {entry.player_id for pair in pairs for entry in (pair.first, pair.second)}
    rest = [entry for entry in group if entry.player_id not in taken]
    return pairs + _least_cost_pairs(rest, parameters)


def _least_cost_pairs(entries: Iterable[PoolEntry], parameters: PairingParameters) -> list[Pairing]:
    """A minimum-cost matching over the rating-sorted list, partners within :data:`REACH`.

    ``best[i][mask]`` is the least cost of deciding players ``i..`` when ``mask`` marks which of
    players ``i .. i + REACH - 1`` are already taken by an earlier player's pair (bit 0 is
    ``i``).
    """
    ordered = sorted(entries, key=lambda entry: (entry.rating, entry.player_id))
    n = len(ordered)
    if n < 2:
        return []
    # Leaving a player out costs more than any pair's gap, so a matching with more pairs always
    # costs less; among equal counts, who has missed more waves costs more to leave out.
    leave_out_base = 2.0 * parameters.max_gap + 1.0
    masks = 1 << REACH
    best = [[0.0] * masks for _ in range(n + 1)]
    # choice: 0 when taken already or left out, d > 0 when paired with the player d places on.
    choice = [[0] * masks for _ in range(n)]
    for i in range(n - 1, -1, -1):
        player = ordered[i]
        leave_out = leave_out_base + parameters.widen_per_missed_wave * player.missed_waves
        for mask in range(masks):
            if mask & 1:
                best[i][mask] = best[i + 1][mask >> 1]
                continue
            cost, pick = leave_out + best[i + 1][mask >> 1], 0
            for d in range(1, min(REACH, n - i)):
                if mask & (1 << d):
                    continue
                partner = ordered[i + d]
                if not can_pair(player, partner, parameters):
                    continue
                option = abs(player.rating - partner.rating) + best[i + 1][(mask | 1 << d) >> 1]
                if option < cost:
                    cost, pick = option, d
            best[i][mask], choice[i][mask] = cost, pick
    pairs: list[Pairing] = []
    mask = 0
    for i in range(n):
        if not mask & 1 and (d := choice[i][mask]):
            pairs.append(Pairing(ordered[i], ordered[i + d]))
            mask |= 1 << d
        mask >>= 1
    return pairs
