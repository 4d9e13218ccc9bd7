"""The free texts an OpenImmo object sends besides its description, each in its own column: `<lage>`
(`location_text`), `<ausstatt_beschr>` (`equipment_text`) and `<sonstige_angaben>` (`other_text`); and why a listing's
coordinates are approximate (`coordinates_note`: taken from the postal code, or sent far from it). An office's own
e-mail for inquiry notices (`offices.inquiry_email`; NULL: its public e-mail), set in the web app or the CLI.

Revision ID: 0020
Revises: 0019
"""

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

COLUMNS = ("location_text", "equipment_text", "other_text")


def upgrade() -> None:
    for name in COLUMNS:
        op.add_column("listings", sa.Column(name, sa.Text(), nullable=True))
    op.add_column("listings", sa.Column("coordinates_note", sa.String(length=300), nullable=True))
    op.add_column("offices", sa.Column("inquiry_email", sa.String(length=200), nullable=True))


def downgrade() -> None:
    op.drop_column("offices", "inquiry_email")
    op.drop_column("listings", "coordinates_note")
    for name in COLUMNS:
        op.drop_column("listings", name)
