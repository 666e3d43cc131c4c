"""A shared device over a real server: the hand-over pause and Reveal (R7.5)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from .server import LiveServer
from .wire import Api, Peer, choose, open_peer

HANDOVERS = 4
MOVE_SEED = 5
STAND_S = 0.2
"""How long the test watches a standing clock not move."""


async def assert_handover(api: Api, device: Peer, token: str, match_id: str, seat: str) -> None:
    """The pause of R7.5: the seat to take the device is named, no hand or legal action is sent,
    the clocks stand (and stay standing), and play is refused until Reveal."""
    view = device.view
    assert (view["handover"], view["to_act"]) == (seat, seat)
    assert (view["hand"], view["legal"], view["must_play"], view["opening_tile"]) == (
        None,
        None,
        None,
        None,
    )
    clock = view["clock"]
    assert (clock["running"], clock["deadline_ms"], clock["delay_left_ms"]) == (None, None, 0)
    await asyncio.sleep(STAND_S)  # the time under test: it passes, the clocks stand
    later = (await api.read(match_id, token))["match"]
    assert later["audience"] == "device"
    assert later["hand"] is None
    assert later["clock"]["bank_left_ms"] == clock["bank_left_ms"]
    assert later["clock"]["running"] is None
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("play", {"tile": "6-6", "at": None}),
        ("draw", {}),
    ]
    for kind, fields in attempts:
        reply = await device.command(kind, **fields)
        assert (reply["type"], reply["code"], reply["version"]) == (
            "error",
            "handover_pending",
            device.version,
        ), reply


async def test_a_shared_device_pauses_for_each_handover(server: LiveServer) -> None:
    """R7.5: after every turn that passes the move, a hand-over with clocks standing and no
    hand sent; ``handover_pending`` until ``reveal``, then the hand and the running clock."""
    api = Api(server)
    token = await api.guest("Ann and Bob")
    match_id = await api.new_match(token, "shared")
    device = await open_peer(server, match_id, "device", token)
    spectator = await open_peer(server, match_id, "spectator")
    state = await device.receive()
    assert state["match"]["audience"] == "device"
    assert (state["match"]["status"], state["match"]["phase"]) == ("active", "awaiting_deal")
    assert state["match"]["players"]["first"] == state["match"]["players"]["second"]

    await device.act("start")  # one press deals on a shared device (D3)
    rng = random.Random(MOVE_SEED)
    handovers = 0
    seat: str | None = None
    while handovers < HANDOVERS:
        view = device.view
        if view["to_act"] != seat:
            seat = view["to_act"]
            assert seat is not None
            await assert_handover(api, device, token, match_id, seat)
            handovers += 1
            revealed = await device.act("reveal")
            update = next(
                f for f in device.frames if f["type"] == "update" and f["version"] == revealed
            )
            assert update["events"] == [{"version": revealed, "type": "revealed", "seat": seat}]
            shown = device.view
            assert shown["handover"] is None
            assert shown["hand"] is not None
            assert len(shown["hand"]) == shown["hand_counts"][seat]
            assert shown["legal"] is not None
            assert shown["clock"]["running"] == seat
            assert shown["clock"]["deadline_ms"] is not None
        command: dict[str, Any] = choose(device.view["legal"], rng)
        await device.act(command.pop("type"), **command)

    await spectator.update_at(device.version)
    for frame in spectator.frames:
        if "match" in frame:
            assert frame["match"]["hand"] is None
    assert not spectator.errors()
    assert {e["code"] for e in device.errors()} == {"handover_pending"}
    for peer in (device, spectator):
        await peer.close()
    await api.close()
