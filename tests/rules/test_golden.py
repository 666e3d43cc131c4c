"""Golden playthroughs (the third kind of engine tests): whole seeded matches replayed in CI.

Each file ``tests/golden/match_seed_<seed>.txt`` is the transcript of one complete random match
(format: ``tests/rules/transcript.py``). The test replays the file's inputs on a fresh engine and
records the seed again; both must give the file back exactly, so any change of behaviour — an
event, an award, a board description, a balance — fails here with a readable diff.

After an intended change of the rules engine, regenerate the files and review their diff::

    SPECBID_UPDATE_GOLDEN=1 .venv/bin/pytest tests/rules/test_golden.py

The seeds were chosen by a small search so that the set covers:

- seed 3: 5 rounds (3 by domino, 1 blocked with a block settlement, R4.6), 3 auctions with
  raises, 29 draws, 2 forced passes; ends when an accepted bid takes the whole balance (R6.5).
- seed 7: 6 rounds, 5 auctions with 7 raises, jockey discounts (R6.4), forced accepts (R6.6);
  ends mid-round when an award empties a balance (R1.4, R1.5).
- seed 11: 4 rounds, 3 auctions (one raise), ends mid-round by an award (R1.5).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

import pytest

from spectacular_bid.rules.errors import NotationError

from .transcript import format_action, parse_inputs, record, replay

GOLDEN_DIR: Final = Path(__file__).resolve().parent.parent / "golden"
SEEDS: Final = (3, 7, 11)
UPDATE: Final = os.environ.get("SPECBID_UPDATE_GOLDEN") == "1"


def golden_path(seed: int) -> Path:
    return GOLDEN_DIR / f"match_seed_{seed}.txt"


def read_golden(seed: int) -> str:
    return golden_path(seed).read_text(encoding="utf-8")


@pytest.mark.parametrize("seed", SEEDS)
def test_golden_match_replays_exactly(seed: int) -> None:
    """Replaying the recorded inputs regenerates the whole file, and recording the seed again
    gives the same match."""
    if UPDATE:
        GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
        golden_path(seed).write_text(record(seed), encoding="utf-8")
    text = read_golden(seed)
    assert replay(text) == text
    assert record(seed) == text


def test_golden_set_covers_a_block_and_a_raise() -> None:
    """The chosen seeds hold at least one blocked round (R4.6) and one auction with a raise
    (R6.2), and every match ends with a result."""
    texts = [read_golden(seed) for seed in SEEDS]
    assert any("ended by block" in text for text in texts)
    assert any(
        "  transferred" in line and " block (" in line for t in texts for line in t.split("\n")
    )
    raised = False
    for text in texts:
        bids_in_auction = 0
        for line in text.splitlines():
            if line.startswith("  auction opened"):
                bids_in_auction = 0
            elif line.startswith("  bid "):
                bids_in_auction += 1
                raised = raised or bids_in_auction >= 2
    assert raised
    assert all(text.splitlines()[-1].startswith("result ") for text in texts)
    assert all("result unfinished" not in text for text in texts)


def test_replay_detects_a_changed_event_line() -> None:
    """An altered event line (here the first award transfer) is not reproduced by the engine."""
    text = read_golden(SEEDS[0])
    lines = text.split("\n")
    index = next(i for i, line in enumerate(lines) if line.startswith("  transferred "))
    lines[index] = lines[index].replace("transferred ", "transferred 1", 1)
    altered = "\n".join(lines)
    assert altered != text
    assert replay(altered) != altered
    assert replay(altered) == text


def test_replay_reports_a_refused_input() -> None:
    """An input the engine refuses is written as ``rejected:`` and ends the replay (R8.3)."""
    text = read_golden(SEEDS[0])
    lines = text.split("\n")
    index = next(
        i for i, line in enumerate(lines) if line.startswith(("first play", "second play"))
    )
    seat = lines[index].split()[0]
    lines[index] = f"{seat} draw"
    regenerated = replay("\n".join(lines))
    assert "  rejected: " in regenerated
    assert regenerated.rstrip("\n").endswith("result unfinished")


def test_transcript_inputs_round_trip() -> None:
    """Every input line parses back to the action that wrote it; bad lines are refused."""
    text = read_golden(SEEDS[1])
    inputs = parse_inputs(text)
    assert inputs.seed == SEEDS[1]
    input_lines = [
        line for line in text.splitlines() if line.startswith(("deal ", "first ", "second "))
    ]
    assert [format_action(action) for action in inputs.actions] == input_lines
    with pytest.raises(NotationError, match="invalid command"):
        parse_inputs("seed 1\nfirst jump 3-4\n")
    with pytest.raises(NotationError, match="no seed"):
        parse_inputs("first draw\n")
