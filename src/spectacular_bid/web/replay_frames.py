"""Replay frames: the view after every version of an ended match, for the replay viewer.

The browser holds no rules (R8.1: the server keeps the score), so the server re-runs the record
through the match machine (:func:`spectacular_bid.service.replay.replay`) and sends, for each
version, what a spectator saw plus both hands and the undrawn boneyard: everything is public once
the match has ended (D4).
"""

from __future__ import annotations

from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.notation import tile_text
from spectacular_bid.rules.seats import Seat
from spectacular_bid.rules.views import view_for
from spectacular_bid.service.describe import command_text
from spectacular_bid.service.ports import JSON
from spectacular_bid.service.record_document import MatchDocument
from spectacular_bid.service.replay import replay
from spectacular_bid.web.view_json import to_json

FRAMES_FORMAT = "spectacular-bid/replay-frames"


def _view(match: Match) -> JSON:
    view: dict[str, JSON] = to_json(view_for(match, None))
    rnd = match.round
    view["hands"] = (
        None
        if rnd is None
        else {
            "first": [tile_text(t) for t in rnd.hand(Seat.FIRST)],
            "second": [tile_text(t) for t in rnd.hand(Seat.SECOND)],
        }
    )
    view["boneyard"] = (
        [tile_text(t) for t in rnd.boneyard_left()]
        if rnd is not None and match.phase is not Phase.AWAITING_DEAL
        else None
    )
    return view


def replay_frames(document: MatchDocument, bot_level: int | None = None) -> JSON:
    """``{"format", "match", "frames": [...]}``: frame 0 is the match before anything, then one
    frame per recorded version with its label, its recorded events and clock, and the view.
    ``match`` is the record's header with ``bot_level``, the level of the computer in its second
    seat (the record names players, not ids, so the caller reads it from the stored header)."""
    frames: list[JSON] = [
        {"version": 0, "label": "start", "events": [], "view": _view(Match()), "clock": None}
    ]
    for entry, step, state in replay(document):
        match = state.match
        frames.append(
            {
                "version": entry.get("version"),
                "label": command_text(entry, step.command, match),
                "events": entry.get("events") or [],
                "view": _view(match),
                "clock": entry.get("clock"),
            }
        )
    header: JSON = {**document.match, "bot_level": bot_level}
    return {"format": FRAMES_FORMAT, "match": header, "frames": frames}
