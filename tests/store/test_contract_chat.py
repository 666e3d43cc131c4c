"""Chat lines through the storage port (PROTOCOL.md "chat"), the same on the in-memory reference
store and every SQL backend: a line is stored whole and read back in number order, any text
round-trips, and a line that cannot be stored (its number taken, its match unknown) is refused
with :class:`StorageError` and changes nothing."""

from __future__ import annotations

import pytest

from spectacular_bid.service.ports import ChatRecord, MatchStore, StorageError

from .factories import WALL_MS, seed


def line(number: int, *, match_id: str = "m1", text: str | None = "hi") -> ChatRecord:
    return ChatRecord(
        match_id,
        number,
        "players" if number % 2 else "spectators",
        "p-ann" if number % 2 else "p-bob",
        "Ann" if number % 2 else "Bob",
        "first" if number % 2 else None,
        text,
        None if text is not None else "good_luck",
        WALL_MS + number,
    )


async def test_lines_come_back_whole_in_number_order(any_store: MatchStore) -> None:
    await seed(any_store, "m1", "m2")
    said = [line(2, text=None), line(1, text='Fünf – ✓ 🂡 "quoted"'), line(3)]
    for each in said:
        await any_store.add_chat_line(each)
    await any_store.add_chat_line(line(1, match_id="m2"))
    assert await any_store.chat_lines("m1") == sorted(said, key=lambda x: x.number)
    assert await any_store.chat_lines("m2") == [line(1, match_id="m2")]
    assert await any_store.chat_lines("nothing") == []


@pytest.mark.parametrize("bad", ["number taken", "no such match"])
async def test_a_line_that_cannot_be_stored_changes_nothing(
    any_store: MatchStore, bad: str
) -> None:
    await seed(any_store, "m1")
    await any_store.add_chat_line(line(1))
    wrong = line(1, text="again") if bad == "number taken" else line(2, match_id="nowhere")
    with pytest.raises(StorageError):
        await any_store.add_chat_line(wrong)
    assert await any_store.chat_lines("m1") == [line(1)]
    assert await any_store.chat_lines("nowhere") == []
    await any_store.add_chat_line(line(2))  # the store goes on
    assert [x.number for x in await any_store.chat_lines("m1")] == [1, 2]
