"""A player who stops answering loses on time, flagged by the server itself (R7.7, D6). Both
have decided once before (a player who never decided is not flagged but the match aborted, D7:
``test_first_decision.py``)."""

from __future__ import annotations

from .server import LiveServer
from .wire import Api, Msg, Peer, legal_options, open_peer


async def decide_once_each(seats: dict[str, Peer], dealt: int) -> int:
    """Each seat makes one decision of its own (drawing when it must, D1, which is none), in
    turn from the deal; returns the version after the second seat's first decision."""
    decided: set[str] = set()
    version = dealt
    while len(decided) < 2:
        view = seats["first"].view
        seat = view["to_act"]
        options: list[Msg] = legal_options(seats[seat].view["legal"])
        command = next((o for o in options if o["type"] != "draw"), options[0])
        kind = command.pop("type")
        version = await seats[seat].act(kind, **command)
        if kind != "draw":
            decided.add(seat)
        for peer in seats.values():
            if peer is not seats[seat]:
                await peer.update_at(version)
    return version


BANK_MS = 800
DELAY_MS = 300
LATE_LIMIT_MS = 1_000
"""A loose bound on how late the flag may come on a loaded machine; it is never early."""


async def test_silence_loses_on_time_with_no_message_from_anyone(server: LiveServer) -> None:
    """R7.7, D6, R5.1: the server flags at (never before) the deadline by its own timer; the
    flagged seat's bank ends at 0 and the opponent wins on time."""
    api = Api(server)
    match_id, ann, bob = await api.duel(bank_ms=BANK_MS, delay_ms=DELAY_MS)
    first = await open_peer(server, match_id, "first", ann)
    second = await open_peer(server, match_id, "second", bob)
    spectator = await open_peer(server, match_id, "spectator")
    await first.act("start")
    await second.update_at(first.version)
    dealt = await second.act("start")
    await first.update_at(dealt)
    decided = await decide_once_each({"first": first, "second": second}, dealt)
    view = (await spectator.update_at(decided))["match"]
    flagged = view["to_act"]
    winner = "second" if flagged == "first" else "first"
    clock = view["clock"]
    deadline = clock["deadline_ms"]
    banks = clock["bank_left_ms"]
    assert clock["running"] == flagged
    assert view["first_decision_deadline_ms"] is None  # it decided once: R7.7 applies
    assert deadline - clock["now_ms"] == clock["delay_left_ms"] + banks[flagged]
    assert clock["delay_left_ms"] <= DELAY_MS

    # From here on nobody sends anything: the server's own timer ends the match.
    for peer in (first, second, spectator):
        end = await peer.update_at(decided + 1, timeout=(DELAY_MS + BANK_MS) / 1000 + 5)
        assert [(e["type"], e.get("reason")) for e in end["events"]] == [
            ("round_ended", "match_over"),
            ("match_ended", "time"),
            ("deck_revealed", None),
        ], end["events"]
        assert end["events"][1]["winner"] == winner
        match = end["match"]
        assert match["status"] == "finished"
        assert match["result"] == {"winner": winner, "reason": "time"}
        assert match["clock"]["running"] is None
        assert match["clock"]["bank_left_ms"] == {flagged: 0, winner: banks[winner]}
        assert deadline <= match["clock"]["now_ms"] < deadline + LATE_LIMIT_MS
        await peer.no_message(0.1)
    fetched = await api.read(match_id)
    assert (fetched["version"], fetched["match"]["result"]) == (decided + 1, first.view["result"])

    # A command after the flag changes nothing.
    late = await first.command("resign")
    assert (late["type"], late["code"], late["version"]) == ("error", "match_over", decided + 1)
    for peer in (first, second, spectator):
        await peer.close()
    await api.close()
