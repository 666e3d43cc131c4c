"""An in-memory :class:`~spectacular_bid.service.ports.MatchStore` for tests and for the service
before a database is configured."""

from __future__ import annotations

from collections.abc import Sequence

from spectacular_bid.service.codec import JSON
from spectacular_bid.service.ports import (
    EventRecord,
    MatchRecord,
    MatchStatus,
    PlayerRecord,
    RoundRecord,
    StorageError,
)


class InMemoryStore:
    def __init__(self) -> None:
        self._players: dict[str, PlayerRecord] = {}
        self._by_token: dict[str, str] = {}
        self._matches: dict[str, MatchRecord] = {}
        self._events: dict[str, list[EventRecord]] = {}
        self._rounds: dict[tuple[str, int], RoundRecord] = {}
        self.fail_appends = False
        """Test switch: make every append fail, as a broken database would."""

    async def add_player(self, player: PlayerRecord) -> None:
        self._players[player.id] = player
        self._by_token[player.token_hash] = player.id

    async def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        player_id = self._by_token.get(token_hash)
        return self._players.get(player_id) if player_id is not None else None

    async def players(self, ids: Sequence[str]) -> dict[str, PlayerRecord]:
        return {i: self._players[i] for i in ids if i in self._players}

    async def save_match(self, match: MatchRecord) -> None:
        self._matches[match.id] = match

    async def append(self, records: Sequence[EventRecord]) -> None:
        if self.fail_appends:
            raise StorageError("the store refuses writes (fail_appends is set)")
        for record in records:
            log = self._events.setdefault(record.match_id, [])
            if log and log[-1].version >= record.version:
                raise StorageError(
                    f"version {record.version} of {record.match_id} is not after {log[-1].version}"
                )
            log.append(record)

    async def events(self, match_id: str, since_version: int = 0) -> list[EventRecord]:
        return [r for r in self._events.get(match_id, []) if r.version > since_version]

    async def match(self, match_id: str) -> MatchRecord | None:
        return self._matches.get(match_id)

    async def save_round(
        self,
        match_id: str,
        number: int,
        commitment: str,
        salt: str | None = None,
        deck: JSON | None = None,
    ) -> None:
        key = (match_id, number)
        stored = self._rounds.get(key)
        if stored is None:
            self._rounds[key] = RoundRecord(match_id, number, commitment, salt, deck)
            return
        if stored.commitment != commitment:
            raise StorageError(
                f"round {number} of {match_id} is committed to {stored.commitment}, "
                f"not {commitment}"
            )
        self._rounds[key] = RoundRecord(
            match_id,
            number,
            commitment,
            stored.salt if salt is None else salt,
            stored.deck if deck is None else deck,
        )

    async def rounds(self, match_id: str) -> list[RoundRecord]:
        found = [r for (m, _), r in self._rounds.items() if m == match_id]
        return sorted(found, key=lambda r: r.number)

    async def unfinished_matches(self) -> list[MatchRecord]:
        live = (MatchStatus.WAITING, MatchStatus.ACTIVE)
        found = [m for m in self._matches.values() if m.status in live]
        return sorted(found, key=lambda m: (m.created_at_ms, m.id))

    async def ended_matches(
        self,
        statuses: Sequence[MatchStatus],
        limit: int,
        before: tuple[int, str] | None = None,
    ) -> list[MatchRecord]:
        found = [
            m
            for m in self._matches.values()
            if m.status in statuses
            and m.ended_at_ms is not None
            and (before is None or (m.ended_at_ms, m.id) < before)
        ]
        found.sort(key=lambda m: (m.ended_at_ms or 0, m.id), reverse=True)
        return found[:limit]

    async def import_match(
        self,
        players: Sequence[PlayerRecord],
        match: MatchRecord,
        rounds: Sequence[RoundRecord],
        events: Sequence[EventRecord],
    ) -> None:
        if self.fail_appends:
            raise StorageError("the store refuses writes (fail_appends is set)")
        if match.id in self._matches:
            raise StorageError(f"match {match.id} is already stored")
        versions = [e.version for e in events]
        if any(e.match_id != match.id for e in events) or versions != sorted(set(versions)):
            raise StorageError(f"the events of {match.id} are not its own, in version order")
        numbers = [r.number for r in rounds]
        if len(set(numbers)) != len(numbers) or any(r.match_id != match.id for r in rounds):
            raise StorageError(f"the rounds of {match.id} are not its own, each once")
        for player in players:
            await self.add_player(player)
        self._matches[match.id] = match
        self._events[match.id] = list(events)
        for r in rounds:
            self._rounds[(match.id, r.number)] = r
