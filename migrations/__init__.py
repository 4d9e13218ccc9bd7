"""Alembic environment and versions: the only way the schema is created or changed."""
