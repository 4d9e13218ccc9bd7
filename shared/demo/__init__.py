"""Deterministic demo data: real German places, broker offices and listings for a fresh catalog, and demo
accounts (brokers, seekers, saved searches, inquiries, …) around them; DEMO_ACCOUNTS lists the logins.

Modules, each importing only modules of the lines above it:
  randomness, clock, rows, german, names   (no demo imports)
  places → offices
  listings: tables, shapes → prices, energy, wording → factory
  catalog (places, offices, listings written)
  accounts: logins → people, stock → ground → saved_search → matches → proposals → searches → letters →
            inquiries → valuations, history, confirmations → seeding
  seed (seed_demo: catalog, then accounts, in one transaction)
"""

from shared.demo.accounts.logins import DEMO_ACCOUNTS, DemoAccount
from shared.demo.clock import DEMO_NOW
from shared.demo.seed import CatalogNotEmptyError, SeedSummary, seed_demo

__all__ = ["DEMO_ACCOUNTS", "DEMO_NOW", "CatalogNotEmptyError", "DemoAccount", "SeedSummary", "seed_demo"]
