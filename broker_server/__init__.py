"""Athaus für Makler (/makler/mcp). Its tools arrive with issue 3; the contract declares none yet."""
