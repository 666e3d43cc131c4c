"""The load generator's HTTP client: HTTP/1.1 with keep-alive on bare asyncio streams.

``specbid bench server`` makes and joins a match over HTTP for every one its slots play: with no
think time, dozens a second. httpx took a fifth of the load generator's stack samples for them
(its pool, anyio and the request and response models), and the load generator shares the
machine's cores with the servers it measures (OPERATIONS.md "Running it for real"). Only what the
benchmark asks is here: a request with an optional JSON body and bearer token, the status, headers
and body of the answer, and connections kept open for the next request.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

import orjson

_HEAD_END: Final = b"\r\n\r\n"


class HttpError(Exception):
    """The server answered with an error status, or not as HTTP/1.1 says."""


@dataclass(frozen=True)
class Reply:
    status_code: int
    headers: dict[str, str]
    """Each header by its lower-case name (the last one, if repeated)."""
    body: bytes

    @property
    def is_success(self) -> bool:
        return 200 <= self.status_code < 300

    @property
    def text(self) -> str:
        return self.body.decode()

    def json(self) -> Any:
        return orjson.loads(self.body)

    def raise_for_status(self) -> None:
        if not self.is_success:
            raise HttpError(f"HTTP {self.status_code}: {self.body[:200]!r}")


Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class LeanHttp:
    """Requests to one server, at most ``connections`` at once (or as many as a ``gate`` shared
    with other clients lets through), each on a kept-open connection when one is idle."""

    def __init__(
        self,
        base: str,
        timeout_s: float,
        connections: int = 32,
        gate: asyncio.Semaphore | None = None,
    ) -> None:
        url = urlsplit(base)
        if url.scheme != "http" or url.hostname is None:
            raise ValueError(f"not an http:// base URL: {base}")
        self.host = url.hostname
        self.port = url.port or 80
        self.timeout_s = timeout_s
        self._gate = gate if gate is not None else asyncio.Semaphore(connections)
        self._idle: list[Connection] = []

    async def get(self, path: str) -> Reply:
        return await self.request("GET", path)

    async def post(self, path: str, json: Any = None, token: str | None = None) -> Reply:
        return await self.request("POST", path, json, token)

    async def request(
        self, method: str, path: str, json: Any = None, token: str | None = None
    ) -> Reply:
        payload = b"" if json is None else orjson.dumps(json)
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        if token is not None:
            lines.append(f"Authorization: Bearer {token}")
        if json is not None:
            lines.append("Content-Type: application/json")
        if json is not None or method == "POST":
            lines.append(f"Content-Length: {len(payload)}")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode()
        async with self._gate:
            async with asyncio.timeout(self.timeout_s):
                return await self._send(head + payload)

    async def _send(self, request: bytes) -> Reply:
        while self._idle:
            connection = self._idle.pop()
            if connection[0].at_eof():  # the server closed it while idle (its keep-alive ran out)
                connection[1].close()
                continue
            try:
                return await self._exchange(connection, request)
            except (asyncio.IncompleteReadError, ConnectionError) as failure:
                connection[1].close()
                if isinstance(failure, asyncio.IncompleteReadError) and failure.partial:
                    raise
                # Closed as it was taken, before any byte of an answer: the request was not
                # read; it goes on a fresh connection, as any HTTP client's pool does.
            except BaseException:
                connection[1].close()
                raise
        connection = await asyncio.open_connection(self.host, self.port)
        try:
            return await self._exchange(connection, request)
        except BaseException:
            connection[1].close()
            raise

    async def _exchange(self, connection: Connection, request: bytes) -> Reply:
        reader, writer = connection
        writer.write(request)
        head = await reader.readuntil(_HEAD_END)
        status_line, *header_lines = head[: -len(_HEAD_END)].decode("latin-1").split("\r\n")
        parts = status_line.split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
            raise HttpError(f"not an HTTP/1.1 status line: {status_line!r}")
        headers: dict[str, str] = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = await _chunked(reader)
        else:
            body = await reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            writer.close()
        else:
            self._idle.append(connection)
        return Reply(int(parts[1]), headers, body)

    async def aclose(self) -> None:
        idle, self._idle = self._idle, []
        for _, writer in idle:
            writer.close()
        for _, writer in idle:
            with contextlib.suppress(OSError):
                await writer.wait_closed()


async def _chunked(reader: asyncio.StreamReader) -> bytes:
    chunks: list[bytes] = []
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";", 1)[0].strip(), 16)
        if size == 0:
            await reader.readuntil(b"\r\n")  # no trailers are sent to this client
            return b"".join(chunks)
        chunks.append(await reader.readexactly(size))
        await reader.readexactly(2)
