"""Every WebSocket message, in both directions, as pydantic models (PROTOCOL.md "The WebSocket").

Client messages are parsed here: ``frame_decode.py`` turns a text frame into a JSON value
(refusing a key given twice and a lone surrogate, which json alone lets through),
:func:`parse_client_message` turns that value into a model or a :class:`Rejection` with
``unknown_type`` or ``bad_message``, and each command model gives the service's command
(``service/commands.py``, the one vocabulary from the wire to the machine).
Every command carries the ``version`` it was made against; a move made against any other is
refused as ``stale_version`` without effect (R8.3); Start and Reveal are presses, never stale.

Server messages are built as JSON text, never through these models at run time: ``frames.py``
writes ``state``, ``update`` and ``presence``, and the ``*_text`` builders below write ``ack``,
``error`` and ``pong``. The server models exist for the JSON Schema (``docs/protocol.schema.json``,
from :func:`protocol_schema`), the docs and the tests that validate real frames against them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field, RootModel, ValidationError
from pydantic.json_schema import models_json_schema

from spectacular_bid.rules.errors import NotationError
from spectacular_bid.rules.notation import parse_place, parse_seat, parse_tile
from spectacular_bid.rules.seats import Seat
from spectacular_bid.service.commands import (
    AcceptBid,
    DeclineBid,
    DrawTile,
    PlaceBid,
    PlayerCommand,
    PlayTile,
    ResignMatch,
    Reveal,
    Start,
)
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.web.chat_messages import ClientChat, ServerChat
from spectacular_bid.web.events import MatchEvent
from spectacular_bid.web.message_base import ClientMessageBase as _ClientMessage
from spectacular_bid.web.message_base import ServerMessageBase as _ServerMessage
from spectacular_bid.web.notation import BoolPair, PlaceText, SeatName, TileText
from spectacular_bid.web.snapshot import MatchSnapshot

# -- client → server ----------------------------------------------------------------------------


class _ClientCommand(_ClientMessage):
    version: int = Field(ge=0)
    """The match version the command was made against; a move made against any other is
    refused (stale_version). Start and Reveal are never stale: a press already in effect is
    acknowledged and changes nothing."""
    seat: SeatName | None = None
    """Which seat acts; needed only on a shared device, and there only when ambiguous."""

    def command(self) -> PlayerCommand:
        """The service's command; tiles and places are parsed here."""
        raise NotImplementedError

    def acting_seat(self) -> Seat | None:
        return None if self.seat is None else parse_seat(self.seat)


class ClientPlay(_ClientCommand):
    """Lay a tile (R3.1): ``at`` is the open place, or null for the opening tile (R2.5)."""

    type: Literal["play"]
    tile: TileText
    at: PlaceText | None = None

    def command(self) -> PlayerCommand:
        return PlayTile(parse_tile(self.tile), None if self.at is None else parse_place(self.at))


class ClientDraw(_ClientCommand):
    """Draw one tile; legal only with no playable tile (R4.1, D1)."""

    type: Literal["draw"]

    def command(self) -> PlayerCommand:
        return DrawTile()


class ClientBid(_ClientCommand):
    """Bid or raise, a multiple of 5 (R6.1, R6.2); the state's ``legal.bids`` are the legal ones."""

    type: Literal["bid"]
    amount: int

    def command(self) -> PlayerCommand:
        return PlaceBid(self.amount)


class ClientAccept(_ClientCommand):
    """Accept the standing bid (R6.2, R6.3)."""

    type: Literal["accept"]

    def command(self) -> PlayerCommand:
        return AcceptBid()


class ClientDecline(_ClientCommand):
    """The non-jockey's first decision: the jockey opens for free (R6.1, R6.3)."""

    type: Literal["decline"]

    def command(self) -> PlayerCommand:
        return DeclineBid()


class ClientResign(_ClientCommand):
    """Give up the match; the opponent wins (R5.2). A shared device names the seat."""

    type: Literal["resign"]

    def command(self) -> PlayerCommand:
        return ResignMatch()


class ClientStart(_ClientCommand):
    """Start (first round) or Continue (after a settlement), D3."""

    type: Literal["start"]

    def command(self) -> PlayerCommand:
        return Start()


class ClientReveal(_ClientCommand):
    """Shared device: the next player shows their tiles and their clock starts (R7.5)."""

    type: Literal["reveal"]

    def command(self) -> PlayerCommand:
        return Reveal()


class ClientPing(_ClientMessage):
    """Liveness and round-trip time; answered by ``pong`` and changes nothing."""

    type: Literal["ping"]


ClientCommand = (
    ClientPlay
    | ClientDraw
    | ClientBid
    | ClientAccept
    | ClientDecline
    | ClientResign
    | ClientStart
    | ClientReveal
)


class ClientMessage(RootModel[ClientCommand | ClientPing | ClientChat]):
    """Any message a client sends, told apart by ``type``."""

    root: Annotated[ClientCommand | ClientPing | ClientChat, Field(discriminator="type")]


CLIENT_MESSAGES: Mapping[str, type[_ClientMessage]] = {
    "play": ClientPlay,
    "draw": ClientDraw,
    "bid": ClientBid,
    "accept": ClientAccept,
    "decline": ClientDecline,
    "resign": ClientResign,
    "start": ClientStart,
    "reveal": ClientReveal,
    "ping": ClientPing,
    "chat": ClientChat,
}


def parse_client_message(data: object) -> ClientCommand | ClientPing | ClientChat:
    """Validate a decoded frame; raise :class:`Rejection` (``unknown_type``, ``bad_message``)."""
    if not isinstance(data, dict):
        raise Rejection(
            ErrorCode.BAD_MESSAGE, f"a message is a JSON object, not {type(data).__name__}"
        )
    kind = data.get("type")
    if not isinstance(kind, str):
        raise Rejection(ErrorCode.BAD_MESSAGE, "a message needs a string field 'type'")
    model = CLIENT_MESSAGES.get(kind)
    if model is None:
        expected = ", ".join(CLIENT_MESSAGES)
        raise Rejection(
            ErrorCode.UNKNOWN_TYPE,
            f"unknown message type {kind[:40]!r}; expected one of {expected}",
        )
    try:
        message = model.model_validate(data)
    except ValidationError as exc:
        raise Rejection(ErrorCode.BAD_MESSAGE, f"invalid {kind}: {_summary(exc)}") from None
    assert isinstance(message, ClientCommand | ClientPing | ClientChat)
    return message


def command_of(message: ClientCommand) -> PlayerCommand:
    """The message's command; notation the pattern let through but the engine refuses (a side
    the tile does not have) is a ``bad_message`` (R8.3: nothing changes)."""
    try:
        return message.command()
    except NotationError as exc:
        raise Rejection(ErrorCode.BAD_MESSAGE, str(exc)) from None


def _summary(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors(include_url=False, include_input=False):
        where = ".".join(str(p) for p in error["loc"]) or "message"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)


# -- server → client ----------------------------------------------------------------------------


class ServerState(_ServerMessage):
    """The whole view of the receiver's audience: sent on connect and on a resync."""

    type: Literal["state"]
    match: MatchSnapshot
    log: list[MatchEvent]
    """Every event of the match so far as the receiver may see it, oldest first: enough to
    draw the whole move list after a reload or a resync, or for a late spectator."""


class ServerUpdate(_ServerMessage):
    """What changed and the view after it. On reconnect, every missed event at once (lila-ws)."""

    type: Literal["update"]
    events: list[MatchEvent]
    match: MatchSnapshot


class ServerPresence(_ServerMessage):
    """Who is connected; sent to everyone when a socket comes or goes (R7.6: clocks run on)."""

    type: Literal["presence"]
    online: BoolPair
    spectators: int


class ServerAck(_ServerMessage):
    """The command was applied; ``version`` is the version it made. Sent after its update."""

    type: Literal["ack"]
    id: str | None
    """The command's ``id``; null if it had none."""


class ServerError(_ServerMessage):
    """The message changed nothing (R8.3); sent to its sender only."""

    type: Literal["error"]
    code: ErrorCode
    message: str
    id: str | None = None
    """The offending message's ``id`` when it had a usable one."""


class ServerPong(_ServerMessage):
    type: Literal["pong"]
    id: str | None
    now_ms: int
    """The server's monotonic ms, the time base of every clock reading."""


class ServerRematch(_ServerMessage):
    """The ended match's rematch (PROTOCOL.md "rematch"): an offer made, declined or lapsed, or the
    rematch started, which everyone watching is taken to. Sent to every socket of the match."""

    type: Literal["rematch"]
    offered_by: SeatName | None
    """The seat whose offer stands; null when none does."""
    expires_in_ms: int | None
    """How long the standing offer has left; null when none stands."""
    match_id: str | None
    """The rematch, once it has started (its page is ``/m/{match_id}``); null until then."""


ServerKind = (
    ServerState
    | ServerUpdate
    | ServerPresence
    | ServerAck
    | ServerError
    | ServerPong
    | ServerRematch
    | ServerChat
)


class ServerMessage(RootModel[ServerKind]):
    """Any message the server sends, told apart by ``type``."""

    root: Annotated[ServerKind, Field(discriminator="type")]


def _dumps(body: dict[str, Any]) -> str:
    """ASCII JSON: these replies quote what a client sent (its id, a bad field), and escaped, even
    a string that slipped past ``frame_decode.decode_client_text`` could never fail the send."""
    return json.dumps(body, separators=(",", ":"))


def ack_text(version: int, client_id: str | None) -> str:
    return _dumps({"type": "ack", "version": version, "id": client_id})


def error_text(version: int, rejection: Rejection, client_id: str | None) -> str:
    return _dumps(
        {
            "type": "error",
            "version": version,
            "code": rejection.code.value,
            "message": rejection.message,
            "id": client_id,
        }
    )


def pong_text(version: int, client_id: str | None, now_ms: int) -> str:
    return _dumps({"type": "pong", "version": version, "id": client_id, "now_ms": now_ms})


# -- the schema ---------------------------------------------------------------------------------

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def protocol_schema() -> dict[str, Any]:
    """The JSON Schema of every WebSocket message, checked in as ``docs/protocol.schema.json``."""
    _, schema = models_json_schema(
        [(ClientMessage, "validation"), (ServerMessage, "validation")],
        title="Spectacular Bid WebSocket protocol",
        description="Messages on /ws/matches/{id}; see docs/PROTOCOL.md.",
    )
    return {
        "$schema": SCHEMA_DIALECT,
        **schema,
        "oneOf": [
            {"$ref": "#/$defs/ClientMessage"},
            {"$ref": "#/$defs/ServerMessage"},
        ],
    }


def schema_text() -> str:
    """:func:`protocol_schema` as the exact text of the checked-in file."""
    return json.dumps(protocol_schema(), indent=2, ensure_ascii=False) + "\n"
