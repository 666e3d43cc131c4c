"""Ended matches read back from the store: re-run through the match machine (D5: a player who
comes back to a match no longer in memory sees how it ended), and listed for the lobby.

A re-run replays the whole record, so the most recently read are kept: a finished match's
players and spectators arriving together cost one replay, not one each.

The lobby's finished list is the store's, never a process's memory: a server started after
matches ended lists them, and every process on one database lists the same
(docs/PROTOCOL.md "GET /api/lobby"). Every visitor's lobby reads its first page every few
seconds, so a page is two indexed queries, whatever the number of ended matches: the matches
with their players, then the ratings they moved.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import replace
from typing import Final

from spectacular_bid.service.discrepancy import RecordMismatchError
from spectacular_bid.service.listings import FinishedLine
from spectacular_bid.service.ports import MatchRecord, MatchStore, Player
from spectacular_bid.service.record_document import ENDED
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.replay import Rebuilt, rebuild
from spectacular_bid.service.standings import settled

log = logging.getLogger(__name__)

FINISHED_CACHE: Final = 256
"""How many ended matches rebuilt from the store are kept, least recently read dropped first."""


class EndedMatches:
    def __init__(self, store: MatchStore) -> None:
        self._store = store
        self._kept: OrderedDict[str, Rebuilt] = OrderedDict()

    def kept(self, match_id: str) -> Rebuilt | None:
        """The ended match if it was read lately: no query."""
        cached = self._kept.get(match_id)
        if cached is not None:
            self._kept.move_to_end(match_id)
        return cached

    async def read(self, match_id: str) -> Rebuilt:
        """The ended match re-run from its record; ``not_found`` for an unknown one, one live
        on a peer (its sockets are there, OPERATIONS.md "Running it for real") or one whose record
        does not replay."""
        cached = self.kept(match_id)
        if cached is not None:
            return cached
        header = await self._store.match(match_id)
        if header is None:
            raise Rejection(ErrorCode.NOT_FOUND, f"no match {match_id!r}")
        if header.status not in ENDED:
            raise Rejection(
                ErrorCode.NOT_FOUND, f"match {match_id!r} is played on another server process"
            )
        events = await self._store.events(match_id)
        seats = await self.seated(header)
        settings = header.settings if isinstance(header.settings, dict) else {}
        try:
            rebuilt = rebuild(header.id, header.mode, settings, seats, events)
        except RecordMismatchError as exc:
            log.error("match %s: its record does not replay: %s", match_id, exc)
            raise Rejection(
                ErrorCode.NOT_FOUND, f"the record of match {match_id!r} cannot be replayed"
            ) from None
        if header.rated:
            standing = await settled(self._store, match_id, seats)
            if standing is not None:
                rebuilt = replace(rebuilt, standing=standing)
        self._kept[match_id] = rebuilt
        while len(self._kept) > FINISHED_CACHE:
            self._kept.popitem(last=False)
        return rebuilt

    async def finished_page(
        self, limit: int, before: tuple[int, str] | None = None
    ) -> list[FinishedLine]:
        """Up to ``limit`` ended matches, newest first, strictly before the cursor ``before``
        (``(ended_at_ms, id)``, as the archive pages), with the ratings they moved."""
        seated = await self._store.ended_with_players(limit, before)
        rated = [s.match.id for s in seated if s.match.rated]
        moved = await self._store.rating_changes_of(rated) if rated else []
        changes = {(c.match_id, c.player_id): c for c in moved}
        return [FinishedLine.of(s, changes) for s in seated]

    async def seated(self, header: MatchRecord) -> tuple[Player | None, Player | None]:
        """The match's players as the store has them now."""
        ids = [p for p in (header.first_player, header.second_player) if p is not None]
        found = await self._store.players(ids)

        def player(player_id: str | None, account: bool) -> Player | None:
            record = found.get(player_id) if player_id is not None else None
            return Player(record.id, record.name, account) if record is not None else None

        return (
            player(header.first_player, header.first_account),
            player(header.second_player, header.second_account),
        )
