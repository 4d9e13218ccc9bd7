"""Alembic environment: the connection comes from shared.db.migrate (config.attributes["connection"])."""

from alembic import context

import shared.audit  # noqa: F401  (the audit table lives on the same Base)
import shared.auth.models  # noqa: F401  (the OAuth tables live on the same Base)
from shared.db.models import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
