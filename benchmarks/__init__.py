"""Benchmarks: `python -m benchmarks.<name>`; each exposes `run() -> dict`."""
