"""Match ids: unguessable, URL-safe, and usable as a command-line argument (`specbid replay ID`)."""

from __future__ import annotations

from spectacular_bid.service.records import new_match_id


def test_match_ids_are_twelve_letters_or_digits_and_never_repeat() -> None:
    ids = [new_match_id() for _ in range(2_000)]
    assert all(len(i) == 12 and i.isascii() and i.isalnum() for i in ids)
    assert len(set(ids)) == len(ids)
