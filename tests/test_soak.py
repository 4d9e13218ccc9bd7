"""A short soak (bench/soak.py) in every test run: two instances on one PostgreSQL database, sessions of seekers and
brokers, a reply confirmed in the web app, an OpenImmo import; 0 errors, the outbox drained, the pools never
exhausted, no table grown beyond the writes made, no process growing. The timing figures (p99 stable over ten
minutes) are the benchmark's (bench/README.md), not asserted here."""

from __future__ import annotations

import os

import pytest

from bench.soak import run


@pytest.mark.postgres
def test_a_short_soak_keeps_every_invariant() -> None:
    server_url = os.environ.get("ATHAUS_TEST_DATABASE_URL")
    if not server_url:
        pytest.skip("two instances share one database server only on PostgreSQL; SQLite serves one process")
    result = run(sessions=6, seconds=15, instance_count=2, workers=1, listings=100, server_url=server_url, confirm_every=5, import_every=8)
    assert (result["errors"], result["problems"]) == (0, [])
    checks = {name: ok for name, ok in result["checks"].items() if name not in {"p99_stable", "rss_flat"}}
    assert checks == dict.fromkeys(checks, True), result
    assert result["drained_after"] is not None and result["writes"] > 0
    assert result["grown"].get("inquiry_messages", 0) >= 1, "a confirmation in the web app sent a reply"
    assert result["grown"].get("search_orders", 0) >= 1 and result["server_errors"] == []
