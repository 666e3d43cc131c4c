"""The load generator's end of a run: every slot is cancelled until it has ended, even one that
dropped a cancellation (Python 3.11's ``asyncio.wait_for`` can) and would otherwise have played
on for minutes after the window."""

from __future__ import annotations

import asyncio

from spectacular_bid.bench.server_driver import cancel_all


async def _deaf(times: int, ended: list[str]) -> None:
    """A slot that drops its first ``times`` cancellations and then plays on."""
    dropped = 0
    while True:
        try:
            await asyncio.sleep(3600)  # a slot that plays for ever, until cancelled
        except asyncio.CancelledError:
            if dropped == times:
                ended.append("deaf")
                raise
            dropped += 1


async def _failing() -> None:
    raise RuntimeError("a slot's own failure")


async def test_a_slot_that_drops_its_cancellations_is_ended_too() -> None:
    ended: list[str] = []
    tasks = [
        asyncio.create_task(_deaf(0, ended)),
        asyncio.create_task(_deaf(1, ended)),
        asyncio.create_task(_deaf(3, ended)),
        asyncio.create_task(_failing()),
    ]
    await asyncio.sleep(0)  # one turn of the loop, not a wait: every slot reaches its await
    loop = asyncio.get_running_loop()
    started = loop.time()

    ending = asyncio.create_task(cancel_all(tasks, every_s=0.01))
    try:
        await asyncio.wait([ending], timeout=5)
        assert ending.done(), "a slot that dropped a cancellation kept the run waiting"
    finally:
        for _ in range(5):  # what a failed run left is ended here, not left to hang the test
            for task in [ending, *tasks]:
                task.cancel()
            await asyncio.sleep(0)  # one turn of the loop: each cancellation is delivered

    assert all(task.done() for task in tasks)
    assert ended == ["deaf"] * 3
    assert loop.time() - started < 1.0
    assert isinstance(tasks[3].exception(), RuntimeError), "a failure is kept, not raised"


async def test_nothing_to_cancel_ends_at_once() -> None:
    done = asyncio.create_task(asyncio.sleep(0))
    await done
    await asyncio.wait_for(cancel_all([done]), 0.5)
    await asyncio.wait_for(cancel_all([]), 0.5)
