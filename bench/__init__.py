"""Benchmarks; run them as modules, e.g. `python -m bench.search_latency` (see bench/README.md)."""
