"""Accounts, the built-in OAuth 2.1 authorization server, and the resource-server side of both MCP servers."""
