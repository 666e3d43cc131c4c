"""The ``specbid`` command line."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    del argv
    print("specbid: not yet", file=sys.stderr)
    return 2
