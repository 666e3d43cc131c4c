"""One lobby for every server process (PROTOCOL.md "Several servers on one database").

Each process knows only the matches it runs. So, while it relays, each puts its own lobby lines
— open challenges and live matches, with their spectators counted across processes by the
owner's room — under a key of its own every :data:`SHARE_MS`, kept for :data:`KEEP_MS`: a
process that dies drops out of every lobby within seconds, and its matches come back as ended
from the database. A lobby read merges the others' shares with its own live lines; the merge is
kept :data:`CACHE_MS` so a crowd polling the lobby costs one Redis read. With Redis down each
process shows its own lines only (degraded, never failing).

Ended matches are not shared: every process reads them from the database they share
(``service.ended_matches``). A share from an earlier release may still carry them, under
``"finished"``; it is not read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from typing import Any, Final

from spectacular_bid.service.bus import Bus, BusDownError
from spectacular_bid.service.listings import MatchSummary
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.periodic import Periodic
from spectacular_bid.web.json_text import compact, parse
from spectacular_bid.web.room import Rooms

log = logging.getLogger(__name__)

LOBBY_KEY: Final = "specbid:lobby:"
SHARE_MS: Final = 1_000
KEEP_MS: Final = 5_000
CACHE_MS: Final = 500
KINDS: Final = ("open", "live")

SUMMARY_FIELD_ORDER: Final = tuple(f.name for f in dataclasses.fields(MatchSummary))
SUMMARY_FIELDS: Final = frozenset(SUMMARY_FIELD_ORDER)
"""A share written by a later release may carry more; only these make a line here."""

Lines = tuple[list[MatchSummary], list[MatchSummary]]


class SharedLobby:
    def __init__(self, bus: Bus, server_id: str, service: MatchService, rooms: Rooms) -> None:
        self.bus = bus
        self.key = LOBBY_KEY + server_id
        self.service = service
        self.rooms = rooms
        self._periodic = Periodic(
            "lobby-share", SHARE_MS / 1000, self.share, service.tasks, at_start=True
        )
        self._others: tuple[int, list[dict[str, Any]]] | None = None

    def local(self) -> Lines:
        service = self.service
        return service.open_challenges(), service.live_matches()

    def spectators(self, match_id: str) -> int:
        return self.rooms.spectators(match_id)

    def start(self) -> None:
        self._periodic.start()

    async def close(self) -> None:
        await self._periodic.stop()

    async def share(self) -> None:
        """Put this process's lines (a periodic task, ``service.periodic``: whatever one share
        raises is logged and counted, and the next runs; Redis away is no failure)."""
        with contextlib.suppress(BusDownError):
            await self.bus.put(self.key, self.share_text(), KEEP_MS)

    def share_text(self) -> str:
        """This process's lines, each with its spectators. Built in one piece of the loop every
        :data:`SHARE_MS`: with ``dataclasses.asdict`` and the standard library's encoder, a
        thousand live matches took 16 ms of it (so every command arriving meanwhile waited);
        with the fields read directly and orjson, 1.3 ms."""
        spectators = self.rooms.spectators
        share = {
            kind: [
                {
                    **{name: getattr(s, name) for name in SUMMARY_FIELD_ORDER},
                    "spectators": spectators(s.id),
                }
                for s in lines
            ]
            for kind, lines in zip(KINDS, self.local(), strict=True)
        }
        return compact(share)

    async def lines(self) -> tuple[Lines, dict[str, int]]:
        """Every process's lobby lines, newest first, and the spectators of the others'."""
        own = self.local()
        others = await self._read_others()
        merged: list[list[MatchSummary]] = [list(kind) for kind in own]
        spectators: dict[str, int] = {}
        seen = {s.id for kind in own for s in kind}
        for share in others:
            for index, kind in enumerate(KINDS):
                for line in share.get(kind, []):
                    if line["id"] in seen:
                        continue
                    seen.add(line["id"])
                    spectators[line["id"]] = int(line.get("spectators", 0))
                    fields = {k: v for k, v in line.items() if k in SUMMARY_FIELDS}
                    merged[index].append(MatchSummary(**fields))
        for kind_lines in merged:
            kind_lines.sort(key=lambda s: s.created_at_ms, reverse=True)
        return (merged[0], merged[1]), spectators

    async def _read_others(self) -> list[dict[str, Any]]:
        now = self.service.now_ms()
        cached = self._others
        if cached is not None and now - cached[0] < CACHE_MS:
            return cached[1]
        try:
            found = await self.bus.read(LOBBY_KEY)
        except BusDownError as exc:
            log.info("the lobby shows this process's matches only: %s", exc)
            found = {}
        shares = [parse(text) for key, text in found.items() if key != self.key]
        self._others = (now, shares)
        return shares
