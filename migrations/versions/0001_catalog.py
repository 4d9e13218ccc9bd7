"""Catalog: offices, places, listings with features and the full-text term index, catalog state, secrets.

Revision ID: 0001
Revises: 
Create Date: 2026-11-30 02:19:55.313459
"""

from alembic import op
import sqlalchemy as sa


revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('catalog_state',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('revision', sa.Integer(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('offices',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('city', sa.String(length=100), nullable=False),
    sa.Column('phone', sa.String(length=50), nullable=True),
    sa.Column('email', sa.String(length=200), nullable=True),
    sa.Column('website', sa.String(length=200), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('places',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('postal_code', sa.String(length=5), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('name_key', sa.String(length=100), nullable=False),
    sa.Column('state', sa.String(length=40), nullable=False),
    sa.Column('latitude', sa.Float(), nullable=False),
    sa.Column('longitude', sa.Float(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('places', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_places_name'), ['name'], unique=False)
        batch_op.create_index(batch_op.f('ix_places_name_key'), ['name_key'], unique=False)
        batch_op.create_index(batch_op.f('ix_places_postal_code'), ['postal_code'], unique=False)

    op.create_table('server_secrets',
    sa.Column('name', sa.String(length=50), nullable=False),
    sa.Column('value', sa.String(length=200), nullable=False),
    sa.PrimaryKeyConstraint('name')
    )
    op.create_table('listings',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('ref', sa.String(length=20), nullable=False),
    sa.Column('office_id', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('marketing_type', sa.String(length=10), nullable=False),
    sa.Column('property_type', sa.String(length=20), nullable=False),
    sa.Column('property_subtype', sa.String(length=40), nullable=True),
    sa.Column('title', sa.String(length=300), nullable=False),
    sa.Column('description', sa.Text(), nullable=False),
    sa.Column('postal_code', sa.String(length=5), nullable=False),
    sa.Column('city', sa.String(length=100), nullable=False),
    sa.Column('city_key', sa.String(length=100), nullable=False),
    sa.Column('district', sa.String(length=100), nullable=True),
    sa.Column('street', sa.String(length=200), nullable=True),
    sa.Column('house_number', sa.String(length=20), nullable=True),
    sa.Column('address_published', sa.Boolean(), nullable=False),
    sa.Column('state', sa.String(length=40), nullable=False),
    sa.Column('latitude', sa.Float(), nullable=False),
    sa.Column('longitude', sa.Float(), nullable=False),
    sa.Column('price', sa.Float(), nullable=True),
    sa.Column('price_on_request', sa.Boolean(), nullable=False),
    sa.Column('service_charges', sa.Float(), nullable=True),
    sa.Column('heating_costs', sa.Float(), nullable=True),
    sa.Column('deposit', sa.String(length=100), nullable=True),
    sa.Column('commission', sa.String(length=200), nullable=True),
    sa.Column('commission_percent', sa.Float(), nullable=True),
    sa.Column('living_area', sa.Float(), nullable=True),
    sa.Column('plot_area', sa.Float(), nullable=True),
    sa.Column('rooms', sa.Float(), nullable=True),
    sa.Column('bedrooms', sa.Integer(), nullable=True),
    sa.Column('bathrooms', sa.Integer(), nullable=True),
    sa.Column('floor', sa.Integer(), nullable=True),
    sa.Column('year_built', sa.Integer(), nullable=True),
    sa.Column('condition', sa.String(length=40), nullable=True),
    sa.Column('energy_status', sa.String(length=20), nullable=False),
    sa.Column('energy_certificate_type', sa.String(length=20), nullable=True),
    sa.Column('energy_value', sa.Float(), nullable=True),
    sa.Column('energy_class', sa.String(length=3), nullable=True),
    sa.Column('energy_carrier', sa.String(length=40), nullable=True),
    sa.Column('energy_year_built', sa.Integer(), nullable=True),
    sa.Column('energy_valid_until', sa.Date(), nullable=True),
    sa.Column('photos', sa.JSON(), nullable=False),
    sa.Column('available_from', sa.Date(), nullable=True),
    sa.Column('availability_note', sa.String(length=100), nullable=True),
    sa.Column('published_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['office_id'], ['offices.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('ref')
    )
    with op.batch_alter_table('listings', schema=None) as batch_op:
        batch_op.create_index('ix_listings_area', ['status', 'living_area', 'id'], unique=False)
        batch_op.create_index('ix_listings_city_key', ['city_key'], unique=False)
        batch_op.create_index('ix_listings_geo', ['latitude', 'longitude'], unique=False)
        batch_op.create_index('ix_listings_kind', ['marketing_type', 'property_type'], unique=False)
        batch_op.create_index(batch_op.f('ix_listings_office_id'), ['office_id'], unique=False)
        batch_op.create_index('ix_listings_postal_code', ['postal_code'], unique=False)
        batch_op.create_index('ix_listings_price', ['status', 'price', 'id'], unique=False)
        batch_op.create_index('ix_listings_status_published', ['status', 'published_at', 'id'], unique=False)

    op.create_table('listing_features',
    sa.Column('listing_id', sa.Integer(), nullable=False),
    sa.Column('feature', sa.String(length=30), nullable=False),
    sa.ForeignKeyConstraint(['listing_id'], ['listings.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('listing_id', 'feature')
    )
    with op.batch_alter_table('listing_features', schema=None) as batch_op:
        batch_op.create_index('ix_listing_features_feature', ['feature', 'listing_id'], unique=False)

    op.create_table('listing_terms',
    sa.Column('listing_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('term', sa.String(length=64).with_variant(sa.String(length=64, collation='C'), 'postgresql'), nullable=False),
    sa.ForeignKeyConstraint(['listing_id'], ['listings.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('listing_id', 'position', 'term')
    )
    with op.batch_alter_table('listing_terms', schema=None) as batch_op:
        batch_op.create_index('ix_listing_terms_term', ['term', 'listing_id', 'position'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('listing_terms', schema=None) as batch_op:
        batch_op.drop_index('ix_listing_terms_term')

    op.drop_table('listing_terms')
    with op.batch_alter_table('listing_features', schema=None) as batch_op:
        batch_op.drop_index('ix_listing_features_feature')

    op.drop_table('listing_features')
    with op.batch_alter_table('listings', schema=None) as batch_op:
        batch_op.drop_index('ix_listings_status_published')
        batch_op.drop_index('ix_listings_price')
        batch_op.drop_index('ix_listings_postal_code')
        batch_op.drop_index(batch_op.f('ix_listings_office_id'))
        batch_op.drop_index('ix_listings_kind')
        batch_op.drop_index('ix_listings_geo')
        batch_op.drop_index('ix_listings_city_key')
        batch_op.drop_index('ix_listings_area')

    op.drop_table('listings')
    op.drop_table('server_secrets')
    with op.batch_alter_table('places', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_places_postal_code'))
        batch_op.drop_index(batch_op.f('ix_places_name_key'))
        batch_op.drop_index(batch_op.f('ix_places_name'))

    op.drop_table('places')
    op.drop_table('offices')
    op.drop_table('catalog_state')
