"""An office's OpenImmo feed URL, from which import_listings fetches a transfer.

Revision ID: 0015
Revises: 0013
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("offices", sa.Column("openimmo_feed_url", sa.String(length=500), nullable=True))


def downgrade() -> None:
    op.drop_column("offices", "openimmo_feed_url")
