"""Athaus Immobiliensuche (/suche/mcp): the handlers of its tools, one module per tool family."""
