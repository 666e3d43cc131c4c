"""The match record as a versioned JSON document and the checks of reading one (D4): what
``GET /api/matches/{id}/record`` serves, ``specbid replay --export`` writes, and
``POST /api/records`` / ``specbid replay FILE`` read. It is apart from
:mod:`spectacular_bid.service.records` (building a document from stored rows, and the rows for
importing one) so that the format and this server's limits (R7.1, R7.2, D3, D7) have one home, free
of storage, that the web layer takes its bounds from too.

```
{"format": "spectacular-bid/match-record", "format_version": 4,
 "match": {"id", "mode", "settings", "status", "winner", "reason", "rated", "created_at_ms",
           "ended_at_ms", "players": {"first": {"name", "account"} | null, "second": …},
           ["imported": true, "imported_id"]},
 "rounds": [{"number", "commitment", "salt", "deck"}, …],
 "versions": [{"version", "seat", "command", "events", "wall_ms", "mono_ms", "received_ms",
               "clock"}, …]}
```

``versions`` is the event log exactly as stored: each version's engine command (a deal's with its
``salt``), every event unfiltered plus the service's own (``deck_committed``, ``deck_revealed``,
``seat_taken``, ``ready``, ``revealed``), the server's wall and monotonic time, and the clock
reading after it; ``received_ms`` is when the server received the command, the time its clock
charge was taken at (R7.7). ``rounds`` are the deck commitments and their reveals. A match
imported from such a document carries ``"imported": true`` in its header and is never rated here;
it has an id of this server's own form (:func:`~spectacular_bid.service.records.new_match_id`),
and ``"imported_id"`` is the id its document gave it (null for a match imported before that was
kept).

Format 4 adds ``first_decision_grace_ms`` to ``settings``: the grace of D7 the match ran under, or
null when the rule was off. A seat that had decided nothing was then aborted at its first decision's
delay plus that grace instead of losing on time, and the abort (``"reason": "no_first_decision"``)
names the seat, in its command (``"seat"``) and in ``match_ended`` (``"undecided"``). Documents of
formats 1 to 3 have no such setting and are replayed with the rule off, since it did not exist when
they were written. Format 3 adds each seat's ``account``: whether its player was an account when it
took the seat, since a match is rated only between two accounts (PROTOCOL.md "Players: profiles,
ratings and archives"). Format 2 is format 3 without ``account``, its matches rated under the policy
of its time, which did not ask for accounts. Format 1 (the first release) is format 2 without
``received_ms``: such documents are still read, and a version without it (or with null, for versions
stored before format 2) has it inferred from the clock readings when replayed. Documents are always
written in format 4.

The header's ``ended_at_ms`` is its last version's ``wall_ms`` from format 2 on: the server reads
the wall clock once for both. Release 0.1.0, which wrote format 1, read it twice while it applied
a match's last version: first for the header, from the code that saw the match end, then, a
moment later and with no I/O or wait between, for the version itself; each read floored to the
millisecond (``time_ns() // 1_000_000``). So a format-1 header's end is never after its last
version's wall time and is mostly equal to it or a millisecond before (the two reads straddled a
millisecond), more only if the process was paused between the two reads. A format-1 end is
therefore held to that order only: at most the last version's ``wall_ms``
(:data:`ENDED_WITH_LAST_VERSION_SINCE`), and, as in every format, no earlier than
``created_at_ms``. An import stores the last version's ``wall_ms`` as the match's end, so that its
export, in the current format, says the same of itself.

This module checks the shape — every field of the format and no other, at every level, each
number an integer that a database holds (times never negative, wall times before the year 10000).
:func:`spectacular_bid.service.replay.verify` checks a record's own consistency — the whole replay
through the engine and its header's times — for ``specbid replay --verify``, ``POST
/api/records/verify`` and ``POST /api/records`` alike, so that a record that verifies imports.
What an import asks beyond that is not about the record but about this server, and is a step of
its own, :func:`admission`: settings within the ranges this server allows its own matches (R7.1,
R7.2, D3, D7); the verify answers report it too.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Final

from spectacular_bid.service.ports import JSON, EventRecord, MatchMode, MatchStatus

FORMAT: Final = "spectacular-bid/match-record"
FORMAT_VERSION: Final = 4
READABLE_VERSIONS: Final = (1, 2, 3, 4)
ACCOUNTS_SINCE: Final = 3
"""The first format whose seats say whether they were accounts (and whose rated policy asks)."""
ENDED_WITH_LAST_VERSION_SINCE: Final = 2
"""The first format whose header's ``ended_at_ms`` is exactly its last version's ``wall_ms``; in
format 1 it is at most that (two reads of the wall clock, see the module docstring)."""
FIRST_DECISION_SINCE: Final = 4
"""The first format whose settings say whether D7 applied, and with what grace."""
FIRST_DECISION_GRACE: Final = "first_decision_grace_ms"
"""The settings key of D7's grace: an integer of ms, or null with the rule off."""
IMPORTED: Final = "imported"
"""The header settings key (and the document's match key) that marks an imported match."""
IMPORTED_ID: Final = "imported_id"
"""The document's match key of an imported match: the id its own document gave it."""
ENDED: Final = (MatchStatus.FINISHED, MatchStatus.ABORTED)
MATCH_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a record's match id may look like. An import never keeps it as the match's id (it gets
a fresh one, :func:`~spectacular_bid.service.records.new_match_id`), only as data, its
``imported_id``."""

MS_MAX: Final = 2**63 - 1
"""The latest monotonic time a record holds: a 64-bit integer, the store's ``BIGINT``."""
WALL_MS_MAX: Final = 253_402_300_799_999
"""The last millisecond of the year 9999 (UTC), the latest wall time a database timestamp holds:
no record, ``ended_at_ms`` cursor or import may name a later one."""
BANK_MS_MAX: Final = 3_600_000
"""The longest bank per seat a match here may have (R7.1): an hour."""
DELAY_MS_MAX: Final = 600_000
"""The longest delay per decision a match here may have (R7.2): ten minutes."""
GRACE_MS_MAX: Final = 86_400_000
"""The longest grace before a round deals anyway (D3): a day."""
JOIN_TIMEOUT_MS_MAX: Final = 86_400_000
"""The longest a match here waits for its second player (D3): a day."""
FIRST_DECISION_GRACE_MS_MAX: Final = 600_000
"""The longest grace after a first decision's delay (D7): ten minutes, as long as a delay."""
SETTING_RANGES: Final[dict[str, tuple[int, int]]] = {
    "bank_ms": (0, BANK_MS_MAX),
    "delay_ms": (0, DELAY_MS_MAX),
    "grace_ms": (1, GRACE_MS_MAX),
    "join_timeout_ms": (1, JOIN_TIMEOUT_MS_MAX),
}
"""Each setting of a match header and the range of it that this server allows for an import."""

_DOCUMENT_FIELDS: Final = frozenset({"format", "format_version", "match", "rounds", "versions"})
_MATCH_FIELDS: Final = frozenset(
    {
        "id",
        "mode",
        "settings",
        "status",
        "winner",
        "reason",
        "rated",
        "created_at_ms",
        "ended_at_ms",
        "players",
        IMPORTED,
        IMPORTED_ID,
    }
)
_SEATS: Final = ("first", "second")
_SEAT_FIELDS: Final = ("name", "account")
_ROUND_FIELDS: Final = frozenset({"number", "commitment", "salt", "deck"})
_VERSION_FIELDS: Final = frozenset(
    {"version", "seat", "command", "events", "wall_ms", "mono_ms", "received_ms", "clock"}
)
RELAYED: Final = "relayed_ms"
"""A version's optional field from format 4 on: how long its command spent in the relay between
server processes, charged to nobody (the clock audit); absent for every other version."""
RELAYED_SINCE: Final = 4


class RecordFormatError(ValueError):
    """A document that is not a match record of a known format; the message names the field."""


@dataclass(frozen=True, slots=True)
class MatchDocument:
    """A document whose shape :func:`parse_document` checked (its content is checked by
    :func:`spectacular_bid.service.replay.verify`)."""

    match: dict[str, Any]
    rounds: list[dict[str, Any]]
    versions: list[dict[str, Any]]
    format_version: int = FORMAT_VERSION
    """The format the document was written in (its rated policy depends on it)."""

    @property
    def id(self) -> str:
        match_id: str = self.match["id"]
        return match_id

    def name(self, seat: str) -> str | None:
        slot = self.match["players"].get(seat)
        return None if slot is None else str(slot["name"])

    def is_account(self, seat: str) -> bool:
        """Whether the seat's player was an account (always false before format 3)."""
        slot = self.match["players"].get(seat)
        return slot is not None and slot.get("account") is True

    def to_json(self) -> JSON:
        return {
            "format": FORMAT,
            "format_version": self.format_version,
            "match": self.match,
            "rounds": self.rounds,
            "versions": self.versions,
        }


# -- reading --------------------------------------------------------------------------------


def _expect(value: object, kind: type | tuple[type, ...], where: str, what: str) -> Any:
    is_bool = isinstance(value, bool)
    wants_bool = kind is bool or (isinstance(kind, tuple) and bool in kind)
    if not isinstance(value, kind) or (is_bool and not wants_bool):
        raise RecordFormatError(f"{where}: expected {what}, found {value!r:.80}")
    return value


def _field(data: dict[str, Any], key: str, where: str) -> Any:
    if key not in data:
        raise RecordFormatError(f"{where}: missing field {key!r}")
    return data[key]


def _only(data: dict[str, Any], fields: Collection[str], where: str) -> None:
    """Refuse a field the format does not have: nothing in a record goes unchecked."""
    for key, value in data.items():
        if key not in fields:
            raise RecordFormatError(f"{where}: unknown field {key!r:.80}, found {value!r:.80}")


def _ms(value: object, where: str, *, wall: bool, nullable: bool = False) -> int | None:
    """A time in ms: an integer, never negative, that the store holds — a wall time before the
    year 10000 (its timestamps), a monotonic one in 64 bits (its ``BIGINT``)."""
    if value is None and nullable:
        return None
    highest, unit = (WALL_MS_MAX, "ms since the Unix epoch") if wall else (MS_MAX, "ms")
    what = f"an integer from 0 to {highest} ({unit})"
    number: int = _expect(value, int, where, what)
    if not 0 <= number <= highest:
        raise RecordFormatError(f"{where}: expected {what}, found {number!r:.80}")
    return number


def parse_document(data: object) -> MatchDocument:
    """Check a document's shape — format, version, every field and its type, no other field —
    or raise :class:`RecordFormatError` naming the first field that is wrong and quoting it."""
    doc = _expect(data, dict, "document", "a JSON object")
    if doc.get("format") != FORMAT:
        raise RecordFormatError(
            f"format: expected {FORMAT!r}, found {doc.get('format')!r:.80}: not a match record"
        )
    version = doc.get("format_version")
    if type(version) is not int or version not in READABLE_VERSIONS:
        raise RecordFormatError(
            f"format_version: expected one of {list(READABLE_VERSIONS)}, found {version!r:.80}: "
            "this program reads only those versions"
        )
    _only(doc, _DOCUMENT_FIELDS, "document")
    match = _parse_header(_field(doc, "match", "document"), version)
    rounds = _parse_rounds(_field(doc, "rounds", "document"))
    versions = _parse_versions(_field(doc, "versions", "document"), version)
    return MatchDocument(match=match, rounds=rounds, versions=versions, format_version=version)


def _parse_header(data: object, version: int) -> dict[str, Any]:
    match: dict[str, Any] = _expect(data, dict, "match", "an object")
    _only(match, _MATCH_FIELDS, "match")
    _match_id(_field(match, "id", "match"), "match.id")
    mode = _expect(_field(match, "mode", "match"), str, "match.mode", "a string")
    if mode not in {m.value for m in MatchMode}:
        raise RecordFormatError(f"match.mode: expected a match mode, found {mode!r:.80}")
    status = _expect(_field(match, "status", "match"), str, "match.status", "a string")
    if status not in {s.value for s in ENDED}:
        raise RecordFormatError(
            f"match.status: expected 'finished' or 'aborted', found {status!r:.80}"
        )
    settings = _expect(_field(match, "settings", "match"), dict, "match.settings", "an object")
    d7 = version >= FIRST_DECISION_SINCE
    _only(
        settings,
        [*SETTING_RANGES, FIRST_DECISION_GRACE] if d7 else SETTING_RANGES,
        "match.settings",
    )
    for name in SETTING_RANGES:
        _ms(_field(settings, name, "match.settings"), f"match.settings.{name}", wall=False)
    if d7:
        grace = _field(settings, FIRST_DECISION_GRACE, "match.settings")
        _ms(grace, f"match.settings.{FIRST_DECISION_GRACE}", wall=False, nullable=True)
    _expect(_field(match, "winner", "match"), (str, type(None)), "match.winner", "a seat or null")
    _expect(_field(match, "reason", "match"), (str, type(None)), "match.reason", "a string")
    _expect(_field(match, "rated", "match"), bool, "match.rated", "true or false")
    _ms(_field(match, "created_at_ms", "match"), "match.created_at_ms", wall=True)
    ended = _field(match, "ended_at_ms", "match")
    _ms(ended, "match.ended_at_ms", wall=True, nullable=True)
    players = _expect(_field(match, "players", "match"), dict, "match.players", "an object")
    _only(players, _SEATS, "match.players")
    for seat in _SEATS:
        where = f"match.players.{seat}"
        slot = _expect(
            _field(players, seat, "match.players"), (dict, type(None)), where, "an object"
        )
        if slot is not None:
            _only(slot, _SEAT_FIELDS if version >= ACCOUNTS_SINCE else ("name",), where)
            _expect(_field(slot, "name", where), str, f"{where}.name", "a string")
            if version >= ACCOUNTS_SINCE:
                _expect(_field(slot, "account", where), bool, f"{where}.account", "true or false")
    _expect(match.get(IMPORTED, False), bool, f"match.{IMPORTED}", "true or false")
    imported_id = match.get(IMPORTED_ID)
    if imported_id is not None:
        _match_id(imported_id, f"match.{IMPORTED_ID}")
    return match


def _match_id(value: object, where: str) -> str:
    what = "a match id: 1 to 64 letters, digits, '_' or '-'"
    match_id: str = _expect(value, str, where, what)
    if not MATCH_ID.fullmatch(match_id):
        raise RecordFormatError(f"{where}: expected {what}, found {match_id!r:.80}")
    return match_id


def _parse_rounds(data: object) -> list[dict[str, Any]]:
    rounds: list[dict[str, Any]] = _expect(data, list, "rounds", "a list")
    for i, item in enumerate(rounds):
        where = f"rounds[{i}]"
        _expect(item, dict, where, "an object")
        _only(item, _ROUND_FIELDS, where)
        _expect(_field(item, "number", where), int, f"{where}.number", "an integer")
        _expect(_field(item, "commitment", where), str, f"{where}.commitment", "a string")
        _expect(_field(item, "salt", where), (str, type(None)), f"{where}.salt", "a string")
        deck = _expect(_field(item, "deck", where), (list, type(None)), f"{where}.deck", "a list")
        for j, tile in enumerate(deck or ()):
            _expect(tile, str, f"{where}.deck[{j}]", "a tile")
    return rounds


def _parse_versions(data: object, version: int) -> list[dict[str, Any]]:
    """Each version's fields; what its command, events and clock say is the replay's to check
    (:func:`spectacular_bid.service.replay.verify`), against the machine's own."""
    versions: list[dict[str, Any]] = _expect(data, list, "versions", "a list")
    for i, item in enumerate(versions):
        where = f"versions[{i}]"
        _expect(item, dict, where, "an object")
        _only(item, _VERSION_FIELDS | ({RELAYED} if version >= RELAYED_SINCE else set()), where)
        _expect(_field(item, "version", where), int, f"{where}.version", "an integer")
        _expect(_field(item, "seat", where), (str, type(None)), f"{where}.seat", "a seat or null")
        _expect(_field(item, "command", where), dict, f"{where}.command", "an object")
        _expect(_field(item, "events", where), list, f"{where}.events", "a list")
        _ms(_field(item, "wall_ms", where), f"{where}.wall_ms", wall=True)
        _ms(_field(item, "mono_ms", where), f"{where}.mono_ms", wall=False)
        # Format 1 has no received_ms; one that a format-1 document carries is checked all the
        # same (the replay uses it).
        received = _field(item, "received_ms", where) if version >= 2 else item.get("received_ms")
        _ms(received, f"{where}.received_ms", wall=False, nullable=True)
        if RELAYED in item:
            _ms(item[RELAYED], f"{where}.{RELAYED}", wall=False)
        _field(item, "clock", where)
    return versions


@dataclass(frozen=True, slots=True)
class NotAdmitted:
    """A record this server does not import although it may verify: ``field`` (its path in the
    document) is outside ``lowest`` to ``highest``, what this server allows its own matches."""

    field: str
    lowest: int
    highest: int
    found: object

    def __str__(self) -> str:
        return (
            f"{self.field}: expected {self.lowest} to {self.highest} ms, what this server "
            f"allows, found {self.found!r:.80}"
        )


class NotAdmittedError(ValueError):
    """An import refused by :func:`admission`; ``refusal`` says which setting and why."""

    def __init__(self, refusal: NotAdmitted) -> None:
        super().__init__(str(refusal))
        self.refusal = refusal


def admission(document: MatchDocument) -> NotAdmitted | None:
    """What this server asks of a record it imports beyond the record's own consistency, or None
    when it asks nothing more: each setting in the range it allows its own matches
    (:data:`SETTING_RANGES`: R7.1, R7.2, D3; D7's grace up to
    :data:`FIRST_DECISION_GRACE_MS_MAX`, or null with the rule off). A record refused here may
    still verify; ``specbid replay --verify`` and ``POST /api/records/verify`` say so."""
    settings = document.match["settings"]
    ranges = {**SETTING_RANGES, FIRST_DECISION_GRACE: (0, FIRST_DECISION_GRACE_MS_MAX)}
    for name, (lowest, highest) in ranges.items():
        value = settings.get(name)
        if value is None and name == FIRST_DECISION_GRACE:
            continue  # D7 off, as for every document before format 4
        if not lowest <= value <= highest:
            return NotAdmitted(f"match.settings.{name}", lowest, highest, value)
    return None


def version_of(record: EventRecord) -> dict[str, Any]:
    """A stored version in the shape of a record document's ``versions`` item (``relayed_ms``
    only where the command was relayed)."""
    version = {
        "version": record.version,
        "seat": record.seat,
        "command": record.command,
        "events": record.events,
        "wall_ms": record.wall_ms,
        "mono_ms": record.mono_ms,
        "received_ms": record.received_ms,
        "clock": record.clock,
    }
    if record.relayed_ms is not None:
        version[RELAYED] = record.relayed_ms
    return version
