"""``/livez`` and ``/readyz``: the two questions a container runtime and a proxy ask.

They are different questions with different costs of a wrong answer:

- **live** — should this process be killed and restarted? Only when its event loop no longer
  answers, so ``/livez`` touches nothing but the loop: a slow database must not get a replica
  restarted (its live matches would end aborted, D5).
- **ready** — should the proxy send this replica new players? Not while its database is
  unreachable or not at the migrations' head, nor while it drains before a stop, nor while its
  lease is lost or past its term (OPERATIONS.md, "Running it for real"), nor while a periodic task
  keeps failing (``service.periodic``). Those are
  ``503`` with every reason. A dependency the replica can serve without (Redis, once the relay
  between replicas uses it) makes it ``degraded``, not unready: a ``200`` that names it, so a
  failing relay does not take every replica out of the proxy at once.

``/api/health`` is the third reading, of load; it stays as it is.
"""

from __future__ import annotations

import asyncio
from typing import Final, Protocol

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from spectacular_bid.service.ports import MatchStore
from spectacular_bid.web.appstate import Service
from spectacular_bid.web.json_body import StrictJsonRoute
from spectacular_bid.web.notation import WireModel

router = APIRouter(tags=["health"], route_class=StrictJsonRoute)

OPTIONAL_TIMEOUT_S: Final = 1.0
"""An optional dependency that does not answer within this long counts as down."""


class OptionalDependency(Protocol):
    """Something a replica serves better with but can serve without (``app.state.optional``)."""

    name: str

    async def unready_reason(self) -> str | None:
        """Why it cannot be used now, or None."""
        ...


class Liveness(WireModel):
    live: bool


class Readiness(WireModel):
    ready: bool
    reasons: list[str]
    """Why new players should not be sent here; empty when ``ready``."""
    draining: bool
    """The server is stopping: it takes no new match, its live ones play on."""
    degraded: list[str]
    """Optional dependencies that are down (``"redis"``): ready, but with less."""


@router.get("/livez", response_model=Liveness)
async def read_livez() -> Liveness:
    """Answered by the event loop itself, so that an answer is the proof."""
    return Liveness(live=True)


@router.get("/readyz", response_model=Readiness, responses={503: {"model": Readiness}})
async def read_readyz(request: Request, service: Service) -> JSONResponse:
    store = request.app.state.store
    optional: list[OptionalDependency] = request.app.state.optional
    draining = service.admission.draining
    reasons = ["the server is draining before it stops"] if draining else []
    # Read before anything is awaited: a process woken past its lease says so at once.
    lease_reason = store.lease_reason()
    if lease_reason is not None:
        reasons.append(lease_reason)
    reasons += service.tasks.unready_reasons()
    store_reason, *optional_reasons = await asyncio.gather(
        _store_reason(store), *(_optional_reason(dependency) for dependency in optional)
    )
    if store_reason is not None and store_reason != lease_reason:
        reasons.append(store_reason)
    degraded = [d.name for d, why in zip(optional, optional_reasons, strict=True) if why]
    body = Readiness(ready=not reasons, reasons=reasons, draining=draining, degraded=degraded)
    return JSONResponse(body.model_dump(), status_code=200 if body.ready else 503)


async def _store_reason(store: MatchStore) -> str | None:
    return await store.unready_reason()


async def _optional_reason(dependency: OptionalDependency) -> str | None:
    try:
        async with asyncio.timeout(OPTIONAL_TIMEOUT_S):
            return await dependency.unready_reason()
    except TimeoutError:
        return f"{dependency.name} did not answer within {OPTIONAL_TIMEOUT_S:g} s"
    except Exception as exc:  # an optional dependency never fails the probe
        return f"{dependency.name}: {type(exc).__name__}: {exc}"
