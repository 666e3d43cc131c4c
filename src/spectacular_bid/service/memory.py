"""An in-memory :class:`~spectacular_bid.service.ports.MatchStore` for tests and for the service
before a database is configured."""

from __future__ import annotations

from collections.abc import Sequence

from spectacular_bid.service.ports import EventRecord, MatchRecord, PlayerRecord, StorageError


class InMemoryStore:
    def __init__(self) -> None:
        self._players: dict[str, PlayerRecord] = {}
        self._by_token: dict[str, str] = {}
        self._matches: dict[str, MatchRecord] = {}
        self._events: dict[str, list[EventRecord]] = {}
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
