"""``match_event.relayed_ms``: the clock audit of a relayed command.

Revision ID: 8f3b6a2d4c19
Revises: 4e8a1c6d2f57
Create Date: 2026-12-06 11:00:00.000000+00:00

From this release a command that reaches a match through another server process (the relay,
PROTOCOL.md *Several servers on one database*) is charged from its receipt by that process, and
the time it then spent in the relay, which nobody was charged, is stored with its version:
``relayed_ms`` (nullable BIGINT, milliseconds). NULL for every other version, and for every
version stored before.

Upgrade, in place: the column is added, NULL in every row. No row changes otherwise.

Downgrade drops the column, and with it every stored ``relayed_ms`` (the clocks and receipt
times, which are what a record replays, stay).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "8f3b6a2d4c19"
down_revision: str | Sequence[str] | None = "4e8a1c6d2f57"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("match_event") as batch:
        batch.add_column(sa.Column("relayed_ms", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("match_event") as batch:
        batch.drop_column("relayed_ms")
