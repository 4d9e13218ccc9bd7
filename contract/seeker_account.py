"""Athaus Immobiliensuche: the seeker's account (Suchaufträge, Treffer, eigene Anfragen)."""

from __future__ import annotations

from contract.tool import ToolSpec

TOOLS: list[ToolSpec] = []
