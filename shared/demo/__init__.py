"""Deterministic demo data: real German places, broker offices and listings for a fresh catalog."""

from shared.demo.generate import DEMO_NOW, SeedSummary, seed_demo

__all__ = ["DEMO_NOW", "SeedSummary", "seed_demo"]
