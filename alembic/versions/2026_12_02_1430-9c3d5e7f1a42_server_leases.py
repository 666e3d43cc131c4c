"""Server leases: the server and match_owner tables (issue 13 item 1).

Revision ID: 9c3d5e7f1a42
Revises: 7a1c3e5f9b20
Create Date: 2026-12-02 14:30:00.000000+00:00

Upgrade, in place (stored matches are users' data):

1. ``server`` is created empty: one row per server process that starts on the database, with
   its lease (``store.leases``).
2. ``match_owner`` is created empty: the server that runs each match made from now on. No
   stored match gets a row: an ended match needs no owner, and a live one without was left by a
   release that knew no leases, so the next server to start ends it as that release would have
   (D5), exactly once however many servers start together. No stored row changes.

Downgrade drops both, and with them which server runs which live match: a release without
leases ends every live match at its start anyway.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "9c3d5e7f1a42"
down_revision: str | Sequence[str] | None = "7a1c3e5f9b20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "server",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("epoch", sa.Integer(), nullable=False),
        sa.Column("lease_until_ms", sa.BigInteger(), nullable=False),
        sa.Column("gone", sa.Boolean(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_server"),
    )
    op.create_table(
        "match_owner",
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("server_id", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"], name="fk_match_owner_match_id_match"),
        sa.PrimaryKeyConstraint("match_id", name="pk_match_owner"),
    )
    op.create_index("ix_match_owner_server_id", "match_owner", ["server_id"])


def downgrade() -> None:
    op.drop_index("ix_match_owner_server_id", table_name="match_owner")
    op.drop_table("match_owner")
    op.drop_table("server")
