"""Why a listing has no photos, as its import found it (`listings.photos_note`): the transfer named photos that could
not be had, or sent none. NULL: not known (a listing written by hand or before this revision).

Revision ID: 0021
Revises: 0020
"""

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("listings", sa.Column("photos_note", sa.String(length=300), nullable=True))


def downgrade() -> None:
    op.drop_column("listings", "photos_note")
