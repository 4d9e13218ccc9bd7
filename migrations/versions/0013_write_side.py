"""The write side: listing versions and import origin, listing events (matches and proposals hang off them),
the audit log, idempotency keys, the reason of a status change.

Revision ID: 0013
Revises: 0005
"""

from alembic import op
import sqlalchemy as sa


revision = '0013'
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('audit_log',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=True),
    sa.Column('client_id', sa.String(length=200), nullable=True),
    sa.Column('office_id', sa.Integer(), nullable=True),
    sa.Column('action', sa.String(length=40), nullable=False),
    sa.Column('subject_ref', sa.String(length=20), nullable=False),
    sa.Column('subject_version', sa.Integer(), nullable=True),
    sa.Column('before', sa.JSON(), nullable=True),
    sa.Column('after', sa.JSON(), nullable=True),
    sa.ForeignKeyConstraint(['office_id'], ['offices.id'], ),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_audit_log_office_id'), ['office_id'], unique=False)
        batch_op.create_index('ix_audit_log_subject', ['subject_ref', 'id'], unique=False)

    op.create_table('idempotency_keys',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('operation', sa.String(length=40), nullable=False),
    sa.Column('key', sa.String(length=200), nullable=False),
    sa.Column('request_hash', sa.String(length=64), nullable=False),
    sa.Column('outcome', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('user_id', 'operation', 'key', name='uq_idempotency_keys_user_operation_key')
    )
    op.create_table('listing_events',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('listing_id', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('detail', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['listing_id'], ['listings.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('listing_id', 'version', 'kind', name='uq_listing_events_version_kind')
    )
    with op.batch_alter_table('listing_events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_listing_events_listing_id'), ['listing_id'], unique=False)

    with op.batch_alter_table('listing_status_changes', schema=None) as batch_op:
        batch_op.add_column(sa.Column('reason', sa.String(length=300), nullable=True))

    with op.batch_alter_table('listings', schema=None) as batch_op:
        batch_op.add_column(sa.Column('version', sa.Integer(), server_default='1', nullable=False))
        batch_op.add_column(sa.Column('feed', sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column('external_id', sa.String(length=100), nullable=True))
        batch_op.create_index('ix_listings_external', ['office_id', 'feed', 'external_id'], unique=False)

    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.add_column(sa.Column('event_id', sa.Integer(), nullable=True))
        batch_op.create_unique_constraint('uq_matches_order_event', ['search_order_id', 'event_id'])
        batch_op.create_foreign_key('fk_matches_event_id', 'listing_events', ['event_id'], ['id'])

    with op.batch_alter_table('proposals', schema=None) as batch_op:
        batch_op.add_column(sa.Column('event_id', sa.Integer(), nullable=True))
        batch_op.create_foreign_key('fk_proposals_event_id', 'listing_events', ['event_id'], ['id'])



def downgrade() -> None:
    with op.batch_alter_table('proposals', schema=None) as batch_op:
        batch_op.drop_constraint('fk_proposals_event_id', type_='foreignkey')
        batch_op.drop_column('event_id')

    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.drop_constraint('fk_matches_event_id', type_='foreignkey')
        batch_op.drop_constraint('uq_matches_order_event', type_='unique')
        batch_op.drop_column('event_id')

    with op.batch_alter_table('listings', schema=None) as batch_op:
        batch_op.drop_index('ix_listings_external')
        batch_op.drop_column('external_id')
        batch_op.drop_column('feed')
        batch_op.drop_column('version')

    with op.batch_alter_table('listing_status_changes', schema=None) as batch_op:
        batch_op.drop_column('reason')

    with op.batch_alter_table('listing_events', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_listing_events_listing_id'))

    op.drop_table('listing_events')
    op.drop_table('idempotency_keys')
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.drop_index('ix_audit_log_subject')
        batch_op.drop_index(batch_op.f('ix_audit_log_office_id'))

    op.drop_table('audit_log')
