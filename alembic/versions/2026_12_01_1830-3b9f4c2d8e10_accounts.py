"""Accounts: a unique name and a password hash on player, and player_session (issue 11 item 1).

Revision ID: 3b9f4c2d8e10
Revises: 0c4e5a9b7d21
Create Date: 2026-12-01 18:30:00.000000+00:00

Upgrade, in place: ``player`` gets two nullable columns, NULL in every stored row (every player
so far is a guest), and a unique index on ``name_key`` (many NULLs are allowed by both SQLite and
PostgreSQL); ``player_session`` is created empty. No stored row changes.

Downgrade drops the table and the columns, and with them every account: its player stays, as a
guest under the same name, with its matches.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "3b9f4c2d8e10"
down_revision: str | Sequence[str] | None = "0c4e5a9b7d21"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("player", sa.Column("name_key", sa.String(length=64), nullable=True))
    op.add_column("player", sa.Column("password_hash", sa.String(length=255), nullable=True))
    op.create_index("ix_player_name_key", "player", ["name_key"], unique=True)
    op.create_table(
        "player_session",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("player_id", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["player.id"], name="fk_player_session_player_id_player"
        ),
        sa.PrimaryKeyConstraint("token_hash", name="pk_player_session"),
    )
    op.create_index("ix_player_session_player_id", "player_session", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_player_session_player_id", table_name="player_session")
    op.drop_table("player_session")
    op.drop_index("ix_player_name_key", table_name="player")
    # Plain ALTER TABLE … DROP COLUMN (SQLite 3.35 and later), as in 0c4e5a9b7d21.
    op.drop_column("player", "password_hash")
    op.drop_column("player", "name_key")
