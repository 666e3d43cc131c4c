"""Who may act, against which version, and what a refusal leaves behind (R8.3, PROTOCOL.md
"The version rule", and the durability order): every refused command changes nothing at all."""

from __future__ import annotations

import dataclasses

import pytest

from spectacular_bid.rules.board import Place, Side
from spectacular_bid.rules.match import Phase
from spectacular_bid.rules.notation import parse_tile
from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.audience import Audience
from spectacular_bid.service.commands import (
    DrawTile,
    PlayerCommand,
    PlayTile,
    ResignMatch,
    Reveal,
    Start,
)
from spectacular_bid.service.ports import LeaseLostError, MatchMode, MatchStatus
from spectacular_bid.service.refusals import ErrorCode
from spectacular_bid.service.state import MatchState

from .helpers import (
    ANN,
    CY,
    DRAW_DECK,
    FIRST,
    SECOND,
    FakeTime,
    Table,
    Tables,
    fake_time_settings,
    messages,
    refused,
    refused_now,
    repeat,
)

SIX_SIX = parse_tile("6-6")


@dataclasses.dataclass
class Before:
    """Everything a command may change, taken before it (compared with ``==`` after): the whole
    match state (the engine's match, the clocks, the version, the presses, the hand-over...),
    the stored versions and the actor's log."""

    state: MatchState
    stored: int
    logged: int

    @classmethod
    async def of(cls, table: Table) -> Before:
        actor = table.actor
        stored = len(await table.store.events(actor.id))
        return cls(actor.state, stored, len(table.room.moves))

    async def unchanged(self, table: Table) -> None:
        assert await Before.of(table) == self


async def dealt(tables: Tables, mode: MatchMode = MatchMode.INVITE) -> Table:
    table = await tables.open(
        fake_time_settings(), time_source=FakeTime(), deck_source_for=repeat(DRAW_DECK), mode=mode
    )
    await table.start_round()
    if mode is MatchMode.SHARED:
        await table.act(FIRST, Reveal())
    assert table.state.match.to_act is FIRST
    assert table.state.match.opening_tile == SIX_SIX
    return table


async def test_r8_3_a_stale_version_is_refused_and_changes_nothing(tables: Tables) -> None:
    table = await dealt(tables)
    version = table.actor.version
    before = await Before.of(table)
    for stale in (version - 1, version + 1, 0):
        table.advance(1_000)
        rejection = await refused(table.act(FIRST, PlayTile(SIX_SIX), version=stale))
        assert rejection.code is ErrorCode.STALE_VERSION
        assert rejection.message == f"made against version {stale}, the match is at {version}"
        await before.unchanged(table)
    # The same command against the right version is accepted: only the version was wrong.
    assert await table.act(FIRST, PlayTile(SIX_SIX)) == version + 1


async def test_r8_3_a_repeated_command_is_refused_as_stale(tables: Tables) -> None:
    table = await dealt(tables)
    version = table.actor.version
    await table.act(FIRST, PlayTile(SIX_SIX), version=version)
    before = await Before.of(table)
    rejection = await refused(table.act(FIRST, PlayTile(SIX_SIX), version=version))
    assert rejection.code is ErrorCode.STALE_VERSION
    await before.unchanged(table)


async def test_r8_3_an_illegal_play_is_refused_with_its_reason(tables: Tables) -> None:
    table = await dealt(tables)
    before = await Before.of(table)
    wrong_opening = await refused(table.act(FIRST, PlayTile(parse_tile("0-0"))))
    assert wrong_opening.code is ErrorCode.ILLEGAL
    assert wrong_opening.message == "the opening tile must be [6|6] (R2.3), not [0|0]"
    await before.unchanged(table)
    not_held = await refused(table.act(FIRST, PlayTile(parse_tile("1-1"))))
    assert not_held.code is ErrorCode.ILLEGAL
    assert not_held.message == "[1|1] is not in your hand"
    await before.unchanged(table)
    await table.act(FIRST, PlayTile(SIX_SIX))
    # The second seat holds no 6: a placement of its own tile is illegal (R3.1).
    before = await Before.of(table)
    no_match = await refused(
        table.act(SECOND, PlayTile(parse_tile("1-2"), Place(SIX_SIX, Side.LINE_B)))
    )
    assert no_match.code is ErrorCode.ILLEGAL
    assert no_match.message == "[1|2] does not match [6|6] (line B, 6) (R3.1)"
    await before.unchanged(table)


async def test_r8_3_acting_out_of_turn_is_refused(tables: Tables) -> None:
    table = await dealt(tables)
    before = await Before.of(table)
    rejection = await refused(table.act(SECOND, PlayTile(parse_tile("1-1"))))
    assert rejection.code is ErrorCode.NOT_YOUR_TURN
    await before.unchanged(table)


async def test_r8_3_a_spectator_cannot_act(tables: Tables) -> None:
    table = await dealt(tables)
    before = await Before.of(table)
    commands: tuple[PlayerCommand, ...] = (PlayTile(SIX_SIX), ResignMatch(), Start(), Reveal())
    for spectator in (None, CY):
        for command in commands:
            rejection = await refused(table.submit(spectator, command))
            assert rejection.code is ErrorCode.NOT_A_PLAYER
            await before.unchanged(table)


async def test_r8_3_a_seat_cannot_act_for_the_other_seat(tables: Tables) -> None:
    table = await dealt(tables)
    before = await Before.of(table)
    # The first seat is to act, but its player's token is not the second seat's.
    for command in (PlayTile(parse_tile("1-1")), ResignMatch()):
        rejection = await refused(table.act(FIRST, command, seat=SECOND))
        assert rejection.code is ErrorCode.NOT_YOUR_SEAT
        assert rejection.message == "you do not hold the second seat"
        await before.unchanged(table)
    resign = await refused(table.act(SECOND, ResignMatch(), seat=FIRST))
    assert resign.code is ErrorCode.NOT_YOUR_SEAT
    await before.unchanged(table)
    # Watching as the other seat is refused too (each view is its receiver's, R2.2).
    peek = refused_now(lambda: table.subscribe(table.player(SECOND), None, Audience.FIRST))
    assert peek.code is ErrorCode.NOT_YOUR_SEAT


async def test_r8_3_a_storage_failure_refuses_the_command_and_changes_nothing(
    tables: Tables,
) -> None:
    table = await dealt(tables)
    actor = table.actor
    watcher = table.subscribe(None, actor.version)
    messages(watcher)
    version = actor.version
    before = await Before.of(table)
    assert actor.state.clock.running is FIRST
    table.advance(13_000)
    table.store.fail_appends = True
    rejection = await refused(table.act(FIRST, PlayTile(SIX_SIX)))
    assert rejection.code is ErrorCode.STORAGE_FAILED
    await before.unchanged(table)
    assert messages(watcher) == []  # nobody hears of what was not stored
    table.store.fail_appends = False
    # The same command, against the same version, now succeeds and is charged normally.
    assert await table.act(FIRST, PlayTile(SIX_SIX), version=version) == version + 1
    assert actor.state.clock.bank_ms.first == 117_000
    assert actor.state.clock.running is SECOND
    assert [m["version"] for m in messages(watcher)] == [version + 1]


async def test_r8_3_a_storage_failure_on_a_deal_changes_nothing(tables: Tables) -> None:
    table = await tables.open(
        fake_time_settings(), time_source=FakeTime(), deck_source_for=repeat(DRAW_DECK)
    )
    actor = table.actor
    await table.act(FIRST, Start())
    before = await Before.of(table)
    commitment = actor.state.commitment
    table.store.fail_appends = True
    rejection = await refused(table.act(SECOND, Start()))
    assert rejection.code is ErrorCode.STORAGE_FAILED
    await before.unchanged(table)
    assert actor.state.match.phase is Phase.AWAITING_DEAL
    assert actor.state.commitment == commitment
    table.store.fail_appends = False
    await table.act(SECOND, Start())
    assert actor.state.match.round_number == 1


async def test_r8_3_a_storage_failure_on_a_reveal_changes_nothing(tables: Tables) -> None:
    table = await tables.open(
        fake_time_settings(),
        time_source=FakeTime(),
        deck_source_for=repeat(DRAW_DECK),
        mode=MatchMode.SHARED,
    )
    actor = table.actor
    await table.start_round()
    assert actor.state.handover is FIRST
    before = await Before.of(table)
    table.store.fail_appends = True
    rejection = await refused(table.submit(ANN, Reveal()))
    assert rejection.code is ErrorCode.STORAGE_FAILED
    await before.unchanged(table)
    assert table.view(Audience.DEVICE)["hand"] is None
    table.store.fail_appends = False
    await table.submit(ANN, Reveal())
    assert actor.state.handover is None
    assert actor.state.clock.running is FIRST


async def test_r8_3_commands_before_the_second_seat_is_taken_are_refused(
    tables: Tables,
) -> None:
    table = await tables.open(fake_time_settings(), time_source=FakeTime(), join=False)
    actor: MatchActor = table.actor
    before = await Before.of(table)
    start = await refused(table.submit(ANN, Start()))
    assert start.code is ErrorCode.WRONG_PHASE
    draw = await refused(table.submit(ANN, DrawTile()))
    assert draw.code is ErrorCode.WRONG_PHASE
    await before.unchanged(table)
    assert actor.version == 0


async def test_d4_a_round_row_and_the_final_header_come_with_their_versions(
    tables: Tables,
) -> None:
    """The deal's commitment is the round's row as soon as the deal is stored; the match's end
    is in its header in the same write as the ending version, and a refused ending write leaves
    the header live (the durability order)."""
    table = await dealt(tables)
    actor, store = table.actor, table.store
    rounds = await store.rounds(actor.id)
    commitment = actor.state.commitment
    assert commitment is not None
    assert [(r.number, r.commitment, r.salt) for r in rounds] == [(1, commitment.commitment, None)]
    table.store.fail_appends = True
    await refused(table.act(FIRST, ResignMatch()))
    header = await store.match(actor.id)
    assert header is not None
    assert header.status is MatchStatus.ACTIVE
    assert not actor.state.match.is_over
    table.store.fail_appends = False
    await table.act(FIRST, ResignMatch())
    header = await store.match(actor.id)
    assert header is not None
    assert header.status is MatchStatus.FINISHED
    assert header.winner == "second"
    (revealed,) = await store.rounds(actor.id)
    assert revealed.salt is not None
    assert revealed.deck is not None


async def test_d3_a_start_already_in_effect_is_acknowledged_and_changes_nothing(
    tables: Tables,
) -> None:
    """Start/Continue is a press, not a move (D3): it is never refused as stale. A seat
    that already pressed, or a press made before the last deal, gets an ack with no new version;
    a move made against an old version is still refused (R8.3)."""
    table = await tables.open(
        fake_time_settings(), time_source=FakeTime(), deck_source_for=repeat(DRAW_DECK)
    )
    actor = table.actor
    joined = actor.version
    assert await table.act(FIRST, Start()) == joined + 1
    assert actor.state.ready == {FIRST}
    before = await Before.of(table)
    for version in (joined + 1, joined, 0):  # again, and against older versions
        assert await table.act(FIRST, Start(), version=version) == joined + 1
        await before.unchanged(table)
    # The second seat's press, made before the first seat's, is a press of its own: it deals.
    assert await table.act(SECOND, Start(), version=joined) == joined + 2
    assert actor.state.match.round_number == 1
    assert actor.state.dealt_version == joined + 2
    before = await Before.of(table)
    for seat in (FIRST, SECOND):  # made before the deal: already in effect
        assert await table.act(seat, Start(), version=joined + 1) == joined + 2
        await before.unchanged(table)
    stale = await refused(table.act(SECOND, DrawTile(), version=joined + 1))
    assert stale.code is ErrorCode.STALE_VERSION
    await before.unchanged(table)
    # Against the current version there is no round to start: that is still refused.
    now = await refused(table.act(FIRST, Start()))
    assert now.code is ErrorCode.WRONG_PHASE
    await before.unchanged(table)


async def test_r7_5_a_reveal_already_in_effect_is_acknowledged_and_changes_nothing(
    tables: Tables,
) -> None:
    """Reveal is a press too (D3): pressed twice, or made before the current hand-over
    began, it gets an ack — and never shows the next player's hand (R7.5)."""
    table = await tables.open(
        fake_time_settings(),
        time_source=FakeTime(),
        deck_source_for=repeat(DRAW_DECK),
        mode=MatchMode.SHARED,
    )
    actor = table.actor
    dealt = await table.start_round()
    assert actor.state.handover is FIRST
    before = await Before.of(table)
    for version in range(dealt):  # made before this hand-over began
        assert await table.submit(ANN, Reveal(), version=version) == dealt
        await before.unchanged(table)
    assert await table.submit(ANN, Reveal()) == dealt + 1
    assert actor.state.revealed is FIRST
    before = await Before.of(table)
    for version in (dealt + 1, dealt):  # this reveal is in effect
        assert await table.submit(ANN, Reveal(), version=version) == dealt + 1
        await before.unchanged(table)
    assert await table.submit(ANN, Start(), version=dealt - 1) == dealt + 1  # before the deal
    await before.unchanged(table)
    played = await table.submit(ANN, PlayTile(SIX_SIX))
    assert actor.state.handover is SECOND
    before = await Before.of(table)
    # A press left over from the first seat's hand-over does not reveal the second seat.
    assert await table.submit(ANN, Reveal(), version=played - 1) == played
    await before.unchanged(table)
    assert table.view(Audience.DEVICE)["hand"] is None
    assert await table.submit(ANN, Reveal()) == played + 1
    assert actor.state.revealed is SECOND


async def test_a_command_on_a_server_that_lost_its_lease_is_refused_busy_and_changes_nothing(
    tables: Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A peer took this server's lease (OPERATIONS.md, "Running it for real"): the command's version
    # cannot be stored here; the player is told to try again (where the match now is), not
    # that storage failed.
    table = await dealt(tables)
    before = await Before.of(table)

    async def fenced(*_args: object, **_kwargs: object) -> None:
        raise LeaseLostError("this server lost its lease on the database")

    monkeypatch.setattr(table.store, "append", fenced)
    rejection = await refused(table.act(FIRST, PlayTile(SIX_SIX)))
    assert rejection.code is ErrorCode.SERVER_BUSY
    assert rejection.retry_after_s == 1
    assert "lost its lease" in rejection.message
    monkeypatch.undo()
    await before.unchanged(table)
