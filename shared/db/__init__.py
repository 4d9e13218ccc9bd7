"""Database models, engine and unit of work."""
