"""Sign-in hardening and the personal-data audit: throttle events (login, registration), decided authorization
requests (single use), and one line per read of a seeker's personal data by a broker.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("oauth_codes") as batch:
        batch.add_column(sa.Column("redirect_uri_given", sa.Boolean(), server_default=sa.true(), nullable=False))
    op.create_table(
        "auth_throttle_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=100), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_auth_throttle_events_key_at", "auth_throttle_events", ["key", "at"])
    op.create_table(
        "oauth_used_requests",
        sa.Column("nonce", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("nonce"),
    )
    op.create_index("ix_oauth_used_requests_expires_at", "oauth_used_requests", ["expires_at"])
    op.create_table(
        "personal_data_reads",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("office_id", sa.Integer(), nullable=True),
        sa.Column("client_id", sa.String(length=500), nullable=True),
        sa.Column("tool", sa.String(length=100), nullable=False),
        sa.Column("record_ref", sa.String(length=40), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.ForeignKeyConstraint(["office_id"], ["offices.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_personal_data_reads_office_at", "personal_data_reads", ["office_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_personal_data_reads_office_at", table_name="personal_data_reads")
    op.drop_table("personal_data_reads")
    op.drop_index("ix_oauth_used_requests_expires_at", table_name="oauth_used_requests")
    op.drop_table("oauth_used_requests")
    op.drop_index("ix_auth_throttle_events_key_at", table_name="auth_throttle_events")
    op.drop_table("auth_throttle_events")
    with op.batch_alter_table("oauth_codes") as batch:
        batch.drop_column("redirect_uri_given")
