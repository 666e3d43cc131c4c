"""Comments, docstrings and tests cite what a reader of this repository can open: the rule ids of
docs/RULES.md (R…, D…) and the sections of README.md and of the other documents in docs/
(PROTOCOL.md, ARCHITECTURE.md, OPERATIONS.md, BENCHMARKS.md) — never the number of an issue in a
tracker, nor the rules of a style guide kept outside the repository.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("src", "static", "tests")
SUFFIXES = frozenset({".py", ".js", ".css", ".html", ".md", ".txt", ".toml", ".cfg"})

FORBIDDEN = re.compile(
    r"(?<![a-z])issue[\s_]*#?\d+"  # an issue by its number, in prose or in a name
    r"|\bSTYLE\.md\b"  # the style guide, which lives outside the repository
    r"|\bSTYLE\s+rules?\s+\d",  # one of its rules by number
    re.IGNORECASE,
)


def uncitable(text: str) -> list[tuple[int, str]]:
    """The lines of ``text`` that cite an issue number or the outside style guide."""
    return [
        (number, line.strip())
        for number, line in enumerate(text.splitlines(), start=1)
        if FORBIDDEN.search(line)
    ]


def scanned_files() -> list[Path]:
    return sorted(
        path
        for part in SCANNED
        for path in (ROOT / part).rglob("*")
        if path.is_file()
        and path.suffix in SUFFIXES
        and not any(p in {"node_modules", "__pycache__", "dist"} for p in path.parts)
    )


def test_the_scan_sees_the_tree() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in scanned_files()}
    assert "src/spectacular_bid/rules/match.py" in names
    assert "static/js/board.js" in names
    assert "tests/test_citations.py" in names


def test_nothing_cites_an_issue_number_or_the_outside_style_guide() -> None:
    found = [
        f"{path.relative_to(ROOT).as_posix()}:{number}: {line}"
        for path in scanned_files()
        for number, line in uncitable(path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert found == []


# The bad examples are built from parts, so that this file passes its own check.
ISSUE, STYLE = "issue", "STYLE"


@pytest.mark.parametrize(
    "text",
    [
        f'"""Draining before a stop ({ISSUE} 13 item 7)."""',
        f"# see {ISSUE.title()} #12",
        f"def test_{ISSUE}9_a_press() -> None:",
        f"// rated only between accounts ({ISSUE} 11)",
        f"the client holds no rules ({STYLE} rule 8)",
        f"imports flow one way ({STYLE}.md, rule 1)",
    ],
)
def test_the_check_catches(text: str) -> None:
    assert uncitable(text) == [(1, text.strip())]


@pytest.mark.parametrize(
    "text",
    [
        '"""Draining before a stop (PROTOCOL.md "Probes and metrics")."""',
        "the server issues a new token (R8.3, D4)",
        "the issue asks",
        "STYLE = 'compact'",
    ],
)
def test_the_check_allows(text: str) -> None:
    assert uncitable(text) == []
