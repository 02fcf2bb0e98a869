"""Benchmarks: `python -m pytest benchmarks --benchmark-enable` (see docs/performance.md)."""
