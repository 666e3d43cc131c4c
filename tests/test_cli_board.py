"""``specbid board``: the worked positions of docs/RULES.md Appendix B, through the command line.

Expected lines are copied verbatim from docs/RULES.md (the joint dash is U+2013 with a space each
side). Most tests call :func:`spectacular_bid.cli.main` with captured output; the ``installed_*``
tests run the real ``specbid`` console script next to the interpreter, in a subprocess.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from spectacular_bid.cli import main

# -- Appendix B, verbatim ---------------------------------------------------------------------

LINE_1_4 = (
    "Tiles: [1|4]. Spinners: none. Joints: none. Open places: [1|4] (larger end, 4); "
    "[1|4] (smaller end, 1). Scoring ends: [1|4]: 4; [1|4]: 1. Sum: 4 + 1 = 5. Award: 5."
)
LINE_1_1 = (
    "Tiles: [1|4], [1|1]. Spinners: [1|1]. Joints: [1|4] (smaller end) – [1|1] (line A). "
    "Open places: [1|1] (line B, 1); [1|4] (larger end, 4). Scoring ends: [1|1]: 2; [1|4]: 4. "
    "Sum: 2 + 4 = 6. Award: 0."
)
LINE_6_6 = (
    "Tiles: [3|6], [6|6]. Spinners: [6|6]. Joints: [3|6] (larger end) – [6|6] (line A). "
    "Open places: [3|6] (smaller end, 3); [6|6] (line B, 6). Scoring ends: [3|6]: 3; "
    "[6|6]: 12. Sum: 3 + 12 = 15. Award: 15."
)
LINE_0_0 = (
    "Tiles: [0|0]. Spinners: [0|0]. Joints: none. Open places: [0|0] (line A, 0); "
    "[0|0] (line B, 0). Scoring ends: [0|0]: 0. Sum: 0 = 0. Award: 0."
)
LINE_2_2 = (
    "Tiles: [2|2]. Spinners: [2|2]. Joints: none. Open places: [2|2] (line A, 2); "
    "[2|2] (line B, 2). Scoring ends: [2|2]: 4. Sum: 4 = 4. Award: 0."
)

LONG_MOVES = [
    "1-4",
    "1-1@1-4:smaller",
    "4-4@1-4:larger",
    "3-4@4-4:lineB",
    "1-2@1-1:lineB",
    "1-5@1-1:branchA",
    "5-5@1-5:larger",
    "0-5@5-5:lineB",
    "1-3@1-1:branchB",
]
LONG_FINAL = (
    "Tiles: [1|4], [1|1], [4|4], [3|4], [1|2], [1|5], [5|5], [0|5], [1|3]. Spinners: [1|1]. "
    "Joints: [1|4] (smaller end) – [1|1] (line A); [1|4] (larger end) – [4|4] (line A); "
    "[4|4] (line B) – [3|4] (larger end); [1|1] (line B) – [1|2] (smaller end); "
    "[1|1] (branch A) – [1|5] (smaller end); [1|5] (larger end) – [5|5] (line A); "
    "[5|5] (line B) – [0|5] (larger end); [1|1] (branch B) – [1|3] (smaller end). "
    "Open places: [0|5] (smaller end, 0); [1|2] (larger end, 2); [1|3] (larger end, 3); "
    "[3|4] (smaller end, 3). Scoring ends: [0|5]: 0; [1|2]: 2; [1|3]: 3; [3|4]: 3. "
    "Sum: 0 + 2 + 3 + 3 = 8. Award: 0."
)
# Appendix B lists, for the long sequence's moves from the third on, the scoring ends, the sum
# and the award, and for some the open places. Each fragment is anchored at both ends by the
# surrounding text of the description (". Scoring ends:", the final "."), so a longer list or a
# different number cannot pass as a substring.
LONG_FRAGMENTS: list[tuple[str, str, str | None]] = [
    (
        "4-4@1-4:larger",
        "Scoring ends: [1|1]: 2; [4|4]: 8. Sum: 2 + 8 = 10. Award: 10.",
        "Open places: [1|1] (line B, 1); [4|4] (line B, 4). Scoring ends:",
    ),
    (
        "3-4@4-4:lineB",
        "Scoring ends: [1|1]: 2; [3|4]: 3. Sum: 2 + 3 = 5. Award: 5.",
        "Open places: [1|1] (line B, 1); [3|4] (smaller end, 3). Scoring ends:",
    ),
    (
        "1-2@1-1:lineB",
        "Scoring ends: [1|2]: 2; [3|4]: 3. Sum: 2 + 3 = 5. Award: 5.",
        "Open places: [1|1] (branch A, 1); [1|1] (branch B, 1); [1|2] (larger end, 2); "
        "[3|4] (smaller end, 3). Scoring ends:",
    ),
    (
        "1-5@1-1:branchA",
        "Scoring ends: [1|2]: 2; [1|5]: 5; [3|4]: 3. Sum: 2 + 5 + 3 = 10. Award: 10.",
        None,
    ),
    (
        "5-5@1-5:larger",
        "Scoring ends: [1|2]: 2; [3|4]: 3; [5|5]: 10. Sum: 2 + 3 + 10 = 15. Award: 15.",
        None,
    ),
    (
        "0-5@5-5:lineB",
        "Scoring ends: [0|5]: 0; [1|2]: 2; [3|4]: 3. Sum: 0 + 2 + 3 = 5. Award: 5.",
        None,
    ),
]

SHORT_POSITIONS = [
    ("1-4", LINE_1_4),
    ("1-4 1-1@1-4:smaller", LINE_1_1),
    ("3-6 6-6@3-6:larger", LINE_6_6),
    ("0-0", LINE_0_0),
    ("2-2", LINE_2_2),
]


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    """Run ``specbid board ARGV…`` in-process; return the status and the stdout lines."""
    status = main(["board", *argv])
    out, err = capsys.readouterr()
    assert err == ""
    assert out.endswith("\n")
    return status, out.split("\n")[:-1]


def run_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, text: str
) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    status = main(["board"])
    out, err = capsys.readouterr()
    assert err == ""
    return status, out


# -- Appendix B ------------------------------------------------------------------------------


@pytest.mark.parametrize(("moves", "expected"), SHORT_POSITIONS)
def test_short_position_last_line(
    capsys: pytest.CaptureFixture[str], moves: str, expected: str
) -> None:
    status, lines = run_main(capsys, *moves.split())
    assert status == 0
    assert len(lines) == len(moves.split())
    assert lines[-1] == expected


def test_spinner_after_opening_prints_both_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_main(capsys, "1-4", "1-1@1-4:smaller") == (0, [LINE_1_4, LINE_1_1])


def test_long_sequence_final_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = run_main(capsys, *LONG_MOVES)
    assert status == 0
    assert len(lines) == len(LONG_MOVES)
    assert lines[-1] == LONG_FINAL


def test_long_sequence_first_two_lines(capsys: pytest.CaptureFixture[str]) -> None:
    _, lines = run_main(capsys, *LONG_MOVES)
    assert lines[:2] == [LINE_1_4, LINE_1_1]


@pytest.mark.parametrize(
    ("index", "move", "ends", "places"),
    [(i + 2, *fragments) for i, fragments in enumerate(LONG_FRAGMENTS)],
    ids=[move for move, _, _ in LONG_FRAGMENTS],
)
def test_long_sequence_intermediate(
    capsys: pytest.CaptureFixture[str], index: int, move: str, ends: str, places: str | None
) -> None:
    assert LONG_MOVES[index] == move
    _, lines = run_main(capsys, *LONG_MOVES)
    line = lines[index]
    assert line.endswith(ends)
    assert ends in line
    if places is not None:
        assert places in line


# -- standard input ---------------------------------------------------------------------------


def test_stdin_sequences_and_blank_lines(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "\n1-4 1-1@1-4:smaller\n\n   \n0-0\n  2-2  \n"
    status, out = run_stdin(capsys, monkeypatch, text)
    assert status == 0
    assert out == f"{LINE_1_4}\n{LINE_1_1}\n\n{LINE_0_0}\n\n{LINE_2_2}\n\n"


def test_stdin_without_final_newline(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run_stdin(capsys, monkeypatch, "1-4") == (0, f"{LINE_1_4}\n\n")


def test_stdin_empty(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_stdin(capsys, monkeypatch, "\n\n") == (0, "")


# -- errors -----------------------------------------------------------------------------------

MALFORMED = [
    ("9-9", "error: 9-9: invalid placement: '9-9'"),
    ("1-4@x", "error: 1-4@x: invalid placement: '1-4@x' (expected TILE@AT:SIDE)"),
    (
        "1-4@1-4:middle",
        "error: 1-4@1-4:middle: invalid side: 'middle' "
        "(expected one of larger, smaller, lineA, lineB, branchA, branchB)",
    ),
]

ILLEGAL = [
    pytest.param(
        ["1-4"],
        "5-6@1-4:larger",
        "[5|6] does not match [1|4] (larger end, 4) (R3.1)",
        id="no-match",
    ),
    pytest.param(
        ["1-4", "1-1@1-4:smaller"],
        "1-2@1-4:smaller",
        "[1|4] (smaller end) is not an open place on the board",
        id="place-taken",
    ),
    pytest.param(
        ["1-4"], "4-5@5-5:lineA", "[5|5] (line A) is not an open place on the board", id="no-tile"
    ),
    pytest.param(
        ["1-4", "4-4@1-4:larger"], "1-4@4-4:lineB", "[1|4] is already on the board", id="twice"
    ),
    pytest.param(
        ["1-4"], "2-3", "[2|3] needs an open place: the board is not empty", id="second-opening"
    ),
    pytest.param(
        [],
        "1-4@1-4:larger",
        "[1|4] must open the board: it has no place [1|4] (larger end, 4)",
        id="empty-board",
    ),
]


@pytest.mark.parametrize(("move", "expected"), MALFORMED)
def test_malformed_move(capsys: pytest.CaptureFixture[str], move: str, expected: str) -> None:
    status, lines = run_main(capsys, "1-4", move, "4-4@1-4:larger")
    assert status == 2
    assert lines == [LINE_1_4, expected]


@pytest.mark.parametrize(("before", "move", "reason"), ILLEGAL)
def test_illegal_move(
    capsys: pytest.CaptureFixture[str], before: list[str], move: str, reason: str
) -> None:
    status, lines = run_main(capsys, *before, move, "6-6@1-4:larger")
    assert status == 2
    assert len(lines) == len(before) + 1
    assert lines[-1] == f"error: {move}: {reason}"


def test_error_at_first_move(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_main(capsys, "9-9", "1-4") == (2, ["error: 9-9: invalid placement: '9-9'"])


def test_odd_unicode_digit_is_an_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    # "²".isdigit() is true but int("²") fails: whatever the parser does, never a traceback.
    status, lines = run_main(capsys, "²-1")
    assert status == 2
    assert len(lines) == 1
    assert lines[0].startswith("error: ²-1: ")


def test_stdin_error_skips_rest_of_sequence_only(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "1-4 9-9 1-1@1-4:smaller\n\n0-0\n1-4 2-3 4-4@1-4:larger\n2-2\n"
    status, out = run_stdin(capsys, monkeypatch, text)
    assert status == 2
    assert out == (
        f"{LINE_1_4}\nerror: 9-9: invalid placement: '9-9'\n\n"
        f"{LINE_0_0}\n\n"
        f"{LINE_1_4}\nerror: 2-3: [2|3] needs an open place: the board is not empty\n\n"
        f"{LINE_2_2}\n\n"
    )


def test_stdin_error_in_last_sequence_still_exits_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out = run_stdin(capsys, monkeypatch, "0-0\n1-4@x\n")
    assert (status, out) == (2, f"{LINE_0_0}\n\n{MALFORMED[1][1]}\n\n")


# -- the installed console script -------------------------------------------------------------


def specbid_executable() -> str:
    """The ``specbid`` script installed beside the running interpreter (the project's venv)."""
    found = shutil.which("specbid", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail(f"no specbid console script next to {sys.executable}: install the project")
    return found


def run_installed(
    args: list[str], stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [specbid_executable(), *args],
        input=stdin.encode(),
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=60,
        check=False,
    )


def test_installed_long_sequence() -> None:
    done = run_installed(["board", *LONG_MOVES])
    assert done.returncode == 0
    assert done.stderr == b""
    lines = done.stdout.decode("utf-8").split("\n")
    assert len(lines) == len(LONG_MOVES) + 1
    assert lines[-1] == ""
    assert lines[:2] == [LINE_1_4, LINE_1_1]
    assert lines[-2] == LONG_FINAL


def test_installed_short_positions_on_stdin() -> None:
    stdin = "".join(f"{moves}\n\n" for moves, _ in SHORT_POSITIONS)
    done = run_installed(["board"], stdin)
    assert done.returncode == 0
    blocks = done.stdout.decode("utf-8").split("\n\n")
    assert blocks[-1] == ""
    assert [block.split("\n")[-1] for block in blocks[:-1]] == [e for _, e in SHORT_POSITIONS]


def test_installed_errors_exit_2_without_traceback() -> None:
    stdin = "1-4@1-4:middle\n1-4 1-1@1-4:smaller 1-1@1-4:larger 0-0\n0-0\n"
    done = run_installed(["board"], stdin)
    assert done.returncode == 2
    out = done.stdout.decode("utf-8")
    assert out == (
        f"{MALFORMED[2][1]}\n\n"
        f"{LINE_1_4}\n{LINE_1_1}\n"
        "error: 1-1@1-4:larger: [1|1] does not match [1|4] (larger end, 4) (R3.1)\n\n"
        f"{LINE_0_0}\n\n"
    )
    assert "Traceback" not in out
    assert done.stderr == b""


def test_installed_writes_utf8_whatever_the_locale() -> None:
    # The joint dash is U+2013; an ASCII stdout must not turn it into a traceback.
    done = run_installed(["board", "1-4", "1-1@1-4:smaller"], env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0
    assert done.stderr == b""
    assert done.stdout.decode("utf-8") == f"{LINE_1_4}\n{LINE_1_1}\n"


def test_installed_usage_error_exits_2() -> None:
    done = run_installed(["board", "--no-such-option"])
    assert done.returncode == 2
    assert done.stdout == b""
    assert b"Traceback" not in done.stderr
    assert b"specbid: error: unrecognized arguments: --no-such-option" in done.stderr
