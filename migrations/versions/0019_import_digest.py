"""What an OpenImmo import last wrote to a listing: `listings.import_digest`, "<version>:<digest of the object's fields>".

The same transfer again (a feed sends its whole stock every night) must be cheap: an object whose fields have the
digest stored for the listing's current version would change nothing, so the import passes over it without loading
or comparing the listing. Any other write raises the version, so a stale digest never hides a change.

Revision ID: 0019
Revises: 0018
"""

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("listings", sa.Column("import_digest", sa.String(length=60), nullable=True))


def downgrade() -> None:
    op.drop_column("listings", "import_digest")
