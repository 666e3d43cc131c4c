"""match_event.received_ms, and the rating policy of issue 9 §9 applied to the stored matches.

Revision ID: 6c07a19aca3a
Revises: 1ee0302b9655
Create Date: 2026-12-01 09:56:51.014228+00:00

Upgrade, in place (stored matches are users' data):

1. ``match_event.received_ms`` (nullable BIGINT): when the server received a version's command,
   the time its clock charge was taken at (R7.7). The earlier release did not record it, so its
   versions keep NULL and their replay infers it from the clock readings.
2. ``rated = false`` for every stored match that is rated but fails the policy now applied when
   a match ends (``spectacular_bid.service.rated.is_rated``): rated only when played online
   (mode ``invite`` or ``open``) between two different players, on the default time control
   (``bank_ms`` 120,000 and ``delay_ms`` 10,000 in the settings), ended with a winner by
   ``zero_balance``, ``time`` or ``resignation``, and not imported (settings ``"imported"``).
   The earlier release rated every match with a winner, shared-device ones included, so their
   players' ratings counted matches the policy excludes. No match is made rated here.

The policy is written out here, not imported, so that this revision keeps doing what it did when
the service's policy moves on. The settings are JSON, which SQLite and PostgreSQL query
differently, so the check runs in Python over the rated rows on both and the update goes by id.
That needs the database, so this revision cannot be rendered offline (``--sql``).

Downgrade drops the column, and with it every stored ``received_ms``. The ratings taken away by
the upgrade are not restored: which matches were rated before it is not kept anywhere.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Final

import sqlalchemy as sa
from alembic import context, op

revision: str = "6c07a19aca3a"
down_revision: str | Sequence[str] | None = "1ee0302b9655"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

log = logging.getLogger("alembic.runtime.migration")

ONLINE_MODES: Final = frozenset({"invite", "open"})
RATED_REASONS: Final = frozenset({"zero_balance", "time", "resignation"})
DEFAULT_BANK_MS: Final = 120_000
"""R7.1."""
DEFAULT_DELAY_MS: Final = 10_000
"""R7.2."""
IDS_PER_UPDATE: Final = 500
"""Ids bound in one ``UPDATE … WHERE id IN (…)``, well under every database's parameter limit."""

match_table = sa.table(
    "match",
    sa.column("id", sa.String()),
    sa.column("mode", sa.String()),
    sa.column("settings", sa.JSON()),
    sa.column("first_player_id", sa.String()),
    sa.column("second_player_id", sa.String()),
    sa.column("winner", sa.String()),
    sa.column("reason", sa.String()),
    sa.column("rated", sa.Boolean()),
)
"""The columns of ``match`` this revision reads, as the initial revision made them."""


def upgrade() -> None:
    with op.batch_alter_table("match_event") as batch:
        batch.add_column(sa.Column("received_ms", sa.BigInteger(), nullable=True))
    unrate_what_the_policy_excludes()


def downgrade() -> None:
    with op.batch_alter_table("match_event") as batch:
        batch.drop_column("received_ms")


def is_rated_by_policy(row: sa.Row[Any]) -> bool:
    """Issue 9 §9 for a stored match header, as ``spectacular_bid.service.rated`` decides it
    (an imported match reads as imported when its ``"imported"`` setting is truthy, as the
    service reads it)."""
    settings = row.settings if isinstance(row.settings, dict) else {}
    return (
        row.mode in ONLINE_MODES
        and row.first_player_id is not None
        and row.second_player_id is not None
        and row.first_player_id != row.second_player_id
        and settings.get("bank_ms") == DEFAULT_BANK_MS
        and settings.get("delay_ms") == DEFAULT_DELAY_MS
        and row.winner is not None
        and row.reason in RATED_REASONS
        and not settings.get("imported", False)
    )


def unrate_what_the_policy_excludes() -> None:
    if context.is_offline_mode():
        raise RuntimeError(
            f"revision {revision} reads the stored matches to apply the rating policy, so it "
            "cannot be rendered as SQL: run `alembic upgrade` against the database instead"
        )
    bind = op.get_bind()
    rated = bind.execute(
        sa.select(match_table).where(match_table.c.rated).order_by(match_table.c.id)
    ).all()
    excluded = [row.id for row in rated if not is_rated_by_policy(row)]
    for start in range(0, len(excluded), IDS_PER_UPDATE):
        ids = excluded[start : start + IDS_PER_UPDATE]
        bind.execute(sa.update(match_table).where(match_table.c.id.in_(ids)).values(rated=False))
    log.info(
        "rating policy (issue 9 §9): %d of %d rated matches unrated", len(excluded), len(rated)
    )
