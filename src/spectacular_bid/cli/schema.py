"""``specbid schema``: the wire models' JSON Schema, so docs/protocol.schema.json is regenerated
from the code rather than edited by hand."""

from __future__ import annotations

import argparse
import sys

from spectacular_bid.cli.exit_status import EXIT_OK


def run_schema(args: argparse.Namespace) -> int:
    """``specbid schema``: the JSON Schema of the WebSocket messages (docs/protocol.schema.json).

    The web stack is imported here, not at the top, so ``specbid board`` stays quick to start.
    """
    from spectacular_bid.web.messages import schema_text

    text = schema_text()
    if args.output is None:
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text)
    return EXIT_OK
