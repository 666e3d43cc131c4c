"""``specbid replay ID|FILE``: an ended match's record, read from a file or the store, printed move
by move, verified against the engine (``--verify``) or exported as its record document.

This module composes the store and the service (a record is read through the store and replayed
by the service), which is why it lives under ``cli``, one of the composition roots.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError

from spectacular_bid.cli.exit_status import EXIT_ERROR, EXIT_FAILED, EXIT_OK
from spectacular_bid.store.engine import default_sqlite_url


def run_replay(args: argparse.Namespace) -> int:
    """``specbid replay ID|FILE``: a match move by move; ``--verify`` checks it as the import
    does (``replay.check_record``: re-run through the engine, the header's times) and says too
    when this server's import would not admit it; ``--export`` writes its record document."""
    from spectacular_bid.service.describe import describe
    from spectacular_bid.service.discrepancy import RecordMismatchError
    from spectacular_bid.service.record_document import RecordFormatError, parse_document
    from spectacular_bid.service.replay import check_record

    try:
        data = _load_record(args.target, args.data_dir, args.database_url)
    except _InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if args.export:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
        if args.output in (None, "-"):
            sys.stdout.write(text)
        else:
            Path(args.output).write_text(text, encoding="utf-8")
        return EXIT_OK
    try:
        checked = check_record(data) if args.verify else None
        document = checked.document if checked is not None else parse_document(data)
    except RecordFormatError as exc:
        print(f"error: {args.target}: not a match record: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if checked is not None:
        verified = checked.verified
        if verified is None:
            print(f"FAILED {document.id}: {checked.outcome}")
            return EXIT_FAILED
        ending = f"{verified.winner} wins" if verified.winner else "no result"
        print(
            f"OK {verified.match_id}: {verified.versions} versions, {verified.rounds} rounds; "
            f"every event, balance, clock, commitment and the result ({ending}, "
            f"{verified.reason}) agree"
        )
        if checked.not_admitted is not None:
            print(f"note: this server would not import it: {checked.not_admitted}")
        return EXIT_OK
    try:
        for line in describe(document):
            print(line)
    except RecordMismatchError as exc:
        print(f"error: the record stops replaying: {document.id}: {exc}")
        return EXIT_FAILED
    return EXIT_OK


class _InputError(Exception):
    """A record that cannot be read: a missing or non-JSON file, an unknown match."""


def _load_record(target: str, data_dir: str | None, url: str | None) -> object:
    """A record document from a JSON file, or from the store when ``target`` is no file."""
    path = Path(target)
    if path.is_file() or target == "-" or target.endswith(".json"):
        try:
            text = sys.stdin.read() if target == "-" else path.read_text(encoding="utf-8")
            return json.loads(text)
        except (OSError, UnicodeDecodeError) as exc:
            raise _InputError(f"cannot read {target}: {exc}") from None
        except ValueError as exc:
            raise _InputError(f"{target} is not JSON: {exc}") from None
    return asyncio.run(_stored_record(target, data_dir, url))


async def _stored_record(match_id: str, data_dir: str | None, url: str | None) -> object:
    from spectacular_bid.service.records import read_document
    from spectacular_bid.service.refusals import Rejection
    from spectacular_bid.store.engine import resolve_url, sqlite_path
    from spectacular_bid.store.migrate import SchemaNotAtHeadError, require_head
    from spectacular_bid.store.repository import SqlStore

    target = resolve_url(url or (default_sqlite_url(data_dir) if data_dir else None))
    path = sqlite_path(target)
    if path is not None and not path.is_file():
        raise _InputError(f"no match {match_id!r}: there is no database at {path}")
    store = SqlStore.open(target)
    try:
        await require_head(store.engine)
        return (await read_document(store, match_id)).to_json()
    except SchemaNotAtHeadError as exc:
        raise _InputError(str(exc)) from None
    except Rejection as exc:
        raise _InputError(exc.message) from None
    except (OSError, SQLAlchemyError) as exc:
        raise _InputError(f"cannot read the database: {exc}") from None
    finally:
        await store.close()
