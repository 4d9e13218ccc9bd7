"""The catalog engine: full text, filters, order, cursors, facets; identical on SQLite and PostgreSQL."""
