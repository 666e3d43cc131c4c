"""Accounts and their sessions through the storage port (PROTOCOL.md "Identity"), the same on the
in-memory reference store and every SQL backend: a claim, a session and a password change are
stored whole or refused with nothing changed."""

from __future__ import annotations

import pytest

from spectacular_bid.service.ports import MatchStore, SessionRecord, StorageError

from .factories import WALL_MS, player

ARGON = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"
RETIRED = "r" * 64


def session(token: str, player_id: str = "p-ann", at_ms: int = WALL_MS) -> SessionRecord:
    return SessionRecord(token.ljust(64, "0"), player_id, at_ms, at_ms)


async def test_a_guest_claims_its_name_and_its_token_is_retired(any_store: MatchStore) -> None:
    ann = player("ann")
    await any_store.add_player(ann)
    first = session("s1")
    await any_store.claim_account(ann.id, "ann", ARGON, RETIRED, first)
    account = await any_store.player_by_name_key("ann")
    assert account is not None
    assert (account.id, account.name, account.password_hash) == (ann.id, "ann", ARGON)
    assert account.is_account
    assert not ann.is_account
    assert await any_store.player_by_token_hash(ann.token_hash) is None
    assert await any_store.player_by_token_hash(RETIRED) == account
    assert await any_store.session(first.token_hash) == first
    assert await any_store.players([ann.id]) == {ann.id: account}


async def test_a_taken_name_or_a_second_claim_is_refused_and_changes_nothing(
    any_store: MatchStore,
) -> None:
    ann, other = player("ann"), player("ann2")
    await any_store.add_player(ann)
    await any_store.add_player(other)
    await any_store.claim_account(ann.id, "ann", ARGON, RETIRED, session("s1"))
    with pytest.raises(StorageError):
        await any_store.claim_account(other.id, "ann", ARGON, "q" * 64, session("s2", other.id))
    with pytest.raises(StorageError):
        await any_store.claim_account(ann.id, "ann-again", ARGON, "q" * 64, session("s3"))
    assert await any_store.players([other.id]) == {other.id: other}
    assert await any_store.session(session("s2").token_hash) is None
    assert await any_store.session(session("s3").token_hash) is None
    assert await any_store.player_by_name_key("ann-again") is None


async def test_sessions_are_added_used_and_ended(any_store: MatchStore) -> None:
    ann, bob = player("ann"), player("bob")
    await any_store.add_player(ann)
    await any_store.add_player(bob)
    await any_store.claim_account(ann.id, "ann", ARGON, RETIRED, session("s1"))
    await any_store.claim_account(bob.id, "bob", ARGON, "q" * 64, session("b1", bob.id))
    for token in ("s2", "s3"):
        await any_store.add_session(session(token))
    await any_store.touch_session(session("s2").token_hash, WALL_MS + 3_600_000)
    used = await any_store.session(session("s2").token_hash)
    assert used is not None
    assert (used.created_at_ms, used.last_seen_ms) == (WALL_MS, WALL_MS + 3_600_000)
    await any_store.end_sessions(ann.id, keep=session("s2").token_hash)
    assert await any_store.session(session("s1").token_hash) is None
    assert await any_store.session(session("s3").token_hash) is None
    assert await any_store.session(session("s2").token_hash) == used
    assert await any_store.session(session("b1", bob.id).token_hash) is not None  # not Ann's
    await any_store.end_sessions(ann.id)
    assert await any_store.session(session("s2").token_hash) is None


async def test_a_new_password_ends_every_other_session_together(any_store: MatchStore) -> None:
    ann = player("ann")
    await any_store.add_player(ann)
    await any_store.claim_account(ann.id, "ann", ARGON, RETIRED, session("s1"))
    await any_store.add_session(session("s2"))
    await any_store.set_password(ann.id, ARGON + "x", keep=session("s2").token_hash)
    account = await any_store.player_by_name_key("ann")
    assert account is not None
    assert account.password_hash == ARGON + "x"
    assert await any_store.session(session("s1").token_hash) is None
    assert await any_store.session(session("s2").token_hash) is not None


async def test_a_guest_has_no_password_to_change(any_store: MatchStore) -> None:
    bob = player("bob")
    await any_store.add_player(bob)
    with pytest.raises(StorageError):
        await any_store.set_password(bob.id, ARGON, keep=None)
    assert await any_store.players([bob.id]) == {bob.id: bob}


async def test_a_rehash_keeps_the_sessions_and_a_logout_ends_one(any_store: MatchStore) -> None:
    ann = player("ann")
    await any_store.add_player(ann)
    await any_store.claim_account(ann.id, "ann", ARGON, RETIRED, session("s1"))
    await any_store.add_session(session("s2"))
    await any_store.set_password(ann.id, ARGON + "y", keep=None, end_others=False)
    assert await any_store.session(session("s1").token_hash) is not None
    assert await any_store.session(session("s2").token_hash) is not None
    await any_store.end_session(session("s1").token_hash)
    await any_store.end_session(session("no-such").token_hash)
    assert await any_store.session(session("s1").token_hash) is None
    assert await any_store.session(session("s2").token_hash) is not None
