"""match.imported_id: the id an imported match's record document gave it (issue 10 item 5).

Revision ID: 0c4e5a9b7d21
Revises: 6c07a19aca3a
Create Date: 2026-12-01 12:30:00.000000+00:00

An imported match now always gets a fresh id of the server's own form; the id its document gave
it is kept as data in this nullable column (at most 64 characters, as every id). Upgrade, in
place: the column is added, NULL in every stored row — for matches played here because they
were not imported, and for the matches imported before this revision because which id their
document gave them was not kept (most kept it as their own id, but not all: a taken or malformed
one was replaced). No stored id is changed.

Downgrade drops the column, and with it every kept ``imported_id``; the matches stay, under
their ids here. Both are a plain ``ALTER TABLE`` on SQLite (3.35 or later) and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0c4e5a9b7d21"
down_revision: str | Sequence[str] | None = "6c07a19aca3a"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("match", sa.Column("imported_id", sa.String(length=64), nullable=True))


def downgrade() -> None:
    # A plain ALTER TABLE … DROP COLUMN (SQLite 3.35 and later): a batch copy of ``match``
    # would drop the table that ``round`` and ``match_event`` refer to, which SQLite refuses
    # while it enforces foreign keys.
    op.drop_column("match", "imported_id")
