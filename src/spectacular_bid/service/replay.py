"""Replay is the machine (PROTOCOL.md "Replays and ended matches"): a stored match is its recorded
inputs, re-run through
:func:`~spectacular_bid.service.machine.step`.

Each recorded version's command is decoded (``codec.parse_command``) and turned back into the
input that made it — a player's command for its seat, a press, a join, a timer, the restart abort
— and stepped at the version's recorded server time. Because the machine is deterministic and
each deal's deck is in its command, everything else (the events, every balance, every clock
reading, the deck commitments, the result) follows; :func:`verify` compares all of it with what
the record says and names the first difference. Ended matches read back from the store, the
replay frames, ``specbid replay`` and start-up recovery all use :class:`Replay`.

A version written before record format 2 has no ``received_ms``; it is inferred from the clock
readings (:func:`infer_received_ms`), which determine it wherever it changed a bank.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Final

from spectacular_bid.clock import ClockSettings, MatchClock
from spectacular_bid.rules.actions import Abort, AbortReason, Flag
from spectacular_bid.rules.errors import RulesError
from spectacular_bid.rules.notation import parse_tile, tile_text
from spectacular_bid.rules.seats import SEATS, Seat
from spectacular_bid.service.codec import clock_json, command_json, event_json, parse_command
from spectacular_bid.service.commands import (
    AbandonDue,
    DealSeed,
    FlagDue,
    GraceDue,
    HandingOver,
    Input,
    Join,
    JoinDue,
    PressedReveal,
    PressedStart,
    RecordedCommand,
    Restarted,
    Resumed,
    Reveal,
    SaltedDeal,
    Start,
    Submit,
    TookSeat,
    move_of,
)
from spectacular_bid.service.discrepancy import (
    Discrepancy,
    RecordMismatchError,
    check,
    compact,
    first_difference,
)
from spectacular_bid.service.fairness import deck_commitment, verify_commitment
from spectacular_bid.service.machine import step
from spectacular_bid.service.ports import EventRecord, MatchMode, MatchStatus, Player
from spectacular_bid.service.rated import rated_policy
from spectacular_bid.service.record_document import (
    ENDED_WITH_LAST_VERSION_SINCE,
    FIRST_DECISION_GRACE,
    IMPORTED,
    MatchDocument,
    NotAdmitted,
    NotAdmittedError,
    admission,
    parse_document,
    version_of,
)
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.seat_names import names_in
from spectacular_bid.service.settings import ServiceSettings
from spectacular_bid.service.standings import NO_STANDING, Standing
from spectacular_bid.service.state import Entry, MatchState, Transition, new_match

# -- replaying ------------------------------------------------------------------------------


def settings_of(header_settings: Mapping[str, Any]) -> ServiceSettings:
    """The service settings a match ran under, from its header's ``settings``. A header written
    before D7 (record formats 1 to 3) has no ``first_decision_grace_ms``: the rule was off."""
    return ServiceSettings(
        clock=ClockSettings(header_settings["bank_ms"], header_settings["delay_ms"]),
        grace_ms=header_settings["grace_ms"],
        join_timeout_ms=header_settings["join_timeout_ms"],
        first_decision_grace_ms=header_settings.get(FIRST_DECISION_GRACE),
    )


def infer_received_ms(clock: MatchClock, recorded: object, mono_ms: int) -> int:
    """When a format-1 version's command was received, from the clocks: a decision that cost
    bank ended at its start + delay + that cost (R7.2); one that cost none, at its start."""
    seat = clock.running
    if seat is None:
        return max(mono_ms, clock.decision_started_ms)
    banks = recorded.get("bank_left_ms") if isinstance(recorded, dict) else None
    after = banks.get(str(seat)) if isinstance(banks, dict) else None
    cost = clock.bank_ms[seat] - after if isinstance(after, int) else 0
    if cost > 0:
        return clock.decision_started_ms + clock.delay_ms + cost
    return clock.decision_started_ms


@dataclass(slots=True)
class Replay:
    """A match re-run version by version: its state after the last one and every entry."""

    state: MatchState
    names: Mapping[str, str | None]
    accounts: Mapping[str, bool] = field(default_factory=dict)
    """Which seats were held by accounts (record format 3; none before)."""
    entries: list[Entry] = field(default_factory=list)

    @classmethod
    def of(
        cls,
        mode: MatchMode,
        settings: Mapping[str, Any],
        names: Mapping[str, str | None],
        first: Mapping[str, Any] | None,
        accounts: Mapping[str, bool] | None = None,
    ) -> Replay:
        """A replay from the match's creation, whose time is not recorded: the first version's
        time, or the join timeout before it when that version ended the match for it (D3: the
        join timeout is the least a waiting match is kept; it may be kept longer while its
        creator is there, which the record does not say, so the abort is taken to be at the
        earliest time it could be)."""
        service_settings = settings_of(settings)
        accounts = accounts or {}
        creator = Player(
            _player_id(mode, Seat.FIRST), names.get("first") or "", accounts.get("first", False)
        )
        created_ms = first["mono_ms"] if first is not None else 0
        command = first.get("command") if first is not None else None
        aborted = isinstance(command, dict) and command.get("type") == "abort"
        reason = command.get("reason") if isinstance(command, dict) else None
        if aborted and reason != AbortReason.ABANDONED.value:
            created_ms -= service_settings.join_timeout_ms
        typed = names_in(settings) or _shared_names(mode, names)
        state = new_match(mode, creator, service_settings, created_ms, typed)
        return cls(state, names, accounts)

    def step(self, version: Mapping[str, Any], at: str | None = None) -> Entry:
        """Re-run one recorded version; raise :class:`RecordMismatchError` if the machine does
        not accept it (``at``: where the version is in its document, ``versions[11]``)."""
        where = f"version {version.get('version')}"
        try:
            entry = self._step(version)
        except (RulesError, ValueError, KeyError, TypeError) as exc:
            raise _refused(where, version, str(exc), at) from None
        if isinstance(entry, Rejection):
            raise _refused(where, version, str(entry), at)
        self.entries.append(entry)
        return entry

    def _step(self, version: Mapping[str, Any]) -> Entry | Rejection:
        state = self.state
        mono_ms = version["mono_ms"]
        received = version.get("received_ms")
        if not isinstance(received, int):
            received = infer_received_ms(state.clock, version.get("clock"), mono_ms)
        command = _input(state, parse_command(version["command"]), version, received, self)
        outcome = step(state, command, mono_ms)
        if isinstance(outcome, Rejection):
            return outcome
        if not isinstance(outcome, Transition):
            return Rejection(ErrorCode.WRONG_PHASE, "it would deal, yet it records no deck")
        if outcome.entry is None:
            return Rejection(ErrorCode.WRONG_PHASE, "it changes nothing, yet a version records it")
        self.state = outcome.state
        return outcome.entry


def _shared_names(mode: MatchMode, names: Mapping[str, str | None]) -> tuple[str, str] | None:
    """A shared-device record's two names, when they are two (``service.seat_names``)."""
    first, second = names.get("first"), names.get("second")
    if mode is not MatchMode.SHARED or not first or not second or first == second:
        return None
    return first, second


def _player_id(mode: MatchMode, seat: Seat) -> str:
    return "device" if mode is MatchMode.SHARED else str(seat)


def _input(
    state: MatchState,
    command: RecordedCommand,
    version: Mapping[str, Any],
    received: int,
    replayer: Replay,
) -> Input:
    """The input that recorded ``command`` (see the module docstring)."""
    recorded_seat = version.get("seat")
    seat = {"first": Seat.FIRST, "second": Seat.SECOND}.get(recorded_seat)  # type: ignore[arg-type]
    if isinstance(command, Flag):
        return FlagDue()
    if isinstance(command, HandingOver | Resumed):
        return command
    if isinstance(command, Abort):
        if command.reason is AbortReason.JOIN_TIMEOUT:
            return JoinDue()
        if command.reason is AbortReason.NO_FIRST_DECISION:
            return FlagDue()  # D7: the flag timer's work, at a deadline of its own
        if command.reason is AbortReason.ABANDONED:
            return AbandonDue()
        return Restarted(received)
    if isinstance(command, TookSeat):
        seat_name = str(command.seat)
        shown = replayer.names.get(seat_name) or _recorded_name(version) or ""
        account = replayer.accounts.get(seat_name, False)
        return Join(Player(_player_id(state.mode, command.seat), shown, account))
    if isinstance(command, SaltedDeal):
        seed = DealSeed(command.deck, command.salt)
        if seat is None and state.mode is not MatchMode.SHARED:
            return GraceDue(seed)
        return _press(state, Start(), seat, received, seed)
    if isinstance(command, PressedStart):
        return _press(state, Start(), command.seat, received, None)
    if isinstance(command, PressedReveal):
        return _press(state, Reveal(), command.seat, received, None)
    acting = command.seat
    return Submit(_player_id(state.mode, acting), move_of(command), state.version, received, acting)


def _press(
    state: MatchState,
    command: Start | Reveal,
    seat: Seat | None,
    received: int,
    seed: DealSeed | None,
) -> Submit:
    player = _player_id(state.mode, seat if seat is not None else Seat.FIRST)
    return Submit(player, command, state.version, received, seat, seed)


def _recorded_name(version: Mapping[str, Any]) -> str | None:
    for event in version.get("events") or ():
        if isinstance(event, dict) and event.get("type") == "seat_taken":
            name = event.get("name")
            return name if isinstance(name, str) else None
    return None


def _refused(
    where: str, version: Mapping[str, Any], why: str, at: str | None
) -> RecordMismatchError:
    return RecordMismatchError.of(
        where,
        "command",
        "a command the match machine accepts",
        f"{compact(version.get('command'))} ({why})",
        at=at,
    )


def replay(document: MatchDocument) -> Iterable[tuple[Mapping[str, Any], Entry, MatchState]]:
    """Each version re-run: the recorded version, the machine's entry, and the state after it.
    Stops with :class:`RecordMismatchError` at the first version the machine refuses."""
    replayer = replay_of(document)
    for version in document.versions:
        entry = replayer.step(version)
        yield version, entry, replayer.state


def replay_of(document: MatchDocument) -> Replay:
    header = document.match
    names = {s: document.name(s) for s in ("first", "second")}
    accounts = {s: document.is_account(s) for s in ("first", "second")}
    first = document.versions[0] if document.versions else None
    try:
        return Replay.of(MatchMode(header["mode"]), header["settings"], names, first, accounts)
    except (ValueError, KeyError, TypeError) as exc:
        raise RecordMismatchError.of(
            "match", "settings", "a valid time control", f"{exc}", at="match"
        ) from None


# -- verifying ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verified:
    """What a record that verified contains (for the one-line report)."""

    match_id: str
    versions: int
    rounds: int
    winner: str | None
    reason: str


@dataclass(frozen=True, slots=True)
class CheckedRecord:
    """A record document as every reader checks it (:func:`check_record`)."""

    document: MatchDocument
    outcome: Verified | Discrepancy
    """What it contains when it verifies, else its first discrepancy."""
    not_admitted: NotAdmitted | None
    """Why this server's import would refuse it, whether it verifies or not
    (:func:`~spectacular_bid.service.record_document.admission`); None when it asks nothing
    more of it."""

    @property
    def verified(self) -> Verified | None:
        return self.outcome if isinstance(self.outcome, Verified) else None

    @property
    def importable(self) -> bool:
        """Whether ``POST /api/records`` on this server stores it."""
        return self.verified is not None and self.not_admitted is None

    def admitted(self) -> Verified:
        """What an import stores; raise :class:`NotAdmittedError` if this server does not admit
        the record (checked first, as the import always has), else
        :class:`RecordMismatchError` if it does not verify."""
        if self.not_admitted is not None:
            raise NotAdmittedError(self.not_admitted)
        if isinstance(self.outcome, Discrepancy):
            raise RecordMismatchError(self.outcome)
        return self.outcome


def check_record(data: object) -> CheckedRecord:
    """The one check of a record document, made alike by ``specbid replay --verify``, ``POST
    /api/records/verify`` and ``POST /api/records``: its shape (raising
    :class:`~spectacular_bid.service.record_document.RecordFormatError`), its own consistency
    (:func:`verify`) and, apart, what this server's import asks beyond it (its admission), so
    that a record that verifies imports unless this server's own ranges refuse it, and the
    verify answers say so."""
    document = parse_document(data)
    not_admitted = admission(document)
    try:
        return CheckedRecord(document, verify(document), not_admitted)
    except RecordMismatchError as exc:
        return CheckedRecord(document, exc.discrepancy, not_admitted)


def verify(document: MatchDocument) -> Verified:
    """Re-run ``document`` through the machine and check every version's seat, events (each
    balance included), command, times and whole clock reading — ``now_ms`` and every other
    field, and no field more — every round's commitment and reveal, and the header's result and
    times (:func:`_check_header_times`). Raise :class:`RecordMismatchError` with the first
    discrepancy.

    The times are the record's inputs, so they are held to what the server's own clock could
    have given (:func:`_check_times`); a format-1 version's inferred ``received_ms`` is held to
    the same. A version's recorded inputs — its ``mono_ms``, ``received_ms`` and a deal's deck —
    determine the rest of it, so a changed input shows first as a clock reading or an event
    that differs; the discrepancy then names the input when the record's other fields show
    which one it was (:func:`_changed_input`)."""
    try:
        return _verify(document)
    except RecordMismatchError as exc:
        changed = _changed_input(document, exc.discrepancy)
        if changed is None:
            raise
        raise RecordMismatchError(changed) from None


def _verify(document: MatchDocument) -> Verified:
    replayer = replay_of(document)
    previous_ms: int | None = None
    for index, version in enumerate(document.versions):
        where, at = f"version {version['version']}", f"versions[{index}]"
        check(where, "version", index + 1, version["version"], at=at)
        restarted = _is_restart(version) or version["command"].get("type") == "resume"
        mono_ms = version["mono_ms"]
        if previous_ms is not None and mono_ms < previous_ms and not restarted:
            raise RecordMismatchError.of(
                where,
                "mono_ms",
                f"at least {previous_ms}, the previous version's: the server's clock is monotonic",
                mono_ms,
                at=at,
            )
        entry = replayer.step(version, at)
        seat = str(entry.seat) if entry.seat is not None else None
        check(where, "seat", seat, version["seat"], at=at)
        check(where, "events", [event_json(e) for e in entry.events], version["events"], at=at)
        check(where, "command", command_json(entry.command), version["command"], at=at)
        _check_times(where, at, version, entry, restarted)
        check(where, "clock", clock_json(entry.clock), version["clock"], at=at)
        previous_ms = mono_ms
    state = replayer.state
    match = state.match
    last = f"version {len(document.versions)}"
    if match.result is None:
        raise RecordMismatchError(Discrepancy(last, "result", "the match to have ended", "none"))
    _check_rounds(document, replayer)
    result = match.result
    winner = str(result.winner) if result.winner is not None else None
    status = MatchStatus.FINISHED if winner is not None else MatchStatus.ABORTED
    header = document.match
    check("match", "status", status.value, header["status"], at="match")
    check("match", "winner", winner, header["winner"], at="match")
    check("match", "reason", result.reason.value, header["reason"], at="match")
    policy = rated_policy(document.format_version)
    rated = policy(state.mode, state.seats, state.settings.clock, result)
    check("match", "rated", rated and not header.get(IMPORTED, False), header["rated"], at="match")
    _check_header_times(document)
    return Verified(document.id, len(document.versions), _deals(replayer), winner, header["reason"])


def _check_header_times(document: MatchDocument) -> None:
    """A match ends with its last version: its header's ``ended_at_ms`` is that version's
    ``wall_ms`` (in format 1 at most that, as release 0.1.0 read it just before; see
    :mod:`~spectacular_bid.service.record_document`), and it was not created after it ended.
    The wall times of the versions are not held to rise: the wall clock may be stepped back
    (the match clock never reads it)."""
    header = document.match
    ended, created = header["ended_at_ms"], header["created_at_ms"]
    last_ms = document.versions[-1]["wall_ms"] if document.versions else None
    if ended is not None and last_ms is not None:
        last = f"versions[{len(document.versions) - 1}].wall_ms"
        if document.format_version >= ENDED_WITH_LAST_VERSION_SINCE and ended != last_ms:
            raise RecordMismatchError.of(
                "match",
                "ended_at_ms",
                f"{last_ms}, the last version's time ({last}): a match ends with its last version",
                ended,
                at="match",
            )
        elif ended > last_ms:
            raise RecordMismatchError.of(
                "match",
                "ended_at_ms",
                f"at most {last_ms}, the last version's time ({last}): format 1 read the end "
                "of a match just before it",
                ended,
                at="match",
            )
    end = ended if ended is not None else last_ms
    if end is not None and created > end:
        raise RecordMismatchError.of(
            "match",
            "created_at_ms",
            f"no later than {end}, the match's end (ended_at_ms)",
            created,
            at="match",
        )


_VERSION_AT: Final = re.compile(r"versions\[([0-9]+)\]")


def _changed_input(document: MatchDocument, found: Discrepancy) -> Discrepancy | None:
    """The recorded input of ``found``'s version that was changed, when the record's other
    fields show it: set to what they imply, the whole record verifies. Its ``mono_ms`` is its
    clock reading's ``now_ms``; its ``received_ms``, where the reading charged a bank, is when
    the bank says the command came (R7.7); a deal's deck is the one its round's reveal shows.
    Where two fields disagree and either could have been changed alone (a standing clock's
    ``now_ms`` and its version's ``mono_ms``), the input is named and the expected value says
    which field it is read from. None when no single input explains the discrepancy."""
    place = _VERSION_AT.match(found.path or "")
    if place is None:
        return None
    index = int(place[1])
    version = document.versions[index]
    for name, value, source in _candidates(document, index, found.field):
        trial = _with_input(document, index, name, value)
        try:
            _verify(trial)
        except RecordMismatchError:
            continue
        recorded = version["command"]["deck"] if name == "command.deck" else version[name]
        path, mine, theirs = first_difference(value, recorded, name)
        expected = f"{mine}, {source}" if isinstance(mine, int) else mine
        return Discrepancy(found.where, path, expected, theirs, f"versions[{index}].{path}")
    return None


def _candidates(
    document: MatchDocument, index: int, differing: str
) -> Iterator[tuple[str, object, str]]:
    """What the rest of version ``index`` says each of its inputs was — (the input, its value,
    where it is read from) — for an input that can explain a difference in ``differing``."""
    version = document.versions[index]
    clock = version["clock"] if isinstance(version["clock"], dict) else {}
    now_ms = clock.get("now_ms")
    timed = differing.startswith("clock.") or differing == "received_ms"
    if timed and _is_ms(now_ms) and now_ms != version["mono_ms"]:
        yield "mono_ms", now_ms, "the time of its clock reading (clock.now_ms)"
    received = version.get("received_ms")
    if differing.startswith("clock.bank_left_ms") and _is_ms(received):
        replayer = replay_of(document)
        for earlier in document.versions[:index]:
            replayer.step(earlier)
        inferred = infer_received_ms(replayer.state.clock, clock, version["mono_ms"])
        if inferred != received:
            yield "received_ms", inferred, "when its clock reading's bank says it came (R7.7)"
    command = version["command"]
    if differing.startswith("events") and command.get("type") == "deal":
        number = sum(v["command"].get("type") == "deal" for v in document.versions[: index + 1])
        shown = next((r["deck"] for r in document.rounds if r["number"] == number), None)
        if isinstance(shown, list) and shown != command.get("deck"):
            yield "command.deck", shown, f"the deck its round's reveal shows (round {number})"


def _is_ms(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _with_input(document: MatchDocument, index: int, name: str, value: object) -> MatchDocument:
    """``document`` with input ``name`` of version ``index`` set to ``value`` (nothing shared
    with it is changed)."""
    version = dict(document.versions[index])
    if name == "command.deck":
        version["command"] = {**version["command"], "deck": value}
    else:
        version[name] = value
    versions = [*document.versions[:index], version, *document.versions[index + 1 :]]
    return replace(document, versions=versions)


def _is_restart(version: Mapping[str, Any]) -> bool:
    """A version that ended its match as a timing failure: after a restart (D5) the server's
    monotonic clock may begin anew, so such a version may be timed before the one it follows,
    and charged at that earlier time (the machine never times it before its clock's last).
    A version that resumed a match on another server (PROTOCOL.md "Several servers on one database")
    is held to the same: that server's clock has a base of its own."""
    command = version["command"]
    return bool(
        command.get("type") == "abort" and command.get("reason") == AbortReason.TIMING_FAILURE.value
    )


def _check_times(
    where: str, at: str, version: Mapping[str, Any], entry: Entry, restarted: bool
) -> None:
    """A version is timed when the machine made it (never before its clock's last time), and
    its command was received then or earlier, at the time the machine charged it (R7.7)."""
    check(where, "mono_ms", entry.now_ms, version["mono_ms"], at=at)
    recorded = version.get("received_ms")
    if recorded is not None:
        check(where, "received_ms", entry.received_ms, recorded, at=at)
    if entry.received_ms > entry.now_ms and not restarted:
        raise RecordMismatchError.of(
            where,
            "received_ms",
            f"at most {entry.now_ms}, the version's mono_ms: a command is received before it "
            "is applied",
            entry.received_ms,
            at=at,
        )


def _deals(replayer: Replay) -> int:
    return sum(isinstance(e.command, SaltedDeal) for e in replayer.entries)


def _check_rounds(document: MatchDocument, replayer: Replay) -> None:
    """Each dealt round has a row whose commitment, salt and deck are the deal's, and whose
    commitment the salt and deck reproduce."""
    deals = [e.command for e in replayer.entries if isinstance(e.command, SaltedDeal)]
    check("rounds", "length", len(deals), len(document.rounds))
    for number, (deal, row) in enumerate(zip(deals, document.rounds, strict=True), start=1):
        where, at = f"round {number}", f"rounds[{number - 1}]"
        commitment = deck_commitment(deal.deck, deal.salt)
        check(where, "number", number, row["number"], at=at)
        check(where, "commitment", commitment, row["commitment"], at=at)
        check(where, "salt", deal.salt, row["salt"], at=at)
        check(where, "deck", [tile_text(t) for t in deal.deck], row["deck"], at=at)
        try:
            tiles = [parse_tile(t) for t in row["deck"]]
        except ValueError:
            tiles = []
        if not verify_commitment(row["commitment"], tiles, row["salt"]):
            raise RecordMismatchError.of(
                where, "commitment", "sha256(salt:deck)", row["commitment"], at=at
            )


# -- an ended match, rebuilt ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """An ended match no longer in memory, re-run from its stored record so that a player who
    comes back sees how and why it ended (D5). It offers what readers of a live actor use."""

    id: str
    state: MatchState
    log: tuple[Entry, ...]
    standing: Standing = NO_STANDING
    """The ratings it shows beside its players: a rated match's, as stored with its end."""

    is_live: ClassVar[bool] = False

    @property
    def version(self) -> int:
        return self.state.version


def rebuild(
    match_id: str,
    mode: MatchMode,
    settings: Mapping[str, Any],
    seats: tuple[Player | None, Player | None],
    records: list[EventRecord],
) -> Rebuilt:
    """Re-run ``records``; raise :class:`RecordMismatchError` on one the machine refuses."""
    names = {str(s): p.name if p is not None else None for s, p in zip(SEATS, seats, strict=True)}
    accounts = {str(s): p is not None and p.account for s, p in zip(SEATS, seats, strict=True)}
    first = version_of(records[0]) if records else None
    replayer = Replay.of(mode, settings, names, first, accounts)
    for record in records:
        replayer.step(version_of(record))
    # The players as they are stored (the replay knew them by seat).
    state = replace(replayer.state, seats=seats)
    return Rebuilt(match_id, state, tuple(replayer.entries))
