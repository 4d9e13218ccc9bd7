"""E-mail alerts of saved searches: when a Treffer went out with an alert, and each search's last alert. Treffer made
before this version count as told (no e-mail for history).

Revision ID: 0011
Revises: 0015
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("alerted_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("search_orders", schema=None) as batch_op:
        batch_op.add_column(sa.Column("last_alert_at", sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE matches SET alerted_at = created_at")


def downgrade() -> None:
    with op.batch_alter_table("search_orders", schema=None) as batch_op:
        batch_op.drop_column("last_alert_at")
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_column("alerted_at")
