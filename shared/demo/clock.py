"""The demo data's fixed "now": every date hangs off DEMO_NOW, never the clock, so runs are identical."""

from __future__ import annotations

import datetime as dt

DEMO_NOW = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)
