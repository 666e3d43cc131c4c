"""What :func:`~spectacular_bid.web.app.create_app` keeps on ``app.state``, and the dependency
aliases through which routes reach it (FastAPI template: ``Annotated`` dependencies)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from spectacular_bid.service.accounts import Accounts
from spectacular_bid.service.matches import MatchService
from spectacular_bid.web.remote_room import RemoteRooms
from spectacular_bid.web.room import Rooms
from spectacular_bid.web.settings import WebSettings
from spectacular_bid.web.shared_lobby import SharedLobby


def service_of(conn: HTTPConnection) -> MatchService:
    service = conn.app.state.service
    assert isinstance(service, MatchService), "create_app() puts the MatchService on app.state"
    return service


def accounts_of(conn: HTTPConnection) -> Accounts:
    accounts = conn.app.state.accounts
    assert isinstance(accounts, Accounts), "create_app() puts the Accounts on app.state"
    return accounts


def settings_of(conn: HTTPConnection) -> WebSettings:
    settings = conn.app.state.settings
    assert isinstance(settings, WebSettings), "create_app() puts the WebSettings on app.state"
    return settings


def rooms_of(conn: HTTPConnection) -> Rooms:
    rooms = conn.app.state.rooms
    assert isinstance(rooms, Rooms), "create_app() puts the Rooms on app.state"
    return rooms


Service = Annotated[MatchService, Depends(service_of)]
AccountsDep = Annotated[Accounts, Depends(accounts_of)]
Settings = Annotated[WebSettings, Depends(settings_of)]
RoomsDep = Annotated[Rooms, Depends(rooms_of)]


def remote_rooms_of(conn: HTTPConnection) -> RemoteRooms | None:
    """The stand-ins for matches other processes run; None without a relay (one process)."""
    remote = conn.app.state.remote_rooms
    assert remote is None or isinstance(remote, RemoteRooms), "create_app() sets remote_rooms"
    return remote


RemoteRoomsDep = Annotated[RemoteRooms | None, Depends(remote_rooms_of)]


def shared_lobby_of(conn: HTTPConnection) -> SharedLobby | None:
    """Every process's lobby lines; None without a relay (one process)."""
    lobby = conn.app.state.shared_lobby
    assert lobby is None or isinstance(lobby, SharedLobby), "create_app() sets shared_lobby"
    return lobby


SharedLobbyDep = Annotated[SharedLobby | None, Depends(shared_lobby_of)]
