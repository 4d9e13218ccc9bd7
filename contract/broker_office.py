"""Athaus für Makler: Lagebericht, Bestand, Prüfung und Wertschätzung (tools of the office and its listings)."""

from __future__ import annotations

from contract.tool import ToolSpec

TOOLS: list[ToolSpec] = []
