"""A place that passes the wire pattern but names a side its tile does not have is a
``bad_message``, not an ``illegal`` move (R8.3): :func:`rules.notation.parse_place` refuses it as
notation, and :func:`command_of` turns that into the rejection sent back, quoting the text."""

from __future__ import annotations

import pytest

from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.web.chat_messages import ClientChat
from spectacular_bid.web.messages import ClientPing, command_of, parse_client_message


@pytest.mark.parametrize(
    ("at", "reason"),
    [
        ("1-4:lineA", "[1|4] has no line A"),
        ("1-4:branchA", "[1|4] has no branch A"),
        ("1-1:smaller", "[1|1] has no smaller end"),
    ],
)
def test_a_side_the_tile_does_not_have_is_a_bad_message(at: str, reason: str) -> None:
    message = parse_client_message({"type": "play", "version": 1, "tile": "1-1", "at": at})
    assert not isinstance(message, ClientPing | ClientChat)
    with pytest.raises(Rejection) as caught:
        command_of(message)
    assert caught.value.code is ErrorCode.BAD_MESSAGE
    assert caught.value.message == f"invalid place: {at!r} ({reason})"
