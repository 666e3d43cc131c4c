"""Draining: a server asked to stop lets its live matches end before it closes (PROTOCOL.md "Probes
and metrics").

A match's state lives in the process that serves it, and a match cut off by a stop is ended
aborted at the next start (D5). So with ``drain_s`` set, the first SIGTERM (or Ctrl-C) does not
stop uvicorn: the server drains. ``/readyz`` says 503 so the proxy sends it nothing new, new
matches are refused as ``server_busy`` (the client tries again and, through the proxy, reaches a
replica that stays), and the matches already running play on — their players may even reconnect
— until the last one ends or ``drain_s`` runs out. Only then does uvicorn stop as it always did:
it closes the sockets, and the matches still live are ended at the next start (D5). A second
signal cuts the drain short. A container runtime must wait longer than ``drain_s`` before it
kills the process (``compose.yaml``'s ``stop_grace_period``).

With ``drain_s`` 0 (the default) a signal stops the server at once, as before.

With peers (several servers on one database relaying through Redis) the first signal hands
the live matches to a live peer instead (``web/departure.py``, PROTOCOL.md "Several servers on one
database") and then stops at once; only when no peer is alive does the server drain as above.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from types import FrameType
from typing import Final

import uvicorn

from spectacular_bid.service.matches import MatchService

log = logging.getLogger(__name__)

POLL_S: Final = 0.5
"""How often the drain looks whether the last match has ended."""

HandOver = Callable[[], Awaitable[bool]]
"""Hands the live matches to a peer; whether one took them (``Departure.leave``)."""


async def drain(
    service: MatchService, drain_s: float, cut_short: Callable[[], bool], poll_s: float = POLL_S
) -> int:
    """Stop taking matches, wait up to ``drain_s`` for the live ones to end (or until
    ``cut_short()``), and return how many are still live."""
    service.admission.start_draining()
    live = service.live_count()
    if drain_s <= 0 or live == 0:
        return live
    log.warning("draining: waiting up to %g s for %d live matches to end", drain_s, live)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + drain_s
    while live and not cut_short() and (left := deadline - loop.time()) > 0:
        await asyncio.sleep(min(poll_s, left))
        live = service.live_count()
    if live:
        log.warning("drained with %d matches still live: they end aborted (D5)", live)
    else:
        log.warning("drained: every match has ended")
    return live


class DrainingServer(uvicorn.Server):
    """uvicorn's server, whose first stop signal drains before the usual shutdown.

    uvicorn takes its signals with a plain ``signal.signal`` handler, which may run between any
    two bytecodes of the loop's thread, so the handler only notes the request; the drain starts
    at uvicorn's next tick (every 0.1 s), in the loop.
    """

    def __init__(
        self,
        config: uvicorn.Config,
        service: MatchService,
        drain_s: float,
        hand_over: HandOver | None = None,
    ) -> None:
        super().__init__(config)
        self._service = service
        self.drain_s = drain_s
        """How long the first signal's drain may last; 0: no drain."""
        self._hand_over = hand_over
        self._signal: int | None = None
        self._cut_short = False
        self._draining: asyncio.Task[None] | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if (self.drain_s <= 0 and self._hand_over is None) or self._signal is not None:
            self._cut_short = True  # a second signal: stop now
            super().handle_exit(sig, frame)
            return
        self._signal = sig

    async def on_tick(self, counter: int) -> bool:
        if self._signal is not None and self._draining is None:
            self._service.admission.start_draining()  # unready from this tick on
            self._draining = asyncio.get_running_loop().create_task(self._drain_then_exit())
        return await super().on_tick(counter)

    async def _drain_then_exit(self) -> None:
        try:
            if self._hand_over is None or not await self._hand_over():
                await drain(self._service, self.drain_s, lambda: self._cut_short)
        finally:
            if not self.should_exit:
                assert self._signal is not None
                super().handle_exit(self._signal, None)  # uvicorn's own shutdown from here
