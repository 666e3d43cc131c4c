"""A bot's whole input is its own seat's view (R2.2, D4; PROTOCOL.md "POST /api/matches"): the
events it is given never name a hidden tile of the running round, and the bots package can reach no
live match, only the rules. What decide takes and returns pickles, for a worker process."""

from __future__ import annotations

import ast
import pickle
import random
from pathlib import Path

import pytest

from spectacular_bid.bots import decide
from spectacular_bid.rules.actions import Drew, Event, OpenerChosen, Played, RoundDealt, RoundEnded
from spectacular_bid.rules.tiles import Tile

from .positions import StepClock, random_position

BOTS = Path(__file__).resolve().parents[2] / "src" / "spectacular_bid" / "bots"


def tiles_named(event: Event) -> set[Tile]:
    """Every tile an event shows its viewer."""
    if isinstance(event, RoundDealt):
        named = {t for hand in event.hands if hand is not None for t in hand}
        return named | set(event.boneyard or ())
    if isinstance(event, RoundEnded):
        return {t for hand in event.hands for t in hand}
    if isinstance(event, Played | Drew | OpenerChosen) and event.tile is not None:
        return {event.tile}
    return set()


@pytest.mark.parametrize("seed", range(30))
def test_decide_is_given_no_hidden_tile(seed: int) -> None:
    game = random_position(seed, steps=seed * 5)
    seat = game.to_act
    rnd = game.match.round
    assert rnd is not None
    hidden = set(rnd.hand(seat.other)) | set(rnd.boneyard_left())
    assert hidden  # a running round always hides something: no vacuous pass
    seen = tuple(game.seen[seat])
    last_deal = max(i for i, e in enumerate(seen) if isinstance(e, RoundDealt))
    for event in seen[last_deal:]:
        assert not tiles_named(event) & hidden, event
    for event in seen:
        if isinstance(event, RoundDealt):
            assert event.hands[seat.other] is None
            assert event.boneyard is None
    # The real match's own events do name hidden tiles: the filter is what keeps them out.
    assert any(tiles_named(e) & hidden for e in game.raw)
    action = decide(3, seat, seen, random.Random(seed), clock=StepClock(), budget_s=0.5)
    assert action in game.match.legal_actions(seat)


def test_decide_inputs_and_output_pickle() -> None:
    game = random_position(7, steps=20)
    seat = game.to_act
    rng = random.Random(3)
    seen = game.seen[seat]
    copied = pickle.loads(pickle.dumps((seat, seen, rng)))
    action = decide(4, *copied, clock=StepClock(), budget_s=0.5)
    assert pickle.loads(pickle.dumps(action)) == action
    assert action == decide(4, seat, seen, rng, clock=StepClock(), budget_s=0.5)


def bots_imports() -> dict[str, set[str]]:
    """For each bots module, every package module it imports."""
    found: dict[str, set[str]] = {}
    for path in sorted(BOTS.glob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
        found[path.name] = names
    return found


def test_bots_import_only_the_rules_and_themselves() -> None:
    imports = bots_imports()
    assert {"knowledge.py", "worlds.py", "search.py", "levels.py"} <= imports.keys()
    ours = {n for names in imports.values() for n in names if n.startswith("spectacular_bid")}
    assert ours  # the walk saw the package's own imports
    for name in ours:
        assert name.startswith(("spectacular_bid.rules.", "spectacular_bid.bots.")), name
