"""Ended matches: the paginated list, each one's full record, and importing a record (D4).

- ``GET /api/matches?status=finished&limit=20&before=CURSOR``: ended matches, newest first;
- ``GET /api/matches/{id}/record``: the versioned record document of an ended match — never of
  a live one (D4: it holds every hand and deck);
- ``POST /api/records``: a record document, verified through the engine and stored, so that it
  can be read and replayed here too;
- ``POST /api/records/verify``: a record document checked exactly as ``specbid replay --verify``
  and the import check it (:func:`~spectacular_bid.service.replay.check_record`), and nothing
  stored: the replay viewer's "Verify" button, for a match's own record or a file the person
  chooses.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Annotated, Final, Literal
from urllib.parse import quote

from fastapi import APIRouter, Query, Request, Response, status

from spectacular_bid.service.computer import level_of
from spectacular_bid.service.discrepancy import RecordMismatchError
from spectacular_bid.service.listings import EndedMatch
from spectacular_bid.service.ports import MatchMode, MatchStatus, StorageError
from spectacular_bid.service.record_document import (
    WALL_MS_MAX,
    NotAdmittedError,
    RecordFormatError,
)
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.replay import CheckedRecord, Verified, check_record
from spectacular_bid.web.appstate import Service
from spectacular_bid.web.errors import responses
from spectacular_bid.web.http_limits import RecordLimit
from spectacular_bid.web.identity import CurrentPlayer
from spectacular_bid.web.json_body import StrictJsonRoute, strict_json
from spectacular_bid.web.notation import SeatName, WireModel
from spectacular_bid.web.replay_frames import replay_frames

router = APIRouter(tags=["replays"], route_class=StrictJsonRoute)

PAGE_MAX: Final = 100
RECORD_MAX_BYTES: Final = 4 * 1024 * 1024
"""The largest record document accepted for import (some 8,000 versions)."""

EndedStatus = Literal["finished", "aborted"]
_SEAT_NAMES: Final[dict[str, SeatName]] = {"first": "first", "second": "second"}


class EndedMatchLine(WireModel):
    id: str
    mode: MatchMode
    status: MatchStatus
    first: str | None
    """The first seat's display name."""
    second: str | None
    first_profile: str | None
    """The first seat's player's profile page (``/@/…``); null for an empty seat."""
    second_profile: str | None
    winner: SeatName | None
    reason: str | None
    rated: bool
    imported: bool
    """True for a match stored from an imported record (never rated here)."""
    created_at_ms: int
    ended_at_ms: int
    """Wall-clock ms since the Unix epoch."""
    record_url: str
    bot_level: int | None = None
    """The level (1-5) of the computer in the second seat; null against a person (PROTOCOL.md "POST
    /api/matches")."""
    first_rating_change: float | None = None
    """A rated match's change to the first seat's rating, as stored with its end (after less
    before); null for an unrated match."""
    second_rating_change: float | None = None


class EndedMatchPage(WireModel):
    matches: list[EndedMatchLine]
    """Newest first (by ``ended_at_ms``, then id)."""
    next: str | None
    """The ``before`` cursor of the next page; null on the last page."""


class ImportedRecord(WireModel):
    id: str
    """The match's id here: always a fresh one of this server's own form."""
    imported_id: str
    """The id the record document gave the match, kept as data (the record of the match here
    says it too, as ``match.imported_id``)."""
    versions: int
    rounds: int
    record_url: str


class RecordDiscrepancy(WireModel):
    """The first place a record differs from its replay through the engine."""

    where: str
    """``version 12``, ``round 2`` or ``match``."""
    version: int | None
    """The version it is in; null when it is in a round or the header."""
    field: str
    """The field that differs: ``events``, ``clock``, ``commitment``, ``winner``…"""
    path: str | None
    """The field's path in the document, as a format error names one: ``versions[40].mono_ms``,
    ``rounds[1].deck[5]``, ``match.ended_at_ms``; null for no single field."""
    expected: str
    """What the engine gives there, as ``specbid replay --verify`` prints it."""
    found: str
    """What the record says."""
    message: str
    """The whole line ``specbid replay --verify`` prints after ``FAILED {id}:``."""


class RecordCheck(WireModel):
    verified: bool
    """True when every event, balance, command, time, clock reading, deck commitment and the
    result are what the engine gives."""
    match_id: str
    """The id the document gives its match."""
    versions: int | None
    """The versions re-run; null unless verified."""
    rounds: int | None
    winner: SeatName | None
    reason: str | None
    discrepancy: RecordDiscrepancy | None
    """The first difference; null when verified."""
    importable: bool
    """True when ``POST /api/records`` on this server stores it: it verifies and this server
    admits it."""
    import_refusal: str | None
    """Why this server's import refuses it although it may verify (a setting outside the range
    this server allows its own matches, with that range), as the import says it after ``this
    server does not import it:``; null when it asks nothing more."""


def record_url(match_id: str) -> str:
    return f"/api/matches/{match_id}/record"


def cursor_text(cursor: tuple[int, str]) -> str:
    return f"{cursor[0]}.{cursor[1]}"


CURSOR: Final = re.compile(r"([0-9]{1,15})\.([A-Za-z0-9_-]{1,64})")
"""``ENDED_AT_MS.ID``, as :func:`cursor_text` writes it: ASCII digits (``str.isdigit`` takes
``²`` too) and a match id's characters (PostgreSQL refuses a NUL in text)."""


def parse_cursor(text: str) -> tuple[int, str]:
    """The ``(ended_at_ms, id)`` of a page cursor, or a ``bad_message`` refusal quoting it: a
    time no stored match can have ended at (past the year 9999, beyond what a database
    timestamp holds) is refused here, never handed to the store."""
    found = CURSOR.fullmatch(text)
    if found is None or int(found[1]) > WALL_MS_MAX:
        raise Rejection(
            ErrorCode.BAD_MESSAGE,
            f"before must be a cursor from a previous page, not {text!r:.100}",
        )
    return int(found[1]), found[2]


@router.get(
    "/api/matches",
    response_model=EndedMatchPage,
    responses=responses(ErrorCode.BAD_MESSAGE),
)
async def list_ended_matches(
    service: Service,
    status_: Annotated[list[EndedStatus] | None, Query(alias="status")] = None,
    limit: Annotated[int, Query(ge=1, le=PAGE_MAX)] = 20,
    before: Annotated[str | None, Query(max_length=200)] = None,
) -> EndedMatchPage:
    """Ended matches, newest first: ``status`` ``finished`` and/or ``aborted`` (both when
    omitted), ``limit`` per page, and ``before`` the previous page's ``next`` cursor."""
    statuses = [MatchStatus(s) for s in dict.fromkeys(status_ or ["finished", "aborted"])]
    cursor = parse_cursor(before) if before is not None else None
    return ended_page(await service.ended_matches(statuses, limit + 1, cursor), limit)


def profile_url(handle: str | None) -> str | None:
    return None if handle is None else profile_path(handle)


def profile_path(handle: str) -> str:
    return f"/@/{quote(handle, safe='')}"


def ended_page(found: list[EndedMatch], limit: int) -> EndedMatchPage:
    """A page of ``limit`` lines from ``found``, which holds one more when a next page exists."""
    page = found[:limit]
    return EndedMatchPage(
        matches=[
            EndedMatchLine(
                id=m.id,
                mode=MatchMode(m.mode),
                status=MatchStatus(m.status),
                first=m.first,
                second=m.second,
                first_profile=profile_url(m.first_handle),
                second_profile=profile_url(m.second_handle),
                winner=_SEAT_NAMES.get(m.winner or ""),
                reason=m.reason,
                rated=m.rated,
                imported=m.imported,
                created_at_ms=m.created_at_ms,
                ended_at_ms=m.ended_at_ms,
                record_url=record_url(m.id),
                bot_level=m.bot_level,
                first_rating_change=_rounded(m.first_change),
                second_rating_change=_rounded(m.second_change),
            )
            for m in page
        ],
        next=cursor_text(page[-1].cursor) if len(found) > limit else None,
    )


def _rounded(change: float | None) -> float | None:
    return None if change is None else round(change, 2)


@router.get(
    "/api/matches/{match_id}/record",
    responses=responses(ErrorCode.NOT_FOUND, ErrorCode.WRONG_PHASE),
)
async def read_record(match_id: str, service: Service) -> Response:
    """The full record of an ended match as a versioned JSON document (``format``
    ``spectacular-bid/match-record``, ``format_version`` 2). ``409 wrong_phase`` while the
    match is live: its record holds every hand (D4)."""
    document = await service.record(match_id)
    body = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
    return Response(body, media_type="application/json")


@router.get(
    "/api/matches/{match_id}/replay",
    responses=responses(ErrorCode.NOT_FOUND, ErrorCode.WRONG_PHASE),
)
async def read_replay(match_id: str, service: Service) -> Response:
    """The replay viewer's frames of an ended match: for every version its label, events, clock
    reading and the whole view with both hands (everything is public once it ends, D4). The
    server re-runs the engine so the browser needs no rules."""
    document = await service.document(match_id)
    stored = await service.store.match(match_id)
    bot_level = level_of(stored.second_player) if stored is not None else None
    # Off the event loop: re-running a long match takes a while, and the loop times clocks.
    frames = await asyncio.to_thread(replay_frames, document, bot_level)
    body = json.dumps(frames, separators=(",", ":"), ensure_ascii=False)
    return Response(body, media_type="application/json")


@router.post(
    "/api/records",
    status_code=status.HTTP_201_CREATED,
    response_model=ImportedRecord,
    responses=responses(
        ErrorCode.UNAUTHORIZED,
        ErrorCode.BAD_MESSAGE,
        ErrorCode.TOO_LARGE,
        ErrorCode.RATE_LIMITED,
        ErrorCode.STORAGE_FAILED,
    ),
)
async def import_record(
    request: Request, _limit: RecordLimit, _player: CurrentPlayer, service: Service
) -> ImportedRecord:
    """Import a record document: it is checked exactly as ``specbid replay --verify`` checks it
    (every event, balance, command, time and clock reading re-run through the engine, and the
    header's times) and refused with ``422 bad_message`` naming the first discrepancy, as is a
    field the format does not have, a number no record holds, or settings this server does not
    allow. The match gets a fresh id here; the record's own is kept as ``imported_id``."""
    data = await _record_body(request)
    try:
        match_id, verified = await service.import_record(data)
    except RecordFormatError as exc:
        raise Rejection(ErrorCode.BAD_MESSAGE, f"not a match record: {exc}") from None
    except NotAdmittedError as exc:
        raise Rejection(ErrorCode.BAD_MESSAGE, f"this server does not import it: {exc}") from None
    except RecordMismatchError as exc:
        raise Rejection(ErrorCode.BAD_MESSAGE, f"the record does not verify: {exc}") from None
    except StorageError as exc:
        raise Rejection(ErrorCode.STORAGE_FAILED, f"the record was not stored: {exc}") from None
    return ImportedRecord(
        id=match_id,
        imported_id=verified.match_id,  # the document's own id
        versions=verified.versions,
        rounds=verified.rounds,
        record_url=record_url(match_id),
    )


_RECORD_BODY: Final = {
    "requestBody": {
        "required": True,
        "description": "A match record document (``GET /api/matches/{id}/record``), as JSON.",
        "content": {"application/json": {"schema": {"type": "object"}}},
    }
}
"""The body is read raw (to bound its size as it arrives), so it is documented here."""


@router.post(
    "/api/records/verify",
    response_model=RecordCheck,
    responses=responses(ErrorCode.BAD_MESSAGE, ErrorCode.TOO_LARGE, ErrorCode.RATE_LIMITED),
    openapi_extra=_RECORD_BODY,
)
async def verify_record(request: Request, _limit: RecordLimit) -> RecordCheck:
    """Check a record document as ``specbid replay --verify`` and the import do — re-run
    through the match machine, every event, balance, command, time, clock reading, deck
    commitment, the result and the header's times compared — and store nothing: ``verified``
    with what was checked, or the first discrepancy (its version, field, path, what the engine
    expected and what the record holds), and whether this server's import would store it. A
    document that is no match record of a known format is ``422 bad_message``, as the command
    line's error."""
    data = await _record_body(request)
    try:
        # Off the event loop: re-running a long match takes a while, and the loop times clocks.
        checked = await asyncio.to_thread(check_record, data)
    except RecordFormatError as exc:
        raise Rejection(ErrorCode.BAD_MESSAGE, f"not a match record: {exc}") from None
    return record_check(checked)


def record_check(checked: CheckedRecord) -> RecordCheck:
    """The answer of ``POST /api/records/verify`` for a checked record."""
    refusal = None if checked.not_admitted is None else str(checked.not_admitted)
    found = checked.outcome
    if isinstance(found, Verified):
        return RecordCheck(
            verified=True,
            match_id=checked.document.id,
            versions=found.versions,
            rounds=found.rounds,
            winner=_SEAT_NAMES.get(found.winner or ""),
            reason=found.reason,
            discrepancy=None,
            importable=checked.importable,
            import_refusal=refusal,
        )
    return RecordCheck(
        verified=False,
        match_id=checked.document.id,
        versions=None,
        rounds=None,
        winner=None,
        reason=None,
        discrepancy=RecordDiscrepancy(
            where=found.where,
            version=_version_in(found.where),
            field=found.field,
            path=found.path,
            expected=found.expected_text,
            found=found.found_text,
            message=str(found),
        ),
        importable=False,
        import_refusal=refusal,
    )


_VERSION_PLACE: Final = re.compile(r"version ([0-9]+)")


def _version_in(where: str) -> int | None:
    found = _VERSION_PLACE.fullmatch(where)
    return int(found[1]) if found else None


async def _record_body(request: Request) -> object:
    """The request's body as JSON, at most :data:`RECORD_MAX_BYTES` (``413 too_large``); a
    refusal (not UTF-8, not JSON, a key twice, a lone surrogate) is a ``422 bad_message``."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > RECORD_MAX_BYTES:
        raise Rejection(ErrorCode.TOO_LARGE, f"a record has at most {RECORD_MAX_BYTES} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > RECORD_MAX_BYTES:
            raise Rejection(ErrorCode.TOO_LARGE, f"a record has at most {RECORD_MAX_BYTES} bytes")
    return await asyncio.to_thread(strict_json, bytes(body))
