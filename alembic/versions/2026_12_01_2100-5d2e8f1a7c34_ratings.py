"""Glicko-2 ratings: the player's rating, rating_change, the seats' account flags (issue 11 item 2).

Revision ID: 5d2e8f1a7c34
Revises: 3b9f4c2d8e10
Create Date: 2026-12-01 21:00:00.000000+00:00

Upgrade, in place (stored matches are users' data):

1. ``player`` gets ``rating``, ``rating_deviation``, ``rating_volatility`` (double precision) and
   ``rated_at``, all nullable and NULL in every stored row: no rating was ever computed, so every
   player starts as a newcomer at its first rated match.
2. ``match`` gets ``first_account`` and ``second_account`` (NOT NULL booleans, default false):
   whether each seat's player was an account when it took the seat. The earlier release did not
   record it, so every stored match keeps false.
3. ``rated = false`` on every stored match. From now on a match is rated only between two
   accounts, and the replay of a record re-derives ``rated`` from the seats' account flags, so a
   stored ``rated = true`` with the flags false would no longer verify. No rating was computed
   from those flags, so nothing is lost but the word: the matches keep their results.
4. ``rating_change`` is created empty, one row per rated match and player (its rating before
   and after), with an index on ``(player_id, at)`` for a player's history; ``match`` gets
   indexes on ``(first_player_id, ended_at)`` and ``(second_player_id, ended_at)`` for a
   player's ended matches.

Every column is added with a plain ``ALTER TABLE … ADD COLUMN`` on SQLite too, as in
0c4e5a9b7d21: a batch copy of ``player`` or ``match`` would drop a table that others refer to,
which SQLite refuses while it enforces foreign keys. SQLite accepts a NOT NULL column that way
because its default is the constant ``false`` (written as text: SQLAlchemy puts an expression's
default in parentheses, which ``ADD COLUMN`` refuses).

Downgrade drops the table, the indexes and the columns, and with them every rating; the
matches unrated by the upgrade stay unrated, since which were rated before it is not kept.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5d2e8f1a7c34"
down_revision: str | Sequence[str] | None = "3b9f4c2d8e10"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PLAYER_COLUMNS = ("rating", "rating_deviation", "rating_volatility")
ACCOUNT_FLAGS = ("first_account", "second_account")

match_table = sa.table("match", sa.column("rated", sa.Boolean()))


def upgrade() -> None:
    for name in PLAYER_COLUMNS:
        op.add_column("player", sa.Column(name, sa.Double(), nullable=True))
    op.add_column("player", sa.Column("rated_at", sa.DateTime(timezone=True), nullable=True))
    for name in ACCOUNT_FLAGS:
        column: sa.Column[bool] = sa.Column(
            name, sa.Boolean(), server_default=sa.text("false"), nullable=False
        )
        op.add_column("match", column)
    op.execute(sa.update(match_table).where(match_table.c.rated).values(rated=False))
    op.create_index("ix_match_first_player_id_ended_at", "match", ["first_player_id", "ended_at"])
    op.create_index("ix_match_second_player_id_ended_at", "match", ["second_player_id", "ended_at"])
    op.create_table(
        "rating_change",
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("player_id", sa.String(length=64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        *(
            sa.Column(f"{when}_{what}", sa.Double(), nullable=False)
            for when in ("before", "after")
            for what in ("value", "deviation", "volatility")
        ),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"], name="fk_rating_change_match_id_match"),
        sa.ForeignKeyConstraint(
            ["player_id"], ["player.id"], name="fk_rating_change_player_id_player"
        ),
        sa.PrimaryKeyConstraint("match_id", "player_id", name="pk_rating_change"),
    )
    op.create_index("ix_rating_change_player_id_at", "rating_change", ["player_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_rating_change_player_id_at", table_name="rating_change")
    op.drop_table("rating_change")
    op.drop_index("ix_match_second_player_id_ended_at", table_name="match")
    op.drop_index("ix_match_first_player_id_ended_at", table_name="match")
    # Plain ALTER TABLE … DROP COLUMN (SQLite 3.35 and later), as in 0c4e5a9b7d21.
    for name in reversed(ACCOUNT_FLAGS):
        op.drop_column("match", name)
    op.drop_column("player", "rated_at")
    for name in reversed(PLAYER_COLUMNS):
        op.drop_column("player", name)
