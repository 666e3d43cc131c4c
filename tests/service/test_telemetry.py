"""What the service measures for its operators (PROTOCOL.md "Probes and metrics"): each reading is
taken where it happens, once, and only for what it names — and the actor's logs name their match."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from spectacular_bid.clock import ClockSettings
from spectacular_bid.service.commands import Start
from spectacular_bid.service.refusals import ErrorCode
from spectacular_bid.service.settings import ServiceSettings
from spectacular_bid.service.state import Entry, MatchState
from spectacular_bid.service.telemetry import current_match
from waiting import until

from .helpers import DRAW_DECK, FIRST, SECOND, Tables, refused, repeat


@dataclass
class Recorded:
    """A :class:`~spectacular_bid.service.telemetry.Telemetry` that keeps every reading."""

    commands_ms: list[int] = field(default_factory=list)
    flags_ms: list[int] = field(default_factory=list)
    lags_ms: list[int] = field(default_factory=list)
    commits: list[tuple[float, int]] = field(default_factory=list)
    failed_tasks: list[str] = field(default_factory=list)

    def command_applied(self, latency_ms: int) -> None:
        self.commands_ms.append(latency_ms)

    def flag_fell(self, lateness_ms: int) -> None:
        self.flags_ms.append(lateness_ms)

    def loop_ticked(self, lag_ms: int) -> None:
        self.lags_ms.append(lag_ms)

    def batch_committed(self, seconds: float, writes: int) -> None:
        self.commits.append((seconds, writes))

    def task_failed(self, task: str) -> None:
        self.failed_tasks.append(task)


async def test_each_applied_command_is_timed_from_its_receive_time(tables: Tables) -> None:
    recorded = Recorded()
    settings = ServiceSettings(clock=ClockSettings(bank_ms=60_000, delay_ms=10_000))
    table = await tables.open(settings, deck_source_for=repeat(DRAW_DECK), telemetry=recorded)
    received_ms = table.now() - 40  # as if it had waited 40 ms in the actor's queue
    await table.act(FIRST, Start(), received_ms=received_ms)
    assert len(recorded.commands_ms) == 1
    assert 40 <= recorded.commands_ms[0] < 1_000
    # Neither a command that changes nothing (Start pressed again) nor a refused one (from a
    # spectator) stores a version, so neither is timed.
    await table.act(FIRST, Start())
    rejection = await refused(table.submit(None, Start()))
    assert rejection.code is ErrorCode.NOT_A_PLAYER
    assert len(recorded.commands_ms) == 1
    await table.act(SECOND, Start())
    assert len(recorded.commands_ms) == 2
    assert recorded.flags_ms == []


async def test_a_flag_is_timed_from_the_deadline(tables: Tables) -> None:
    recorded = Recorded()
    settings = ServiceSettings(clock=ClockSettings(bank_ms=300, delay_ms=200))
    table = await tables.open(
        settings, start_monitor=True, deck_source_for=repeat(DRAW_DECK), telemetry=recorded
    )
    await table.start_round()
    commands = len(recorded.commands_ms)
    await until(lambda: table.actor.state.match.is_over)
    assert len(recorded.flags_ms) == 1
    assert 0 <= recorded.flags_ms[0] < 250
    assert len(recorded.commands_ms) == commands  # the flag is no command
    # The lag monitor ran meanwhile (every 100 ms): each tick is a loop-lag reading.
    assert recorded.lags_ms
    assert all(lag >= 0 for lag in recorded.lags_ms)


class MatchOfTheTask:
    """A listener that notes which match the task publishing to it works for."""

    def __init__(self) -> None:
        self.seen: list[str | None] = []

    def published(self, entry: Entry, state: MatchState) -> None:
        self.seen.append(current_match.get())

    def closed(self) -> None:
        pass


async def test_the_actor_task_names_its_match_for_the_logs(tables: Tables) -> None:
    settings = ServiceSettings(clock=ClockSettings(bank_ms=60_000, delay_ms=10_000))
    table = await tables.open(settings, deck_source_for=repeat(DRAW_DECK))
    listener = MatchOfTheTask()
    table.actor.listen(listener)
    await table.start_round()
    assert listener.seen
    assert set(listener.seen) == {table.actor.id}
    # ...in the actor's own task only: the caller's context is left as it was.
    assert current_match.get() is None
    assert asyncio.current_task() is not None
