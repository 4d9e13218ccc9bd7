"""PostgreSQL keeps the frequencies of the 1,000 most common index terms (its default: 100).

The demo catalog alone has about 1,700 distinct terms. With 100, a frequent term outside the list
("dachgeschosswohnung", in one listing of ten) was estimated at a tenth of its postings, and the planner hashed
every posting of it instead of merging the first matches along the primary key: 86 ms instead of 5 for counting
the first 1,000 matches of "Dachgeschoss*" at 10^6 listings (shared.catalog.spelled). SQLite's ANALYZE keeps no
such list; nothing to do there.

Revision ID: 0016
Revises: 0015
"""

from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

TERM_STATISTICS = 1000


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"ALTER TABLE listing_terms ALTER COLUMN term SET STATISTICS {TERM_STATISTICS}")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE listing_terms ALTER COLUMN term SET STATISTICS -1")
