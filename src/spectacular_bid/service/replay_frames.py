"""Replay frames: the view after every version of an ended match, for the replay viewer.

The browser holds no rules (STYLE rule 8), so the server re-runs the recorded commands through
the engine and sends, for each version, what a spectator would have seen plus both hands and the
undrawn boneyard — everything is public once the match has ended (D4).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.seats import Seat
from spectacular_bid.rules.views import view_for
from spectacular_bid.service.codec import JSON, parse_action, to_json
from spectacular_bid.service.ports import EventRecord

_SERVICE_COMMANDS: Final = frozenset({"join", "start", "reveal"})


def _label(command: JSON) -> str:
    """A short, language-neutral description of a recorded command (the client translates)."""
    kind = command.get("type", "?")
    seat = command.get("seat")
    if kind == "play":
        at = command.get("at")
        move = command["tile"] if at is None else f"{command['tile']}@{at}"
        return f"{seat} play {move}"
    if kind == "bid":
        return f"{seat} bid {command.get('amount')}"
    if kind == "deal":
        return "deal"
    if kind == "flag":
        return f"{seat} flag"
    if kind == "abort":
        return f"abort {command.get('reason')}"
    return f"{seat} {kind}" if seat else str(kind)


def replay_frames(records: Sequence[EventRecord]) -> list[JSON]:
    """One frame per recorded version, in order; frame 0 is the match before anything."""
    match = Match()
    frames: list[JSON] = [_frame(match, 0, "start of the match", [], None)]
    for record in records:
        command = record.command
        kind = command.get("type") if isinstance(command, dict) else None
        if kind is not None and kind not in _SERVICE_COMMANDS:
            match.apply(parse_action(command))
        events = record.events if isinstance(record.events, list) else []
        frames.append(_frame(match, record.version, _label(command or {}), events, record.clock))
    return frames


def _frame(match: Match, version: int, label: str, events: list[JSON], clock: JSON) -> JSON:
    view = to_json(view_for(match, None))
    rnd = match.round
    in_round = rnd is not None
    view["hands"] = (
        {
            "first": [t.notation() for t in rnd.hand(Seat.FIRST)],
            "second": [t.notation() for t in rnd.hand(Seat.SECOND)],
        }
        if in_round and rnd is not None
        else None
    )
    view["boneyard"] = (
        [t.notation() for t in rnd.boneyard_left()]
        if rnd is not None and match.phase is not Phase.AWAITING_DEAL
        else None
    )
    return {"version": version, "label": label, "events": events, "view": view, "clock": clock}
