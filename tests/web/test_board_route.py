"""``GET /api/board`` (docs/RULES.md, Appendix B): the board of a placement sequence, as a match's
``board`` shows it, for the rules overlay's pictures of Appendix B. Bad notation and refused
placements are clear 422s that name the move."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from spectacular_bid.rules.notation import parse_moves
from spectacular_bid.web.routes.board import MOVES_MAX
from spectacular_bid.web.snapshot import BoardSnapshot

STATIC = Path(__file__).resolve().parents[2] / "static"
LONG = "1-4 1-1@1-4:smaller 4-4@1-4:larger 3-4@4-4:lineB 1-2@1-1:lineB 1-5@1-1:branchA"


async def board(client: httpx.AsyncClient, moves: str) -> httpx.Response:
    return await client.get("/api/board", params={"moves": moves})


async def test_a_worked_position_gives_its_open_places_and_counted_ends(
    client: httpx.AsyncClient,
) -> None:
    # Appendix B: [1|1] on the smaller end of [1|4] is the spinner; 2 + 4 = 6, no award (R3.4).
    response = await board(client, "1-4 1-1@1-4:smaller")
    assert response.status_code == 200
    got = BoardSnapshot.model_validate(response.json())
    assert got.tiles == ["1-4", "1-1"]
    assert got.spinner == "1-1"
    assert [(j.old, j.new) for j in got.joints] == [("1-4:smaller", "1-1:lineA")]
    assert sorted(got.open_places) == ["1-1:lineB", "1-4:larger"]
    assert sorted(got.scoring_ends) == [("1-1", 2), ("1-4", 4)]
    assert (got.ends_sum, got.award) == (6, 0)


async def test_the_spinners_branches_open_and_count_nothing(client: httpx.AsyncClient) -> None:
    # R3.4: [1|5] on branch A: [1|2] 2 + [1|5] 5 + [3|4] 3 = 10, award 10; branch B open, zero.
    got = (await board(client, LONG)).json()
    assert sorted(map(tuple, got["scoring_ends"])) == [("1-2", 2), ("1-5", 5), ("3-4", 3)]
    assert "1-1:branchB" in got["open_places"]
    assert (got["ends_sum"], got["award"]) == (10, 10)


@pytest.mark.parametrize(
    ("moves", "code", "names"),
    [
        ("1-4 1-9@1-4:smaller", "bad_message", "1-9"),
        ("1-4 2-3@1-4:smaller", "illegal", ""),
        ("1-4 1-4@1-4:smaller", "illegal", ""),
        ("1-4 1-1@6-6:lineA", "illegal", ""),
        ("", "bad_message", "moves"),
        ("1-4 " * (MOVES_MAX // 4 + 1), "bad_message", "moves"),
    ],
)
async def test_bad_moves_are_refused_clearly(
    client: httpx.AsyncClient, moves: str, code: str, names: str
) -> None:
    response = await board(client, moves)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == code
    assert names in error["message"]


def test_every_worked_position_in_the_rules_pages_is_a_board() -> None:
    """The overlay's figures (three languages) hold the same moves, and each is a legal board."""
    found = {}
    for lang in ("en", "fi", "uk"):
        text = (STATIC / "rules" / f"{lang}.html").read_text(encoding="utf-8")
        found[lang] = re.findall(r'<figure class="worked" data-moves="([^"]+)">', text)
    assert found["en"] == found["fi"] == found["uk"]
    assert len(found["en"]) == 12
    for moves in found["en"]:
        assert parse_moves(moves).tiles
