"""Decoding a client's text frame into a JSON value, before it is validated (PROTOCOL.md "Limits and
close codes").

``json`` alone lets two things through that would surface later, far from the door: a key given
twice in an object (``json`` keeps the last, so a proxy or a log reader may read another message
than the server does) and a lone surrogate (half a character, which no UTF-8 reply can carry);
:func:`decode_client_text` refuses both as a :class:`FrameRefusal`. A refused message's
``error`` still carries its id when that is certain: :func:`client_id_of` reads it from a decoded
frame, :func:`client_id_in` from one refused before it is read. ``messages.py`` then turns the
value into a model (:func:`~spectacular_bid.web.messages.parse_client_message`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.web.message_base import CLIENT_ID_MAX


def client_id_of(data: object) -> str | None:
    """The correlation id of a frame, if it has a usable one, even when the frame is invalid."""
    if isinstance(data, dict):
        value = data.get("id")
        if isinstance(value, str) and _is_usable_id(value):
            return value
    return None


def _is_usable_id(value: str) -> bool:
    """An id that can be echoed: short enough, and text a reply can carry (UTF-8 has no lone
    surrogate: one in a reply would fail the socket's send)."""
    return len(value) <= CLIENT_ID_MAX and (value.isascii() or not _SURROGATE.search(value))


_SURROGATE = re.compile(r"[\ud800-\udfff]")
_MAYBE_SURROGATE = re.compile(r"[\ud800-\udfff]|\\u[dD][89a-fA-F]")
"""A surrogate in the text, or JSON's escape of one (``\\ud800``); paired escapes
(``\\ud83d\\ude00``, one emoji) match too and pass the check after decoding."""


class FrameRefusal(Rejection):
    """A frame that is no message (not JSON, a key twice, a lone surrogate): a ``bad_message``
    with the frame's id when that is certain."""

    def __init__(self, message: str, client_id: str | None = None) -> None:
        super().__init__(ErrorCode.BAD_MESSAGE, message)
        self.client_id = client_id


class _DuplicateKey(Exception):  # noqa: N818 - raised through json's decoder, caught below
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json's ``object_pairs_hook``: an object, or :class:`_DuplicateKey`. The set is built only
    when ``dict`` dropped a pair, so the common case costs one ``dict`` call."""
    data = dict(pairs)
    if len(data) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return data


_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys)
"""Built once: ``json.loads`` with a hook builds a new decoder per call."""


def decode_client_text(text: str) -> object:
    """A text frame's JSON value; raise :class:`FrameRefusal` when it is not JSON, has a key
    twice in an object, or holds a lone surrogate anywhere.

    json keeps the last of two equal keys, so ``{"version": 3, "version": 9}`` would mean one
    thing to this server and maybe another to a proxy or a log reader: refused. JSON may also
    spell half a character (``"\\ud800"``), which decodes to a Python string no UTF-8 reply can
    carry: echoed as an id, quoted in an error or stored, it would fail later, far from here.
    Refusing it at the door keeps every string past this point valid text.
    """
    try:
        data = _DECODER.decode(text)
    except _DuplicateKey as exc:
        client_id = None if exc.key == "id" else client_id_in(text)
        raise FrameRefusal(
            f"a key appears twice in an object: {exc.key[:40]!r}", client_id
        ) from None
    except (ValueError, RecursionError) as exc:
        raise FrameRefusal(f"not JSON: {exc}") from None
    if (not text.isascii() or "\\u" in text) and _MAYBE_SURROGATE.search(text):
        bad = _lone_surrogate_in(data)
        if bad is not None:
            raise FrameRefusal(
                f"a string holds a lone surrogate (half a character): {bad[:40]!r}",
                client_id_of(data),
            )
    return data


def _lone_surrogate_in(data: object) -> str | None:
    """The first string (key or value) of ``data`` with a surrogate in it. After decoding, a pair
    is one character, so any surrogate left is alone. A loop, not recursion: nesting as deep as
    the decoder allows must not raise here."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return item
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


_WS = r"[ \t\n\r]*+"
_STRING = r'"[^"\\]*+(?:\\.[^"\\]*+)*+"'
_SCALAR = rf"(?>{_STRING}|-?[0-9]++(?:\.[0-9]++)?(?:[eE][-+]?[0-9]++)?|true|false|null)"
_BEFORE_ID = re.compile(
    rf'{_WS}\{{(?>{_WS}(?!"id"{_WS}:){_STRING}{_WS}:{_WS}{_SCALAR}{_WS},)*+{_WS}"id"{_WS}:{_WS}(?=")'
)
"""An object's opening up to the value of its ``"id"`` member, every member before it a scalar
(as in every client message), so the match is certainly top-level. Possessive (3.11) throughout:
the match never backtracks, so it takes time linear in the text."""
_MEMBER_END = re.compile(rf"{_WS}[,}}]")


def client_id_in(text: str) -> str | None:
    """The top-level ``id`` of a frame that is not parsed (refused by the rate limit before
    it is read): one regular expression, then json's decoder on the id's string alone — far
    less work than decoding and validating a flood. None unless certain, so also when a member
    before the id is an array or an object, or the key ``id`` is spelt with escapes."""
    match = _BEFORE_ID.match(text)
    if match is None:
        return None
    try:
        value, end = _DECODER.raw_decode(text, match.end())  # a string: the lookahead saw '"'
    except ValueError:
        return None
    if isinstance(value, str) and _is_usable_id(value) and _MEMBER_END.match(text, end):
        return value
    return None
