"""An in-memory :class:`~spectacular_bid.service.ports.MatchStore` for tests and for the service
before a database is configured."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from spectacular_bid.service.match_ratings import rate
from spectacular_bid.service.ports import (
    JSON,
    ChatRecord,
    EventRecord,
    MatchRecord,
    MatchStatus,
    PlayerRecord,
    RatedResult,
    RatingChange,
    RoundRecord,
    SeatedMatch,
    SessionRecord,
    StorageError,
)


class InMemoryStore:
    def __init__(self) -> None:
        self._players: dict[str, PlayerRecord] = {}
        self._by_token: dict[str, str] = {}
        self._matches: dict[str, MatchRecord] = {}
        self._events: dict[str, list[EventRecord]] = {}
        self._rounds: dict[tuple[str, int], RoundRecord] = {}
        self._sessions: dict[str, SessionRecord] = {}
        self._rating_changes: list[RatingChange] = []
        self._chat: dict[str, list[ChatRecord]] = {}
        self.fail_appends = False
        """Test switch: make every append fail, as a broken database would."""

    async def unready_reason(self) -> str | None:
        return None  # memory is always there

    async def add_player(self, player: PlayerRecord) -> None:
        self._players[player.id] = player
        self._by_token[player.token_hash] = player.id

    async def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        player_id = self._by_token.get(token_hash)
        return self._players.get(player_id) if player_id is not None else None

    async def players(self, ids: Sequence[str]) -> dict[str, PlayerRecord]:
        return {i: self._players[i] for i in ids if i in self._players}

    async def player_by_name_key(self, name_key: str) -> PlayerRecord | None:
        found = [p for p in self._players.values() if p.name_key == name_key]
        return found[0] if found else None

    async def claim_account(
        self,
        player_id: str,
        name_key: str,
        password_hash: str,
        retired_token_hash: str,
        session: SessionRecord,
    ) -> None:
        player = self._players.get(player_id)
        if player is None or player.is_account:
            raise StorageError(f"player {player_id} is not a guest")
        if await self.player_by_name_key(name_key) is not None:
            raise StorageError(f"the name {name_key!r} is taken")
        if retired_token_hash in self._by_token or session.token_hash in self._sessions:
            raise StorageError("that token hash is already stored")
        del self._by_token[player.token_hash]
        self._by_token[retired_token_hash] = player_id
        self._players[player_id] = replace(
            player,
            token_hash=retired_token_hash,
            name_key=name_key,
            password_hash=password_hash,
        )
        self._sessions[session.token_hash] = session

    async def add_session(self, session: SessionRecord) -> None:
        if session.player_id not in self._players or session.token_hash in self._sessions:
            raise StorageError(f"session of {session.player_id} refused")
        self._sessions[session.token_hash] = session

    async def session(self, token_hash: str) -> SessionRecord | None:
        return self._sessions.get(token_hash)

    async def touch_session(self, token_hash: str, now_ms: int) -> None:
        session = self._sessions.get(token_hash)
        if session is not None:
            self._sessions[token_hash] = replace(session, last_seen_ms=now_ms)

    async def end_sessions(self, player_id: str, keep: str | None = None) -> None:
        for token_hash, session in list(self._sessions.items()):
            if session.player_id == player_id and token_hash != keep:
                del self._sessions[token_hash]

    async def end_session(self, token_hash: str) -> None:
        self._sessions.pop(token_hash, None)

    async def set_password(
        self, player_id: str, password_hash: str, keep: str | None, *, end_others: bool = True
    ) -> None:
        player = self._players.get(player_id)
        if player is None or not player.is_account:
            raise StorageError(f"player {player_id} is not an account")
        self._players[player_id] = replace(player, password_hash=password_hash)
        if end_others:
            await self.end_sessions(player_id, keep)

    async def save_match(self, match: MatchRecord) -> None:
        self._matches[match.id] = match

    async def append(
        self,
        records: Sequence[EventRecord],
        *,
        rounds: Sequence[RoundRecord] = (),
        match: MatchRecord | None = None,
        rated: RatedResult | None = None,
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
        changes = () if rated is None or not records else self._rated(rated, match)
        for record in records:
            self._events.setdefault(record.match_id, []).append(record)
        for round_ in saved:
            self._rounds[(round_.match_id, round_.number)] = round_
        if match is not None:
            self._matches[match.id] = match
        for change in changes:
            player = self._players[change.player_id]
            self._players[player.id] = replace(
                player, rating=change.after, rated_at_ms=change.at_ms
            )
            self._rating_changes.append(change)

    def _rated(self, rated: RatedResult, match: MatchRecord | None) -> tuple[RatingChange, ...]:
        """What ``rated`` changes, from the players' stored ratings; refused as the database
        refuses it: an unknown match or player, a player against itself, a match rated twice."""
        first = self._players.get(rated.first_player)
        second = self._players.get(rated.second_player)
        if first is None or second is None:
            raise StorageError(f"match {rated.match_id} rates a player who is not stored")
        if first.id == second.id:
            raise StorageError(f"match {rated.match_id} rates {first.id} against itself")
        if rated.match_id not in self._matches and (match is None or match.id != rated.match_id):
            raise StorageError(f"match {rated.match_id} is not stored")
        if rated.match_id in {c.match_id for c in self._rating_changes}:
            raise StorageError(f"match {rated.match_id} is already rated")
        return rate(rated, (first.rating, first.rated_at_ms), (second.rating, second.rated_at_ms))

    async def events(self, match_id: str, since_version: int = 0) -> list[EventRecord]:
        return [r for r in self._events.get(match_id, []) if r.version > since_version]

    async def add_chat_line(self, line: ChatRecord) -> None:
        if line.match_id not in self._matches:
            raise StorageError(f"no match {line.match_id!r} for a chat line")
        lines = self._chat.setdefault(line.match_id, [])
        if any(stored.number == line.number for stored in lines):
            raise StorageError(f"chat line {line.number} of {line.match_id} is already stored")
        lines.append(line)

    async def chat_lines(self, match_id: str) -> list[ChatRecord]:
        return sorted(self._chat.get(match_id, []), key=lambda line: line.number)

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

    @property
    def server_id(self) -> str | None:
        return None

    def lease_reason(self) -> str | None:
        return None

    async def register_again(self) -> str | None:
        return None

    async def owner_of(self, match_id: str) -> str | None:
        """One process uses this store: no match is run by another."""
        return None

    async def live_peers(self) -> list[str]:
        """No other process uses this store: nobody to hand a match to."""
        return []

    async def hand_over(self, match_ids: list[str], server_id: str) -> list[str]:
        return []

    async def owned_matches(self) -> list[str]:
        return []

    async def claim_orphans(self, *, own: bool = False) -> list[MatchRecord]:
        """One server owns this store, so every live match is its own: orphaned only for a
        service starting on it after another (a restart, in tests)."""
        return await self.unfinished_matches() if own else []

    async def ended_matches(
        self,
        statuses: Sequence[MatchStatus],
        limit: int,
        before: tuple[int, str] | None = None,
        player: str | None = None,
    ) -> list[MatchRecord]:
        found = [
            m
            for m in self._matches.values()
            if m.status in statuses
            and m.ended_at_ms is not None
            and (before is None or (m.ended_at_ms, m.id) < before)
            and (player is None or player in (m.first_player, m.second_player))
        ]
        found.sort(key=lambda m: (m.ended_at_ms or 0, m.id), reverse=True)
        return found[:limit]

    async def ended_with_players(
        self, limit: int, before: tuple[int, str] | None = None
    ) -> list[SeatedMatch]:
        def seated(player_id: str | None) -> PlayerRecord | None:
            return self._players.get(player_id) if player_id is not None else None

        ended = [MatchStatus.FINISHED, MatchStatus.ABORTED]
        return [
            SeatedMatch(m, seated(m.first_player), seated(m.second_player))
            for m in await self.ended_matches(ended, limit, before)
        ]

    async def rating_changes_of(self, match_ids: Sequence[str]) -> list[RatingChange]:
        wanted = set(match_ids)
        return [c for c in self._rating_changes if c.match_id in wanted]

    async def results(self, player_id: str) -> tuple[int, int]:
        wins = losses = 0
        for m in self._matches.values():
            if m.status is not MatchStatus.FINISHED or m.winner not in ("first", "second"):
                continue
            if m.first_player == m.second_player:
                continue  # a shared-device match: the player beat no one
            seats = (m.first_player, m.second_player)
            won, lost = seats if m.winner == "first" else seats[::-1]
            wins += won == player_id
            losses += lost == player_id
        return wins, losses

    async def rating_changes(self, player_id: str, limit: int) -> list[RatingChange]:
        mine = [c for c in self._rating_changes if c.player_id == player_id]
        mine.sort(key=lambda c: (c.at_ms, c.match_id))
        return mine[-limit:] if limit > 0 else []

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
