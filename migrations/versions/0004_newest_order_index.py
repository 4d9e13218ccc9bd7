"""Newest-first index that serves ORDER BY published_at DESC NULLS LAST, id without a sort.

Revision ID: 0004
Revises: 0003
"""

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_listings_status_published", table_name="listings")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("CREATE INDEX ix_listings_newest ON listings (status, published_at DESC NULLS LAST, id)")
    else:
        op.execute("CREATE INDEX ix_listings_newest ON listings (status, published_at DESC, id)")


def downgrade() -> None:
    op.drop_index("ix_listings_newest", table_name="listings")
    op.create_index("ix_listings_status_published", "listings", ["status", "published_at", "id"])
