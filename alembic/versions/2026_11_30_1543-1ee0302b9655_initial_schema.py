"""The initial schema: player, match, round and the append-only match_event log.

Revision ID: 1ee0302b9655
Revises:
Create Date: 2026-11-30 15:43:11.699372+00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "1ee0302b9655"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "player",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_player_token_hash")),
    )
    op.create_table(
        "match",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("first_player_id", sa.String(length=64), nullable=True),
        sa.Column("second_player_id", sa.String(length=64), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("winner", sa.String(length=8), nullable=True),
        sa.Column("reason", sa.String(length=32), nullable=True),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["first_player_id"], ["player.id"], name=op.f("fk_match_first_player_id_player")
        ),
        sa.ForeignKeyConstraint(
            ["second_player_id"], ["player.id"], name=op.f("fk_match_second_player_id_player")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_match")),
    )
    op.create_index(op.f("ix_match_status_ended_at"), "match", ["status", "ended_at"])
    op.create_table(
        "round",
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("commitment", sa.String(length=64), nullable=False),
        sa.Column("salt", sa.String(length=128), nullable=True),
        sa.Column("deck", sa.JSON(none_as_null=True), nullable=True),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"], name=op.f("fk_round_match_id_match")),
        sa.PrimaryKeyConstraint("match_id", "number", name=op.f("pk_round")),
    )
    op.create_table(
        "match_event",
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("seat", sa.String(length=8), nullable=True),
        sa.Column("command", sa.JSON(), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("monotonic_ms", sa.BigInteger(), nullable=False),
        sa.Column("clock", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["match.id"], name=op.f("fk_match_event_match_id_match")
        ),
        sa.PrimaryKeyConstraint("match_id", "version", name=op.f("pk_match_event")),
    )


def downgrade() -> None:
    op.drop_table("match_event")
    op.drop_table("round")
    op.drop_index(op.f("ix_match_status_ended_at"), table_name="match")
    op.drop_table("match")
    op.drop_table("player")
