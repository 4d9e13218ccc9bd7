"""Deterministic demo data: real German places, broker offices and listings for a fresh catalog, and demo
accounts (brokers, seekers, saved searches, inquiries, …) around them; DEMO_ACCOUNTS lists the logins."""

from shared.demo.accounts import DEMO_ACCOUNTS, DemoAccount
from shared.demo.generate import DEMO_NOW, SeedSummary, seed_demo

__all__ = ["DEMO_ACCOUNTS", "DEMO_NOW", "DemoAccount", "SeedSummary", "seed_demo"]
