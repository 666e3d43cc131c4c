"""An index on ``match (ended_at, id)``: the order of the lobby's finished list.

Revision ID: 4e8a1c6d2f57
Revises: 2b7d9e4c6a13
Create Date: 2026-12-06 08:00:00.000000+00:00

From this release the lobby lists ended matches from the database, newest first, a page at a
time, ordered by ``(ended_at, id)`` descending and paged by the cursor of ``GET /api/matches``;
every visitor's lobby reads the first page every few seconds. Without an index in that order,
each read would sort every match ever ended to return ten of them; read backwards, this index
gives a page by reading a page.

Upgrade, in place: the index is created. No row changes.

Downgrade drops it. No row changes.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "4e8a1c6d2f57"
down_revision: str | Sequence[str] | None = "2b7d9e4c6a13"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ix_match_ended_at_id"


def upgrade() -> None:
    op.create_index(INDEX, "match", ["ended_at", "id"])


def downgrade() -> None:
    op.drop_index(INDEX, table_name="match")
