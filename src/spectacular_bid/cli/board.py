"""``specbid board``: the Appendix A board description, move by move, for checking the engine's
layout by hand or from a script without starting a server."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable

from spectacular_bid.cli.exit_status import EXIT_ERROR, EXIT_OK
from spectacular_bid.rules.board import Board
from spectacular_bid.rules.errors import RulesError
from spectacular_bid.rules.notation import parse_placement


def describe_sequence(moves: Iterable[str]) -> bool:
    """Lay ``moves`` on one fresh board and print the Appendix A description after each.

    A move the engine refuses prints ``error: <move>: <reason>`` instead, and the rest of the
    sequence is skipped: the board no longer shows the position the later moves were written for.
    Return whether every move was laid.
    """
    board = Board()
    for move in moves:
        try:
            tile, at = parse_placement(move)
            board.place(tile, at)
        except (RulesError, ValueError) as exc:
            # RulesError is the engine's contract (R8.3). Any other ValueError is an engine bug
            # in parsing odd input; it is still a refused move here, never a traceback.
            print(f"error: {move}: {exc}")
            return False
        print(board.describe())
    return True


def run_board(args: argparse.Namespace) -> int:
    """``specbid board [MOVE …]``: the board description of Appendix A, move by move.

    With moves on the command line they form one sequence. Without, each non-blank line of
    standard input is a sequence (moves separated by spaces), and each sequence's output ends
    with one empty line so the blocks stay apart. A bad move does not stop later sequences; the
    exit status reports it at the end.
    """
    moves: list[str] = args.moves
    if moves:
        return EXIT_OK if describe_sequence(moves) else EXIT_ERROR
    all_ok = True
    for line in sys.stdin:
        sequence = line.split()
        if not sequence:
            continue
        all_ok = describe_sequence(sequence) and all_ok
        print()
    return EXIT_OK if all_ok else EXIT_ERROR
