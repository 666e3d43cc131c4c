"""Chat at the table over the match's socket (PROTOCOL.md "chat"): each line reaches exactly the
channel's audience, a flood and bad lines are refused and store nothing, a line changes no
version and leaves a pending command valid, and the lines are there for a later socket, over
HTTP, and for anyone once the match has ended."""

from __future__ import annotations

import itertools
from contextlib import AsyncExitStack
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pydantic import TypeAdapter

from spectacular_bid.service.chat import LINES_BURST, MAX_CHARS
from spectacular_bid.web.messages import ServerMessage

from .asgi_socket import AsgiSocket
from .guests import bearer, guest, joined_match, new_match

_ids = itertools.count(1)
SERVER = TypeAdapter(ServerMessage)


async def say(sock: AsgiSocket, **line: Any) -> Any:
    """Send a line; return its ack or error (what else arrives meanwhile is dropped)."""
    ident = f"chat-{next(_ids)}"
    await sock.send_json({"type": "chat", "id": ident, **line})
    while True:
        message = await sock.receive_json()
        if message["type"] in ("ack", "error") and message.get("id") == ident:
            return message


async def chat_seen(sock: AsgiSocket) -> list[Any]:
    """The chat lines this socket was sent up to now: a ping's pong comes after them."""
    ident = f"ping-{next(_ids)}"
    await sock.send_json({"type": "ping", "id": ident})
    lines = []
    while True:
        message = await sock.receive_json()
        SERVER.validate_python(message)
        if message["type"] == "chat":
            lines.extend(message["lines"])
        if message["type"] == "pong" and message["id"] == ident:
            return lines


class Table:
    """Ann and Bo seated, Cy and Di watching with names, and a watcher without one."""

    def __init__(self, app: FastAPI, client: httpx.AsyncClient) -> None:
        self.app = app
        self.client = client
        self.stack = AsyncExitStack()
        self.tokens: dict[str, str] = {}
        self.socks: dict[str, AsgiSocket] = {}
        self.match_id = ""

    async def __aenter__(self) -> Table:
        for name in ("Ann", "Bo", "Cy", "Di"):
            self.tokens[name] = await guest(self.client, name)
        self.match_id = await joined_match(self.client, self.tokens["Ann"], self.tokens["Bo"])
        for name in ("Ann", "Bo", "Cy", "Di", "anonymous"):
            self.socks[name] = await self.open(name)
        return self

    async def open(self, name: str, **query: str) -> AsgiSocket:
        if name in self.tokens:
            query["token"] = self.tokens[name]
        sock = AsgiSocket(self.app, f"/ws/matches/{self.match_id}", query=query)
        await self.stack.enter_async_context(sock)
        await sock.receive_until("state")
        return sock

    async def __aexit__(self, *exc: object) -> None:
        await self.stack.aclose()

    async def seen(self) -> dict[str, list[str]]:
        """Each socket's chat lines since the last look, as ``name: text``."""
        return {
            who: [f"{x['name']}: {x['text'] or x['phrase']}" for x in await chat_seen(sock)]
            for who, sock in self.socks.items()
        }

    async def history(self, token: str | None) -> list[str]:
        headers = bearer(token) if token else {}
        response = await self.client.get(f"/api/matches/{self.match_id}/chat", headers=headers)
        assert response.status_code == 200, response.text
        return [f"{x['channel']} {x['name']}: {x['text']}" for x in response.json()["lines"]]


async def test_each_line_reaches_exactly_its_channel(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    async with Table(app, client) as table:
        ack = await say(table.socks["Ann"], text="  good   luck\n Bo ")
        assert ack["type"] == "ack"
        assert (await say(table.socks["Cy"], text="Ann opens well"))["type"] == "ack"
        players = ["Ann: good luck Bo"]
        spectators = ["Cy: Ann opens well"]
        assert await table.seen() == {
            "Ann": players,
            "Bo": players,
            "Cy": spectators,
            "Di": spectators,
            "anonymous": spectators,
        }
        # A watcher without a name reads and cannot speak.
        refused = await say(table.socks["anonymous"], text="hi")
        assert refused["code"] == "unauthorized"
        # A seated player watching as a spectator is still not shown the spectators' channel.
        bo_watching = await table.open("Bo", **{"as": "spectator"})
        assert [x["text"] for x in await chat_seen(bo_watching)] == ["good luck Bo"]
        assert (await say(table.socks["Di"], phrase="well_played"))["type"] == "ack"
        assert await chat_seen(bo_watching) == []
        assert await chat_seen(table.socks["Bo"]) == []
        assert [x["phrase"] for x in await chat_seen(table.socks["Cy"])] == ["well_played"]


async def test_a_line_changes_no_version_and_a_pending_command_stays_valid(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    async with Table(app, client) as table:
        state = await table.open("Ann")
        version = (await client.get(f"/api/matches/{table.match_id}")).json()["version"]
        ack = await say(table.socks["Bo"], text="take your time")
        assert ack["version"] == version
        await say(table.socks["Cy"], phrase="hello")
        assert (await client.get(f"/api/matches/{table.match_id}")).json()["version"] == version
        # Ann's resignation, made against the version she saw before the lines, is taken.
        await state.send_json({"type": "resign", "version": version, "id": "r"})
        assert (await state.receive_until("ack"))["id"] == "r"


async def test_a_flood_and_bad_lines_are_refused_and_store_nothing(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    async with Table(app, client) as table:
        ann = table.socks["Ann"]
        for bad, code in (
            ({"text": "   \n "}, "bad_message"),
            ({"text": "x" * (MAX_CHARS + 1)}, "too_large"),
            ({"text": "pay \u202egnorw"}, "bad_message"),
            ({"text": "hi", "phrase": "thanks"}, "bad_message"),
            ({}, "bad_message"),
            ({"phrase": "insult"}, "bad_message"),
        ):
            refused = await say(ann, **bad)
            assert refused["type"] == "error"
            assert refused["code"] == code, bad
        assert await table.history(table.tokens["Bo"]) == []
        acks = [await say(ann, text=f"line {i}") for i in range(LINES_BURST + 2)]
        assert [a["type"] for a in acks] == ["ack"] * LINES_BURST + ["error"] * 2
        assert acks[-1]["code"] == "rate_limited"
        assert acks[-1]["id"].startswith("chat-")
        kept = [f"players Ann: line {i}" for i in range(LINES_BURST)]
        assert await table.history(table.tokens["Bo"]) == kept
        assert len(await chat_seen(table.socks["Bo"])) == LINES_BURST
        x_max = "x" * MAX_CHARS
        assert (await say(table.socks["Bo"], text=x_max))["type"] == "ack"  # Bo has his own


async def test_the_lines_so_far_come_to_a_later_socket_and_over_http(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    async with Table(app, client) as table:
        await say(table.socks["Ann"], text="hello Bo")
        await say(table.socks["Di"], text="hello watchers")
        await table.seen()
        late_bo = AsgiSocket(
            app, f"/ws/matches/{table.match_id}", query={"token": table.tokens["Bo"]}
        )
        async with late_bo:
            await late_bo.receive_until("state")
            history = await late_bo.receive_until("chat")
            assert [x["text"] for x in history["lines"]] == ["hello Bo"]
            assert history["lines"][0]["n"] == 1
        assert await table.history(table.tokens["Ann"]) == ["players Ann: hello Bo"]
        assert await table.history(table.tokens["Cy"]) == ["spectators Di: hello watchers"]
        assert await table.history(None) == ["spectators Di: hello watchers"]
        # The match ends: both channels are part of it for anyone.
        version = (await client.get(f"/api/matches/{table.match_id}")).json()["version"]
        await table.socks["Ann"].send_json({"type": "resign", "version": version, "id": "r"})
        await table.socks["Ann"].receive_until("ack")
        both = ["players Ann: hello Bo", "spectators Di: hello watchers"]
        for reader in (table.tokens["Ann"], table.tokens["Cy"], None):
            assert await table.history(reader) == both
        # Talk after the end is shown to everyone.
        await say(table.socks["Bo"], phrase="good_game")
        seen = await table.seen()
        assert seen["Ann"] == seen["Cy"] == seen["anonymous"] == ["Bo: good_game"]


async def test_a_shared_device_has_no_players_chat(app: FastAPI, client: httpx.AsyncClient) -> None:
    token = await guest(client, "Ann")
    match_id = await new_match(client, token, "shared")
    async with AsgiSocket(app, f"/ws/matches/{match_id}", query={"token": token}) as device:
        await device.receive_until("state")
        refused = await say(device, text="hi me")
        assert refused["code"] == "not_a_player"


async def test_the_computer_reads_no_chat(app: FastAPI, client: httpx.AsyncClient) -> None:
    """The computer reads no chat: its opponent is shown no players' channel and a line to it is
    refused."""
    token = await guest(client, "Ann")
    created = await client.post(
        "/api/matches", json={"mode": "bot", "level": 1}, headers=bearer(token)
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    async with AsgiSocket(app, f"/ws/matches/{match_id}", query={"token": token}) as person:
        await person.receive_until("state")
        refused = await say(person, text="good luck")
        assert refused["code"] == "not_a_player"
        assert "computer" in refused["message"]
    listed = await client.get(f"/api/matches/{match_id}/chat", headers=bearer(token))
    assert listed.status_code == 200
    assert listed.json()["lines"] == []


async def test_no_chat_of_a_match_that_is_not_there(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/matches/nope/chat")
    assert response.status_code == 404


@pytest.mark.parametrize("name", ["Ann", "Cy"])
async def test_every_chat_message_validates_against_the_schema(
    app: FastAPI, client: httpx.AsyncClient, name: str
) -> None:
    async with Table(app, client) as table:
        await say(table.socks[name], text="ü ✓ 🂡")
        said = [f"{name}: ü ✓ 🂡"]
        seen = await table.seen()
        assert seen[name] == said  # the speaker is shown its own line, validated
        assert all(lines in ([], said) for lines in seen.values())
