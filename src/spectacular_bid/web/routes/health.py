"""``/api/health``: how loaded the server is, for operators, load balancers and the benchmark.

It answers while the server is busy too (busy is a state, not a failure): ``busy`` says whether new
matches are being refused now (PROTOCOL.md "When the server is busy"), with the readings behind it.
Nothing in it is about any one match or player.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request

from spectacular_bid.web.appstate import Service
from spectacular_bid.web.collector import Collector
from spectacular_bid.web.json_body import StrictJsonRoute
from spectacular_bid.web.notation import WireModel
from spectacular_bid.web.socket_caps import SocketCaps

router = APIRouter(prefix="/api/health", tags=["health"], route_class=StrictJsonRoute)


class Pause(WireModel):
    at_ms: int
    """When the loop woke, on the server's monotonic clock (``now_ms``)."""
    lag_ms: int
    """How late it woke."""
    cpu_ms: int
    """CPU the event loop's thread used over the tick's interval (100 ms plus ``lag_ms``): near
    the whole interval, the server was working; near none, it was preempted or blocked."""
    preempted: int
    """How often the kernel took the CPU from the loop's thread in that interval while it could
    run: the machine's cores were busy with something else."""


class Health(WireModel):
    busy: bool
    """True while new matches are refused with 503 ``server_busy``."""
    live_matches: int
    open_sockets: int
    lag_ms: int
    """The event loop's mean lateness over the last second."""
    cpu: float
    """The process's share of one core over the last two seconds."""
    max_pause_ms: int
    """The longest event-loop stall since start-up."""
    pauses: list[Pause]
    """The latest stalls of 20 ms or more, oldest first."""
    now_ms: int
    """The server's monotonic ms, the time base of ``pauses``."""
    admitted: int
    refused: int
    """New matches let in and turned away since start-up."""
    max_live_matches: int | None
    """The most live matches admitted at once now; null: no cap."""
    max_live_matches_source: Literal["operator", "estimate"] | None
    """Where that cap comes from: the operator's setting, never changed, or the server's
    estimate of the machine's speed, revised while it runs (OPERATIONS.md, "Under load and
    abuse")."""
    gc_max_ms: float | None
    """The longest garbage collection since start-up; null when the server does not run its
    collector itself (an app inside tests)."""


@router.get("", response_model=Health)
async def read_health(request: Request, service: Service) -> Health:
    admission = service.admission
    live = service.live_count()
    load = admission.load(live)
    busy = admission.is_busy(live)
    caps = request.app.state.socket_caps
    assert isinstance(caps, SocketCaps)
    collector = request.app.state.collector
    assert collector is None or isinstance(collector, Collector)
    return Health(
        busy=busy,
        live_matches=live,
        open_sockets=caps.open_sockets,
        lag_ms=load.lag_ms,
        cpu=round(load.cpu, 3),
        max_pause_ms=admission.max_lag_ms,
        pauses=[Pause(**pause._asdict()) for pause in admission.pauses],
        now_ms=service.now_ms(),
        admitted=admission.admitted,
        refused=admission.refused,
        max_live_matches=admission.cap.value,
        max_live_matches_source=admission.cap.source,
        gc_max_ms=round(collector.max_pause_ms, 1) if collector is not None else None,
    )
