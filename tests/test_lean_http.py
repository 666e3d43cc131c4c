"""The load generator's own HTTP client against a scripted HTTP/1.1 server in this process: the
request it writes, answers with a length or in chunks, connections kept and reused, a connection
the server closed while idle, and error statuses."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import orjson
import pytest

from spectacular_bid.bench.lean_http import HttpError, LeanHttp


@dataclass
class Seen:
    """What the scripted server received: each request's head and body, and on which
    connection (numbered from 0)."""

    requests: list[tuple[int, str, bytes]] = field(default_factory=list)
    connections: int = 0


Answer = Callable[[int], tuple[bytes, bool]]
"""The nth request's raw answer, and whether to close the connection after it."""


@asynccontextmanager
async def serving(answer: Answer) -> AsyncIterator[tuple[LeanHttp, Seen]]:
    seen = Seen()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        number = seen.connections
        seen.connections += 1
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).decode()
                length = next(
                    (
                        int(line.split(":")[1])
                        for line in head.split("\r\n")
                        if line.lower().startswith("content-length:")
                    ),
                    0,
                )
                body = await reader.readexactly(length)
                seen.requests.append((number, head, body))
                raw, close = answer(len(seen.requests) - 1)
                writer.write(raw)
                await writer.drain()
                if close:
                    break
        except asyncio.IncompleteReadError:
            pass
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = LeanHttp(f"http://127.0.0.1:{port}", timeout_s=5)
    try:
        yield client, seen
    finally:
        await client.aclose()
        server.close()


def _json_answer(status: int, body: object, *extra: str) -> bytes:
    payload = orjson.dumps(body)
    head = [f"HTTP/1.1 {status} X", f"content-length: {len(payload)}", *extra]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + payload


def test_a_json_post_with_a_token_and_the_connection_kept_for_the_next() -> None:
    async def run() -> Seen:
        async with serving(lambda n: (_json_answer(201, {"n": n}), False)) as (client, seen):
            first = await client.post("/api/matches", {"mode": "invite"}, token="tok")
            second = await client.post("/api/matches/m1/join", token="tok")
            third = await client.get("/api/health")
            assert (first.status_code, first.json()) == (201, {"n": 0})
            assert second.json() == {"n": 1}
            assert third.json() == {"n": 2}
            assert first.is_success
            assert first.headers["content-length"] == "7"
            return seen

    seen = asyncio.run(run())
    assert seen.connections == 1
    (_, head, body), (_, join_head, join_body), (_, get_head, _) = seen.requests
    assert head.startswith("POST /api/matches HTTP/1.1\r\n")
    assert "Authorization: Bearer tok\r\n" in head
    assert "Content-Type: application/json\r\n" in head
    assert orjson.loads(body) == {"mode": "invite"}
    assert join_head.startswith("POST /api/matches/m1/join HTTP/1.1\r\n")
    assert "Content-Length: 0\r\n" in join_head
    assert join_body == b""
    assert get_head.startswith("GET /api/health HTTP/1.1\r\n")
    assert "Content-Length" not in get_head
    assert "Authorization" not in get_head


def test_a_chunked_answer_is_read_whole() -> None:
    chunked = (
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
        b"5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\n\r\n"
    )

    async def run() -> tuple[str, str]:
        async with serving(lambda n: (chunked, False)) as (client, _):
            first = await client.get("/metrics")
            second = await client.get("/metrics")  # the stream was left at the next answer
            return first.text, second.text

    assert asyncio.run(run()) == ("hello, world", "hello, world")


@pytest.mark.parametrize("how", ["connection: close", "closed after"])
def test_a_connection_the_server_closed_is_not_used_again(how: str) -> None:
    """``connection: close`` is obeyed; a connection the server closed while it sat idle (its
    keep-alive timeout) is dropped, and the request goes on a fresh one, sent once."""
    extra = ("connection: close",) if how == "connection: close" else ()

    async def run() -> tuple[list[int], Seen]:
        async with serving(lambda n: (_json_answer(200, {"n": n}, *extra), True)) as (client, seen):
            answers = []
            for _ in range(3):
                answers.append((await client.post("/api/session", {"name": "a"})).json()["n"])
                await asyncio.sleep(0.05)  # the case under test: idle while the close arrives
            return answers, seen

    answers, seen = asyncio.run(run())
    assert answers == [0, 1, 2]
    assert [number for number, _, _ in seen.requests] == [0, 1, 2]
    assert seen.connections == 3


def test_an_error_status_is_the_callers_to_read_or_raise() -> None:
    async def run() -> None:
        answer = _json_answer(503, {"code": "server_busy"}, "retry-after: 2")
        async with serving(lambda n: (answer, False)) as (client, _):
            reply = await client.post("/api/matches", {})
            assert not reply.is_success
            assert reply.status_code == 503
            assert reply.headers["retry-after"] == "2"
            with pytest.raises(HttpError, match="HTTP 503"):
                reply.raise_for_status()

    asyncio.run(run())


def test_an_answer_that_is_not_http_is_an_error() -> None:
    async def run() -> None:
        async with serving(lambda n: (b"SSH-2.0-OpenSSH\r\n\r\n", True)) as (client, _):
            with pytest.raises(HttpError, match=r"not an HTTP/1\.1 status line"):
                await client.get("/")

    asyncio.run(run())
