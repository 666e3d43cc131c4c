"""The project's own rules document, ``docs/RULES.md`` (a clone must not depend on
a file outside it). Every rule id the code and the tests cite is defined there; the rules overlay
of each language names the same ids; and every worked position of its Appendix B is what the
engine describes, so the document cannot drift from the game."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spectacular_bid.cli import main

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "RULES.md"
CITED = re.compile(r"\b(R[1-8]\.\d{1,2}|D[1-9])\b")
DEFINED = re.compile(r"^- \*\*(R\d\.\d{1,2}|D\d)\*\* ", re.MULTILINE)
POSITION = re.compile(r"^`([0-9@:a-zA-Z\- ]+)` → `(Tiles: .+)`$", re.MULTILINE)
LONG_GAME = re.compile(r"^A longer game, `([0-9@:a-zA-Z\- ]+)`,$", re.MULTILINE)
LONG_FINAL = re.compile(r"^  `(Tiles: .+)`$", re.MULTILINE)


def defined() -> list[str]:
    return DEFINED.findall(RULES.read_text(encoding="utf-8"))


def test_every_rule_is_defined_once() -> None:
    ids = defined()
    assert len(ids) == 54  # R1.1 … R8.3 (46) and D1 … D8
    assert len(set(ids)) == len(ids)


def test_every_cited_rule_is_in_the_document() -> None:
    rules = set(defined())
    cited: dict[str, set[str]] = {}
    for folder in ("src", "tests", "static/js", "alembic"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in {".py", ".js"}:
                continue
            for rule in CITED.findall(path.read_text(encoding="utf-8")):
                cited.setdefault(rule, set()).add(str(path.relative_to(ROOT)))
    assert len(cited) > 30  # the code does cite its rules
    assert {rule: sorted(paths) for rule, paths in cited.items() if rule not in rules} == {}


@pytest.mark.parametrize("language", ["en", "fi", "uk"])
def test_the_rules_overlay_names_the_same_rules(language: str) -> None:
    html = (ROOT / "static" / "rules" / f"{language}.html").read_text(encoding="utf-8")
    shown = set(re.findall(r'<span class="rid">(R\d\.\d{1,2}|D\d)</span>', html))
    assert shown == set(defined())


def test_the_worked_positions_are_what_the_engine_describes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = RULES.read_text(encoding="utf-8")
    positions = POSITION.findall(text)
    assert len(positions) == 5
    [long_game] = LONG_GAME.findall(text)
    [long_final] = LONG_FINAL.findall(text)
    positions.append((long_game, long_final))
    for moves, description in positions:
        assert main(["board", *moves.split()]) == 0
        out, _ = capsys.readouterr()
        assert out.splitlines()[-1] == description, moves
