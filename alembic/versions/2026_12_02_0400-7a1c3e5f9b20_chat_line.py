"""Chat: the chat_line table, what was said at each match's table (issue 12 item 1).

Revision ID: 7a1c3e5f9b20
Revises: 5d2e8f1a7c34
Create Date: 2026-12-02 04:00:00.000000+00:00

Upgrade, in place: ``chat_line`` is created empty, one row per line, keyed by its match and its
number within the match. No stored row changes: every match stored so far simply has no chat.

Downgrade drops the table, and with it every line said.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "7a1c3e5f9b20"
down_revision: str | Sequence[str] | None = "5d2e8f1a7c34"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "chat_line",
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("player_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.String(length=8), nullable=True),
        sa.Column("text", sa.String(length=512), nullable=True),
        sa.Column("phrase", sa.String(length=32), nullable=True),
        sa.Column("said_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"], name="fk_chat_line_match_id_match"),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"], name="fk_chat_line_player_id_player"),
        sa.PrimaryKeyConstraint("match_id", "number", name="pk_chat_line"),
    )


def downgrade() -> None:
    op.drop_table("chat_line")
