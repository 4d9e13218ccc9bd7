"""Index on a rental's warm rent (cold rent + service charges + heating costs) for min/max_warm_rent.

The warm rent is an expression, not a column (shared/db/models.py: LISTING_WARM_RENT), so only the index is new.

Revision ID: 0005
Revises: 0004
"""

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "CREATE INDEX ix_listings_warm_rent ON listings (status, marketing_type, (price + service_charges + heating_costs), id)"
    )


def downgrade() -> None:
    op.drop_index("ix_listings_warm_rent", table_name="listings")
