"""A live match's move list, kept small in memory (the one-hour soak).

A ``state`` message carries every event of the match so far as its receiver may see it (PROTOCOL.md
"state"), so a room keeps them all, for as long as the match is in memory. Kept as the actor's
entries and their encoded frames, that was about 1.1 KiB a version: at 2,000 matches of a few
hundred versions each, the largest part of the server's memory, and still growing an hour in,
since a long match holds more the longer it runs.

So only the newest versions stay as text (the frames the resend window holds anyway); every
:data:`CHUNK` versions are joined per audience and compressed. The events of one chunk repeat
themselves, and the seats' texts differ from the spectator's only where a seat sees its own
tiles, so each seat's text is compressed against the spectator's as a preset dictionary: about
35 bytes a version for all three audiences together. A ``state`` is built far less often than
a version is added (a reload, a late spectator, a reconnect past the resend window), and
decompressing a long match's list takes well under a millisecond.
"""

from __future__ import annotations

import zlib
from typing import Final, NamedTuple

from spectacular_bid.service.audience import Audience
from spectacular_bid.web.frames import AUDIENCE_TEXT, VersionFrames

CHUNK: Final = 64
_SPECTATOR: Final = 2
_LEVEL: Final = 6


class _Chunk(NamedTuple):
    """One chunk's texts compressed: the spectator's alone, each seat's against it (``b""``
    when a seat's text is the spectator's)."""

    spectator: bytes
    first: bytes
    second: bytes


def _packed(text: bytes, dictionary: bytes) -> bytes:
    packer = zlib.compressobj(_LEVEL, zdict=dictionary) if dictionary else zlib.compressobj(_LEVEL)
    return packer.compress(text) + packer.flush()


def _unpacked(data: bytes, dictionary: bytes) -> bytes:
    unpacker = zlib.decompressobj(zdict=dictionary) if dictionary else zlib.decompressobj()
    return unpacker.decompress(data) + unpacker.flush()


class MoveLog:
    """Every version's events as each audience sees them, oldest first."""

    __slots__ = ("_chunks", "_open")

    def __init__(self) -> None:
        self._chunks: list[_Chunk] = []
        self._open: list[VersionFrames] = []

    def add(self, frames: VersionFrames) -> None:
        self._open.append(frames)
        if len(self._open) >= CHUNK:
            self._seal()

    def _seal(self) -> None:
        texts = [
            ",".join(text for f in self._open if (text := f.texts[i])).encode() for i in range(3)
        ]
        spectator = texts[_SPECTATOR]
        seats = [b"" if text == spectator else _packed(text, spectator) for text in texts[:2]]
        self._chunks.append(_Chunk(_packed(spectator, b""), seats[0], seats[1]))
        self._open = []

    def text(self, audience: Audience) -> str:
        """The events ``audience`` may see, as comma-separated JSON objects."""
        index = AUDIENCE_TEXT[audience]
        parts: list[str] = []
        for chunk in self._chunks:
            spectator = _unpacked(chunk.spectator, b"")
            own = chunk.first if index == 0 else chunk.second if index == 1 else b""
            data = _unpacked(own, spectator) if own else spectator
            if data:
                parts.append(data.decode())
        parts.extend(text for f in self._open if (text := f.texts[index]))
        return ",".join(parts)

    def __len__(self) -> int:
        return CHUNK * len(self._chunks) + len(self._open)
