"""A version's ``update`` messages as an owner sends them to its match's sockets on other server
processes (PROTOCOL.md "Several servers on one database"), one finished text per audience watched
there.

Not JSON: each message is already JSON text, and wrapping them in a JSON object escaped every
quote of them on the owner and unescaped it again on the receiver, which then put the
``update`` together itself — the relay's largest costs after the snapshots themselves (stack
samples of ``specbid bench server --processes 2``). Here a header line gives the version, the
owner's wall time of sending (for the relay-time histogram) and each text's audience and
length, and the texts follow back to back, to be sliced out as they are::

    V<version> <sent_ms> <audience>:<length>,<audience>:<length>
    <text><text>
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, NamedTuple

MARK: Final = "V"
"""The first character of such a message; every other message of a match's channel is a JSON
object."""
FORMAT: Final = 2
"""What a process says it reads when it attaches a socket: an owner sends these texts only
while every process attached to the match reads them, and the JSON of earlier releases
otherwise (a deploy has both for a while)."""


class VersionTexts(NamedTuple):
    version: int
    sent_ms: int
    texts: dict[str, str]
    """Each audience's ``update`` message, by the audience's value."""


def encode(version: int, sent_ms: int, texts: Iterable[tuple[str, str]]) -> str:
    pairs = list(texts)
    sizes = ",".join(f"{audience}:{len(text)}" for audience, text in pairs)
    return f"{MARK}{version} {sent_ms} {sizes}\n" + "".join(text for _, text in pairs)


def decode(message: str) -> VersionTexts:
    """The texts of a message :func:`encode` made; ``ValueError`` for anything else."""
    head, newline, body = message.partition("\n")
    fields = head[len(MARK) :].split(" ")
    if not message.startswith(MARK) or not newline or len(fields) != 3:
        raise ValueError(f"not a version's texts: {head[:80]!r}")
    version, sent_ms, sizes = fields
    texts: dict[str, str] = {}
    start = 0
    for part in sizes.split(",") if sizes else ():
        audience, _, length = part.partition(":")
        end = start + int(length)
        texts[audience] = body[start:end]
        start = end
    if start != len(body):
        raise ValueError(f"the texts' lengths do not add up: {start} of {len(body)}")
    return VersionTexts(int(version), int(sent_ms), texts)
