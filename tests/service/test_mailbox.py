"""The one-reader queue of match actors and sockets (OPERATIONS.md "Under load and abuse"): first
in, first out, the reader woken by a put, and nothing held while empty."""

from __future__ import annotations

import asyncio

import pytest

from spectacular_bid.service.mailbox import Mailbox


async def test_items_come_out_in_order_and_a_waiting_reader_is_woken() -> None:
    box: Mailbox[int] = Mailbox()
    assert (box.empty(), box.qsize()) == (True, 0)
    reader = asyncio.create_task(box.get())
    await asyncio.sleep(0)  # one turn of the loop, not a wait: the reader reaches its await
    assert not reader.done()
    box.put_nowait(1)
    box.put_nowait(2)
    assert await reader == 1
    assert (box.qsize(), box.get_nowait()) == (1, 2)
    assert box.empty()
    with pytest.raises(IndexError):
        box.get_nowait()


async def test_a_cancelled_reader_leaves_the_mailbox_usable() -> None:
    box: Mailbox[str] = Mailbox()
    reader = asyncio.create_task(box.get())
    await asyncio.sleep(0)  # one turn of the loop, not a wait: the reader reaches its await
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    box.put_nowait("after")
    assert await box.get() == "after"


async def test_a_second_reader_is_a_bug() -> None:
    box: Mailbox[int] = Mailbox()
    first = asyncio.create_task(box.get())
    await asyncio.sleep(0)  # one turn of the loop, not a wait: the reader reaches its await
    with pytest.raises(RuntimeError, match="one reader"):
        await box.get()
    box.put_nowait(5)
    assert await first == 5


def test_an_empty_mailbox_holds_no_deque() -> None:
    box: Mailbox[int] = Mailbox()
    box.put_nowait(1)
    assert box.get_nowait() == 1
    assert box._items is None  # the memory this module exists to save
