"""The relay's parts for one process, started and stopped together (PROTOCOL.md "Several servers on
one database").

Only with a bus (``REDIS_URL``) and a store shared by several processes (a server id): one
process on its own relays nothing and runs exactly as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from spectacular_bid.service.bus import Bus
from spectacular_bid.service.matches import MatchService
from spectacular_bid.web.departure import Departure
from spectacular_bid.web.relay import Relay
from spectacular_bid.web.relay_owner import OwnerSide
from spectacular_bid.web.remote_room import RemoteRooms
from spectacular_bid.web.room import Rooms
from spectacular_bid.web.shared_lobby import LOBBY_KEY, SharedLobby


@dataclass(eq=False)
class Relaying:
    bus: Bus
    relay: Relay
    owner: OwnerSide
    remote: RemoteRooms
    lobby: SharedLobby
    departure: Departure
    scan_ms: int
    name: str = "redis"
    """As ``/readyz`` names it among the optional dependencies."""

    @classmethod
    def new(
        cls,
        bus: Bus,
        server_id: str,
        service: MatchService,
        rooms: Rooms,
        relayed: Callable[[int], None],
    ) -> Relaying:
        relay = Relay(bus, server_id, service.now_ms)
        remote = RemoteRooms(relay, rooms.settings, relayed, service.tasks)
        service.failover.on_ended.append(remote.ended_here)
        lobby = SharedLobby(bus, server_id, service, rooms)
        departure = Departure(service, relay, rooms)
        departure.handover.ended.append(remote.ended_here)
        owner = OwnerSide(relay, service, rooms)
        scan_ms = service.settings.orphan_scan_ms
        return cls(bus, relay, owner, remote, lobby, departure, scan_ms)

    async def start(self) -> None:
        await self.bus.start()
        await self.relay.start()
        self.owner.start()
        self.remote.start()
        self.lobby.start()
        self.departure.handover.start(self.scan_ms)

    async def stop(self) -> None:
        await self.departure.handover.stop()
        await self.lobby.close()
        await self.remote.close()
        await self.owner.close()
        await self.relay.close()
        await self.bus.close()

    async def registered_as(self, server_id: str) -> None:
        """This process registered again under ``server_id`` after its lease was lost
        (``service.failover``): calls and the lobby's share go by the new id from now on, and
        the sockets of other processes' matches here reconnect (their owners dropped them while
        this process was away)."""
        self.remote.restart_all()
        await self.relay.close()
        self.relay.server_id = server_id
        await self.relay.start()
        self.lobby.key = LOBBY_KEY + server_id

    async def unready_reason(self) -> str | None:
        """Redis down means degraded, not unready: this process's own matches go on."""
        return None if self.bus.is_up else "not connected to Redis"
