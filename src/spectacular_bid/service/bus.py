"""The port for messages between server processes (PROTOCOL.md "Several servers on one database"):
the relay's wire.

Several ``specbid serve`` processes share one database; a match is run by the one that owns its
lease, and its sockets may be on any. What passes between them — commands relayed to a match's
owner, each version's frames published to the others — goes over a :class:`Bus`, Redis in
production (``spectacular_bid.bus``). The database stays authoritative: a message that never
arrives costs a socket a resync, never an event, so a bus only ever delivers at most once and
says when it lost its connection (``on_reconnect``), after which every listener must assume a gap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

Handler = Callable[[str], None]
"""Called in the event loop with each message's text, in the order the channel delivered them."""


class BusDownError(RuntimeError):
    """The bus could not be reached: what was asked was not done."""


class Bus(Protocol):
    async def start(self) -> None:
        """Connect; a bus that is down now is retried in the background."""
        ...

    async def close(self) -> None: ...

    @property
    def is_up(self) -> bool:
        """Whether the bus is connected now (``/readyz`` reports it, PROTOCOL.md "Probes and
        metrics")."""
        ...

    def send(self, channel: str, text: str) -> None:
        """Send ``text`` to every process listening on ``channel``, after everything sent
        before it (one order for all the channels of a process, so a match's versions arrive
        in order). It never waits and never raises: while the bus is down, what is sent is
        lost, as any message may be."""
        ...

    async def listen(self, channel: str, handler: Handler) -> None:
        """Deliver ``channel``'s messages to ``handler`` from now on (one handler a channel)."""
        ...

    async def unlisten(self, channel: str) -> None: ...

    async def put(self, key: str, text: str, ttl_ms: int) -> None:
        """Keep ``text`` under ``key`` for ``ttl_ms`` (a process's share of the lobby, which
        lapses when the process dies); raise :class:`BusDownError` when the bus is down."""
        ...

    async def read(self, prefix: str) -> dict[str, str]:
        """Every key starting with ``prefix`` and its text; raise :class:`BusDownError`."""
        ...

    def on_reconnect(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` each time the bus comes back after losing its connection: messages
        sent meanwhile are lost, so every stream must be resynchronised."""
        ...
