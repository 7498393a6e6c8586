"""Benchmarks run by ``make bench``; results go to docs/benchmarks.md. Never part of the test suite."""
