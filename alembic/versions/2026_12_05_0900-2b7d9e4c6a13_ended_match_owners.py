"""An ended match has no owner row (issue 13 item 1).

Revision ID: 2b7d9e4c6a13
Revises: 9c3d5e7f1a42
Create Date: 2026-12-05 09:00:00.000000+00:00

Until now a match's ``match_owner`` row stayed after the match ended, so the table grew with
every match ever played, and each server's claim of orphaned matches (every second,
``service.failover``) walked all of it. From this release the header that ends a match deletes
its row (``store.leases.owner_changes``).

Upgrade, in place: the owner rows of the matches already ended are deleted. No other row
changes; a live match keeps its owner, and every stored match, ended or live, its header,
rounds and events. An ended match's owner row was read by nothing: every reader of the table
asks only about live matches.

Downgrade changes nothing: the earlier release reads the table the same way and makes no row
for an ended match again, so no row needs to come back.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "2b7d9e4c6a13"
down_revision: str | Sequence[str] | None = "9c3d5e7f1a42"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        "DELETE FROM match_owner WHERE match_id IN "
        "(SELECT id FROM match WHERE status NOT IN ('waiting', 'active'))"
    )


def downgrade() -> None:
    pass
