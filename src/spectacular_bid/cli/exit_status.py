"""The exit statuses every ``specbid`` subcommand returns, in one place so that each handler's
module and :func:`spectacular_bid.cli.main` agree on what a script sees."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1
"""A check failed: ``replay --verify`` found a discrepancy, ``serve --no-upgrade`` refused."""
EXIT_ERROR = 2
"""Matches argparse's own usage-error status, so a script sees one "bad input" code."""
