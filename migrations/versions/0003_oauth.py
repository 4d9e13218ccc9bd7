"""OAuth: dynamically registered clients, grants (token families), authorization codes, issued tokens.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 02:53:25.622716
"""

from alembic import op
import sqlalchemy as sa


revision = '0003'
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('oauth_clients',
    sa.Column('client_id', sa.String(length=64), nullable=False),
    sa.Column('secret_hash', sa.String(length=64), nullable=True),
    sa.Column('registration', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('client_id')
    )
    op.create_table('oauth_grants',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('client_id', sa.String(length=500), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('resource', sa.String(length=300), nullable=False),
    sa.Column('scopes', sa.String(length=500), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('oauth_grants', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_oauth_grants_user_id'), ['user_id'], unique=False)

    op.create_table('oauth_codes',
    sa.Column('code_hash', sa.String(length=64), nullable=False),
    sa.Column('client_id', sa.String(length=500), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('redirect_uri', sa.String(length=1000), nullable=False),
    sa.Column('code_challenge', sa.String(length=128), nullable=False),
    sa.Column('resource', sa.String(length=300), nullable=False),
    sa.Column('scopes', sa.String(length=500), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('used_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('grant_id', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['grant_id'], ['oauth_grants.id'], ),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], ),
    sa.PrimaryKeyConstraint('code_hash')
    )
    op.create_table('oauth_tokens',
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('grant_id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=10), nullable=False),
    sa.Column('scopes', sa.String(length=500), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('rotated_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['grant_id'], ['oauth_grants.id'], ),
    sa.PrimaryKeyConstraint('token_hash')
    )
    with op.batch_alter_table('oauth_tokens', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_oauth_tokens_grant_id'), ['grant_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('oauth_tokens', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_oauth_tokens_grant_id'))

    op.drop_table('oauth_tokens')
    op.drop_table('oauth_codes')
    with op.batch_alter_table('oauth_grants', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_oauth_grants_user_id'))

    op.drop_table('oauth_grants')
    op.drop_table('oauth_clients')
