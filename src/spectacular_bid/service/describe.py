"""``specbid replay``: a stored match move by move, as the machine re-runs it (D4)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from spectacular_bid.rules.actions import Bid, Play
from spectacular_bid.rules.match import Match
from spectacular_bid.service.commands import RecordedCommand, SaltedDeal
from spectacular_bid.service.record_document import MatchDocument
from spectacular_bid.service.replay import replay


def _compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def describe(document: MatchDocument) -> Iterator[str]:
    """The match move by move, for ``specbid replay``: each version's command; after a
    placement, the board description of docs/RULES.md Appendix A; after a transfer, both balances;
    then the clock reading. Stops with :class:`RecordMismatchError` at a command the engine
    refuses."""
    header = document.match
    names = {s: document.name(s) or "(empty)" for s in ("first", "second")}
    ending = (
        f"{header['winner']} ({names[header['winner']]}) wins"
        if header["winner"] in names
        else "aborted, no result"
    )
    rated = "rated" if header["rated"] else "unrated"
    yield (
        f"Match {document.id} ({header['mode']}): {names['first']} (first) v "
        f"{names['second']} (second). {ending}: {header['reason']}, {rated}."
    )
    for entry, step, state in replay(document):
        match = state.match
        yield f"v{entry['version']} {command_text(entry, step.command, match)}"
        for event in entry["events"]:
            line = _event_text(event, match)
            if line is not None:
                yield f"  {line}"
        clock = _clock_text(entry.get("clock"))
        if clock is not None:
            yield f"  {clock}"


def command_text(entry: Mapping[str, Any], action: RecordedCommand, match: Match) -> str:
    """A recorded version's command in words, language-neutral (``first: play 1-4@4-4:lineA``):
    the one labeller of commands, for ``specbid replay`` and the replay frames' labels."""
    command = entry["command"]
    kind = command.get("type")
    if isinstance(action, Play):
        return f"{action.seat}: play {action}"
    if isinstance(action, Bid):
        return f"{action.seat}: bid {action.amount}"
    if isinstance(action, SaltedDeal):
        pressed = f" (on {entry['seat']}'s start)" if entry.get("seat") else ""
        return f"deal round {match.round_number}{pressed}"
    if kind == "join":
        return f"{command.get('seat')}: join"
    if kind == "abort":
        seat = command.get("seat")  # D7's names the seat whose first decision never came
        return f"abort ({command.get('reason')}" + (f", {seat})" if seat else ")")
    if kind == "flag":
        return f"flag {command.get('seat')} (time)"
    if kind == "resume":
        return f"resume on another server after {command.get('paused_ms')} ms (not charged)"
    seat = command.get("seat")
    return f"{seat}: {kind}" if seat else str(kind)


def _event_text(event: Mapping[str, Any], match: Match) -> str | None:
    kind = event.get("type")
    if kind == "played":
        board = match.round.board if match.round is not None else None
        return board.describe() if board is not None else None
    if kind == "transferred":
        balances = event["balances"]
        return (
            f"{event['payer']} pays {event['payee']} {event['amount']} ({event['reason']}): "
            f"balances first {balances['first']}, second {balances['second']}"
        )
    if kind == "round_dealt":
        hands = event["hands"]
        return (
            f"round {event['number']} dealt: first {' '.join(hands['first'])}; "
            f"second {' '.join(hands['second'])}; boneyard {' '.join(event['boneyard'])}"
        )
    if kind == "deck_committed":
        return f"deck commitment of round {event['round']}: {event['commitment']}"
    if kind == "deck_revealed":
        return f"deck of round {event['round']} revealed: salt {event['salt']}"
    if kind == "round_ended":
        totals = event["pip_totals"]
        return (
            f"round {event['number']} ends ({event['reason']}): pips first {totals['first']}, "
            f"second {totals['second']}"
        )
    if kind == "match_ended":
        winner = event.get("winner")
        result = f"{winner} wins" if winner else "no result"
        undecided = f", {event['undecided']}" if event.get("undecided") else ""  # D7
        return f"match ends: {result} ({event['reason']}{undecided})"
    if kind == "opener_chosen":
        tile = event.get("tile")
        return f"{event['seat']} opens" + (f" with {tile}" if tile else " with any tile")
    if kind == "drew":
        return f"{event['seat']} draws {event['tile']} ({event['boneyard_count']} left)"
    if kind == "passed":
        return f"{event['seat']} passes (forced)"
    if kind == "seat_taken":
        return f"{event['name']} takes the {event['seat']} seat"
    if kind in ("ready", "revealed"):
        return None
    fields = ", ".join(f"{k} {_compact(v)}" for k, v in event.items() if k != "type")
    return f"{kind}: {fields}" if fields else str(kind)


def _clock_text(clock: object) -> str | None:
    if not isinstance(clock, dict) or not isinstance(clock.get("bank_left_ms"), dict):
        return None
    banks = clock["bank_left_ms"]
    running = clock.get("running")
    text = f"clock: first {_seconds(banks.get('first'))}, second {_seconds(banks.get('second'))}"
    if running is None:
        return text + "; stopped"
    return f"{text}; {running} to move, delay {_seconds(clock.get('delay_left_ms'))}"


def _seconds(ms: object) -> str:
    if not isinstance(ms, int):
        return "?"
    return f"{ms // 1000}.{ms % 1000:03d} s"
