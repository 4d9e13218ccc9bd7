"""Athaus runtime shared by both MCP servers: settings, database, MCP adapter, catalog engine, CLI."""
