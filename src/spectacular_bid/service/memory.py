"""An in-memory :class:`~spectacular_bid.service.ports.MatchStore` for tests and for the service
before a database is configured."""

from __future__ import annotations

from collections.abc import Sequence

from spectacular_bid.service.ports import (
    JSON,
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

    async def append(
        self,
        records: Sequence[EventRecord],
        *,
        rounds: Sequence[RoundRecord] = (),
        match: MatchRecord | None = None,
    ) -> None:
        if self.fail_appends:
            raise StorageError("the store refuses writes (fail_appends is set)")
        # Everything is checked before anything is kept: all of it is stored, or none.
        last: dict[str, int] = {}
        for record in records:
            log = self._events.get(record.match_id)
            before = last.get(record.match_id, log[-1].version if log else 0)
            if record.version <= before:
                raise StorageError(
                    f"version {record.version} of {record.match_id} is not after {before}"
                )
            last[record.match_id] = record.version
        saved = [self._round_saved(r) for r in rounds]
        for record in records:
            self._events.setdefault(record.match_id, []).append(record)
        for round_ in saved:
            self._rounds[(round_.match_id, round_.number)] = round_
        if match is not None:
            self._matches[match.id] = match

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
        round_ = self._round_saved(RoundRecord(match_id, number, commitment, salt, deck))
        self._rounds[(match_id, number)] = round_

    def _round_saved(self, new: RoundRecord) -> RoundRecord:
        """The row ``new`` leaves behind: a reveal completes the row its commitment made."""
        stored = self._rounds.get((new.match_id, new.number))
        if stored is None:
            return new
        if stored.commitment != new.commitment:
            raise StorageError(
                f"round {new.number} of {new.match_id} is committed to {stored.commitment}, "
                f"not {new.commitment}"
            )
        return RoundRecord(
            new.match_id,
            new.number,
            new.commitment,
            stored.salt if new.salt is None else new.salt,
            stored.deck if new.deck is None else new.deck,
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
