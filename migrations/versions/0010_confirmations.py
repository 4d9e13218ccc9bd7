"""Confirmations that execute, and the outbox: pending actions keep their payload hash, token salt, decision, channel
and execution time; offices may allow action kinds without a click; e-mails wait in the outbox.

Revision ID: 0010
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("pending_actions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("payload_hash", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("token_salt", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("decision", sa.String(length=10), nullable=True))
        batch_op.add_column(sa.Column("via", sa.String(length=10), nullable=True))
        batch_op.add_column(sa.Column("executed_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("offices", schema=None) as batch_op:
        batch_op.add_column(sa.Column("send_without_click", sa.JSON(), server_default="[]", nullable=False))
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("pending_action_id", sa.Integer(), nullable=True),
        sa.Column("inquiry_id", sa.Integer(), nullable=True),
        sa.Column("sender_user_id", sa.Integer(), nullable=True),
        sa.Column("sender_office_id", sa.Integer(), nullable=True),
        sa.Column("recipient", sa.String(length=200), nullable=True),
        sa.Column("subject", sa.String(length=300), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("message_id", sa.String(length=200), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.String(length=300), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["inquiry_id"], ["inquiries.id"]),
        sa.ForeignKeyConstraint(["pending_action_id"], ["pending_actions.id"]),
        sa.ForeignKeyConstraint(["sender_office_id"], ["offices.id"]),
        sa.ForeignKeyConstraint(["sender_user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("message_id"),
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index("ix_outbox_due", ["status", "next_attempt_at", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_outbox_inquiry_id"), ["inquiry_id"], unique=False)


def downgrade() -> None:
    op.drop_table("outbox")
    with op.batch_alter_table("offices", schema=None) as batch_op:
        batch_op.drop_column("send_without_click")
    with op.batch_alter_table("pending_actions", schema=None) as batch_op:
        for column in ("updated_at", "executed_at", "via", "decision", "token_salt", "payload_hash"):
            batch_op.drop_column(column)
