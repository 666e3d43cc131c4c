"""Building a match record from stored rows, and the rows for importing one (D4).

The document itself — its format, its shape and what this server allows of an import — is
:mod:`spectacular_bid.service.record_document`'s; this module is where it meets the store's port:
:func:`read_document` serves an ended match's record (never a live one's), and
:func:`records_for_import` turns a checked document into rows of a match that is marked imported,
gets an id of this server's own form (:func:`new_match_id`) and is never rated here.
"""

from __future__ import annotations

import secrets
import string
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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
from spectacular_bid.service.record_document import (
    ENDED,
    FIRST_DECISION_GRACE,
    IMPORTED,
    IMPORTED_ID,
    RELAYED,
    MatchDocument,
    RecordFormatError,
    version_of,
)
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.seat_names import SEAT_NAMES, checked_names, names_in, names_setting

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
    version and its round row). Its end is its last version's ``wall_ms``: the same value the
    server stores in both since format 2, and the one a match stored by release 0.1.0, whose
    header may say a millisecond or so earlier (``record_document``), verifies by."""
    by_number = {r.number: r for r in rounds_from_events(header.id, events)}
    by_number.update({r.number: r for r in rounds})
    settings = dict(header.settings) if isinstance(header.settings, Mapping) else header.settings
    imported = isinstance(settings, dict) and bool(settings.pop(IMPORTED, False))
    typed = names_in(settings)  # a shared device's two players name its seats in the record
    if isinstance(settings, dict):
        settings.pop(SEAT_NAMES, None)
        # A match stored before D7 (or imported from a document before format 4) ran without
        # it: the current format says so with null.
        settings.setdefault(FIRST_DECISION_GRACE, None)
    players = _seats(header, names, typed)
    match: dict[str, Any] = {
        "id": header.id,
        "mode": header.mode.value,
        "settings": settings,
        "status": header.status.value,
        "winner": header.winner,
        "reason": header.reason,
        "rated": header.rated,
        "created_at_ms": header.created_at_ms,
        "ended_at_ms": events[-1].wall_ms if events else header.ended_at_ms,
        "players": players,
    }
    if imported:
        match[IMPORTED] = True
        match[IMPORTED_ID] = header.imported_id
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
        versions=[version_of(e) for e in events],
    )


def _seats(
    header: MatchRecord, names: Mapping[str, str], typed: tuple[str, str] | None
) -> dict[str, JSON]:
    """Each seat's player as a record names it: its name (on a shared device, the one typed for
    the seat), and whether it was an account."""
    seats = (
        ("first", header.first_player, header.first_account, typed[0] if typed else None),
        ("second", header.second_player, header.second_account, typed[1] if typed else None),
    )
    return {
        seat: None
        if player_id is None
        else {"name": shown or names.get(player_id, "?"), "account": account}
        for seat, player_id, account, shown in seats
    }


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
    """Rows for storing ``document`` as match ``match_id``, by default a fresh id of this server's
    own form: never the document's, which is only data here (its ``imported_id``), so that no
    record picks an id (``-rf``, ``null``, another match's). Its players become new guests whose
    token nobody holds; the match is marked imported and is not rated here, whatever the document
    says. It ended with its last version, whose ``wall_ms`` is its end here: a format-1 header
    may say a millisecond or so earlier (``record_document``), and the match's own export, in the
    current format, must say what it verifies by."""
    if match_id is None:
        match_id = new_match_id()
    header = document.match
    ended_at_ms = header["ended_at_ms"]
    if document.versions:
        ended_at_ms = document.versions[-1]["wall_ms"]
    elif ended_at_ms is None:
        ended_at_ms = now_wall_ms
    players, seats = _imported_players(document, now_wall_ms)
    record = MatchRecord(
        id=match_id,
        mode=MatchMode(header["mode"]),
        settings={**header["settings"], **names_setting(_typed_names(document)), IMPORTED: True},
        first_player=seats["first"],
        second_player=seats["second"],
        status=MatchStatus(header["status"]),
        winner=header["winner"],
        reason=header["reason"],
        rated=False,
        created_at_ms=header["created_at_ms"],
        ended_at_ms=ended_at_ms,
        imported_id=document.id,
        first_account=document.is_account("first"),
        second_account=document.is_account("second"),
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
            relayed_ms=v.get(RELAYED),
        )
        for v in document.versions
    ]
    return ImportedRecord(players, record, rounds, events)


def _typed_names(document: MatchDocument) -> tuple[str, str] | None:
    """A shared-device record's two names, kept when they are two (``service.seat_names``)."""
    first, second = document.name("first"), document.name("second")
    if document.match["mode"] != MatchMode.SHARED.value or not first or not second:
        return None
    try:
        return checked_names(first, second)
    except DisplayNameError:
        return None  # the same name twice: the device's own


def _imported_players(
    document: MatchDocument, now_wall_ms: int
) -> tuple[list[PlayerRecord], dict[str, str | None]]:
    """The new guests that ``document``'s named seats become (one for both seats of a shared
    match: one device held them), and the player id of each seat, None for an empty one."""
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
    return players, seats


_ID_ALPHABET = string.ascii_letters + string.digits


def new_match_id() -> str:
    """12 random letters and digits (71 bits): unguessable, URL-safe, and never starting with a
    dash that a command line would take for an option (``specbid replay ID``)."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(12))
