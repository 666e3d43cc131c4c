"""The match record as a versioned JSON document: what ``GET /api/matches/{id}/record`` serves,
``specbid replay --export`` writes, and ``POST /api/records`` / ``specbid replay FILE`` read (D4).

```
{"format": "spectacular-bid/match-record", "format_version": 2,
 "match": {"id", "mode", "settings", "status", "winner", "reason", "rated", "created_at_ms",
           "ended_at_ms", "players": {"first": {"name"} | null, "second": …}},
 "rounds": [{"number", "commitment", "salt", "deck"}, …],
 "versions": [{"version", "seat", "command", "events", "wall_ms", "mono_ms", "received_ms",
               "clock"}, …]}
```

``versions`` is the event log exactly as stored: each version's engine command (a deal's with its
``salt``), every event unfiltered plus the service's own (``deck_committed``, ``deck_revealed``,
``seat_taken``, ``ready``, ``revealed``), the server's wall and monotonic time, and the clock
reading after it; ``received_ms`` is when the server received the command, the time its clock
charge was taken at (R7.7). ``rounds`` are the deck commitments and their reveals. A match
imported from such a document carries ``"imported": true`` in its header and is never rated here.

Format 1 (the first release) is format 2 without ``received_ms``: such documents are still read,
and a version without it (or with null, for versions stored before format 2) has it inferred from
the clock readings when replayed. Documents are always written in format 2.

This module only builds and checks the shape; :mod:`spectacular_bid.service.replay` re-runs a
document through the engine.
"""

from __future__ import annotations

import re
import secrets
import string
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from spectacular_bid.service.guests import DisplayNameError, clean_name, token_hash
from spectacular_bid.service.ports import (
    JSON,
    EventRecord,
    MatchMode,
    MatchRecord,
    MatchStatus,
    MatchStore,
    PlayerRecord,
    RoundRecord,
)
from spectacular_bid.service.refusals import ErrorCode, Rejection

FORMAT: Final = "spectacular-bid/match-record"
FORMAT_VERSION: Final = 2
READABLE_VERSIONS: Final = (1, 2)
IMPORTED: Final = "imported"
"""The header settings key (and the document's match key) that marks an imported match."""
ENDED: Final = (MatchStatus.FINISHED, MatchStatus.ABORTED)
MATCH_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What an imported match id may look like; any other gets a fresh id."""


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

    def to_json(self) -> JSON:
        return {
            "format": FORMAT,
            "format_version": self.format_version,
            "match": self.match,
            "rounds": self.rounds,
            "versions": self.versions,
        }


# -- building -------------------------------------------------------------------------------


def rounds_from_events(match_id: str, events: Sequence[EventRecord]) -> list[RoundRecord]:
    """Each round's commitment and reveal as the event log published them. A reveal of a round
    committed outside ``events`` (a single version's events) names its own commitment."""
    found: dict[int, RoundRecord] = {}
    for record in events:
        for event in record.events:
            kind = event.get("type") if isinstance(event, Mapping) else None
            if kind == "deck_committed":
                found[event["round"]] = RoundRecord(match_id, event["round"], event["commitment"])
            elif kind == "deck_revealed":
                committed = found.get(event["round"])
                commitment = committed.commitment if committed else event.get("commitment")
                if isinstance(commitment, str):
                    found[event["round"]] = RoundRecord(
                        match_id, event["round"], commitment, event["salt"], event["deck"]
                    )
    return [found[n] for n in sorted(found)]


def build_document(
    header: MatchRecord,
    names: Mapping[str, str],
    rounds: Sequence[RoundRecord],
    events: Sequence[EventRecord],
) -> MatchDocument:
    """The document of an ended match. ``names`` maps player ids to display names; ``rounds`` are
    the stored rounds, completed from the event log where a row is missing (a crash between a
    version and its round row)."""
    by_number = {r.number: r for r in rounds_from_events(header.id, events)}
    by_number.update({r.number: r for r in rounds})
    settings = dict(header.settings) if isinstance(header.settings, Mapping) else header.settings
    imported = isinstance(settings, dict) and bool(settings.pop(IMPORTED, False))
    players = {
        seat: None if player_id is None else {"name": names.get(player_id, "?")}
        for seat, player_id in (("first", header.first_player), ("second", header.second_player))
    }
    match: dict[str, Any] = {
        "id": header.id,
        "mode": header.mode.value,
        "settings": settings,
        "status": header.status.value,
        "winner": header.winner,
        "reason": header.reason,
        "rated": header.rated,
        "created_at_ms": header.created_at_ms,
        "ended_at_ms": header.ended_at_ms,
        "players": players,
    }
    if imported:
        match[IMPORTED] = True
    return MatchDocument(
        match=match,
        rounds=[
            {
                "number": r.number,
                "commitment": r.commitment,
                "salt": r.salt,
                "deck": None if r.deck is None else list(r.deck),
            }
            for r in (by_number[n] for n in sorted(by_number))
        ],
        versions=[
            {
                "version": e.version,
                "seat": e.seat,
                "command": e.command,
                "events": e.events,
                "wall_ms": e.wall_ms,
                "mono_ms": e.mono_ms,
                "received_ms": e.received_ms,
                "clock": e.clock,
            }
            for e in events
        ],
    )


async def read_document(store: MatchStore, match_id: str) -> MatchDocument:
    """The stored record of an ended match; a live match's record is never served (D4)."""
    header = await store.match(match_id)
    if header is None:
        raise Rejection(ErrorCode.NOT_FOUND, f"no match {match_id!r}")
    if header.status not in ENDED:
        raise Rejection(
            ErrorCode.WRONG_PHASE,
            f"match {match_id!r} is {header.status.value}: its record is public once it ends (D4)",
        )
    ids = [p for p in (header.first_player, header.second_player) if p is not None]
    players = await store.players(ids)
    names = {player_id: p.name for player_id, p in players.items()}
    events = await store.events(match_id)
    return build_document(header, names, await store.rounds(match_id), events)


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


def parse_document(data: object) -> MatchDocument:
    """Check a document's shape — format, version, types of every field — or raise
    :class:`RecordFormatError` naming the first field that is wrong."""
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
    match = _parse_header(_field(doc, "match", "document"))
    rounds = _parse_rounds(_field(doc, "rounds", "document"))
    versions = _parse_versions(_field(doc, "versions", "document"), version)
    return MatchDocument(match=match, rounds=rounds, versions=versions, format_version=version)


def _parse_header(data: object) -> dict[str, Any]:
    match: dict[str, Any] = _expect(data, dict, "match", "an object")
    _expect(_field(match, "id", "match"), str, "match.id", "a string")
    mode = _expect(_field(match, "mode", "match"), str, "match.mode", "a string")
    if mode not in {m.value for m in MatchMode}:
        raise RecordFormatError(f"match.mode: expected a match mode, found {mode!r:.80}")
    status = _expect(_field(match, "status", "match"), str, "match.status", "a string")
    if status not in {s.value for s in ENDED}:
        raise RecordFormatError(
            f"match.status: expected 'finished' or 'aborted', found {status!r:.80}"
        )
    _expect(_field(match, "settings", "match"), dict, "match.settings", "an object")
    _expect(_field(match, "winner", "match"), (str, type(None)), "match.winner", "a seat or null")
    _expect(_field(match, "reason", "match"), (str, type(None)), "match.reason", "a string")
    _expect(_field(match, "rated", "match"), bool, "match.rated", "true or false")
    _expect(_field(match, "created_at_ms", "match"), int, "match.created_at_ms", "an integer")
    ended = _field(match, "ended_at_ms", "match")
    _expect(ended, (int, type(None)), "match.ended_at_ms", "an integer")
    players = _expect(_field(match, "players", "match"), dict, "match.players", "an object")
    for seat in ("first", "second"):
        slot = _expect(players.get(seat), (dict, type(None)), f"match.players.{seat}", "an object")
        if slot is not None:
            name = _field(slot, "name", f"match.players.{seat}")
            _expect(name, str, f"match.players.{seat}.name", "a string")
    return match


def _parse_rounds(data: object) -> list[dict[str, Any]]:
    rounds: list[dict[str, Any]] = _expect(data, list, "rounds", "a list")
    for i, item in enumerate(rounds):
        where = f"rounds[{i}]"
        _expect(item, dict, where, "an object")
        _expect(_field(item, "number", where), int, f"{where}.number", "an integer")
        _expect(_field(item, "commitment", where), str, f"{where}.commitment", "a string")
        _expect(_field(item, "salt", where), (str, type(None)), f"{where}.salt", "a string")
        deck = _expect(_field(item, "deck", where), (list, type(None)), f"{where}.deck", "a list")
        for j, tile in enumerate(deck or ()):
            _expect(tile, str, f"{where}.deck[{j}]", "a tile")
    return rounds


def _parse_versions(data: object, version: int) -> list[dict[str, Any]]:
    versions: list[dict[str, Any]] = _expect(data, list, "versions", "a list")
    for i, item in enumerate(versions):
        where = f"versions[{i}]"
        _expect(item, dict, where, "an object")
        _expect(_field(item, "version", where), int, f"{where}.version", "an integer")
        _expect(_field(item, "seat", where), (str, type(None)), f"{where}.seat", "a seat or null")
        _expect(_field(item, "command", where), dict, f"{where}.command", "an object")
        _expect(_field(item, "events", where), list, f"{where}.events", "a list")
        _expect(_field(item, "wall_ms", where), int, f"{where}.wall_ms", "an integer")
        _expect(_field(item, "mono_ms", where), int, f"{where}.mono_ms", "an integer")
        if version >= 2:
            received = _field(item, "received_ms", where)
            _expect(received, (int, type(None)), f"{where}.received_ms", "an integer or null")
        _field(item, "clock", where)
    return versions


# -- importing ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImportedRecord:
    """What :meth:`MatchStore.import_match` stores for a document."""

    players: list[PlayerRecord]
    match: MatchRecord
    rounds: list[RoundRecord]
    events: list[EventRecord]


def records_for_import(
    document: MatchDocument, match_id: str | None, now_wall_ms: int
) -> ImportedRecord:
    """Rows for storing ``document`` as match ``match_id`` (by default its own id, when that is
    a well-formed id). Its players become new guests whose token nobody holds; the match is
    marked imported and is not rated here, whatever the document says."""
    if match_id is None:
        match_id = document.id if MATCH_ID.fullmatch(document.id) else new_match_id()
    header = document.match
    seats: dict[str, str | None] = {}
    players: list[PlayerRecord] = []
    for seat in ("first", "second"):
        name = document.name(seat)
        if name is None:
            seats[seat] = None
            continue
        try:
            cleaned = clean_name(name)
        except DisplayNameError as exc:
            raise RecordFormatError(f"match.players.{seat}.name: {exc}") from None
        if seat == "second" and header["mode"] == MatchMode.SHARED.value and players:
            seats[seat] = players[0].id  # one device held both seats: one player
            continue
        player = PlayerRecord(
            uuid.uuid4().hex, cleaned, token_hash(secrets.token_urlsafe(32)), now_wall_ms
        )
        players.append(player)
        seats[seat] = player.id
    record = MatchRecord(
        id=match_id,
        mode=MatchMode(header["mode"]),
        settings={**header["settings"], IMPORTED: True},
        first_player=seats["first"],
        second_player=seats["second"],
        status=MatchStatus(header["status"]),
        winner=header["winner"],
        reason=header["reason"],
        rated=False,
        created_at_ms=header["created_at_ms"],
        ended_at_ms=header["ended_at_ms"] if header["ended_at_ms"] is not None else now_wall_ms,
    )
    rounds = [
        RoundRecord(match_id, r["number"], r["commitment"], r["salt"], r["deck"])
        for r in document.rounds
    ]
    events = [
        EventRecord(
            match_id=match_id,
            version=v["version"],
            seat=v["seat"],
            command=v["command"],
            events=v["events"],
            wall_ms=v["wall_ms"],
            mono_ms=v["mono_ms"],
            clock=v["clock"],
            received_ms=v.get("received_ms"),
        )
        for v in document.versions
    ]
    return ImportedRecord(players, record, rounds, events)


_ID_ALPHABET = string.ascii_letters + string.digits


def new_match_id() -> str:
    """12 random letters and digits (71 bits): unguessable, URL-safe, and never starting with a
    dash that a command line would take for an option (``specbid replay ID``)."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(12))
