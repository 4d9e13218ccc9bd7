"""Athaus für Makler: Anfragen an das Büro, Bewertungen und Vorschläge."""

from __future__ import annotations

from contract.tool import ToolSpec

TOOLS: list[ToolSpec] = []
