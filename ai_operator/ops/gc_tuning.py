"""Garbage collection for a real-time loop: collect and freeze what start-up made, then collect young objects
rarely and the old generation almost never.

A full (generation 2) collection walks every object the process holds; at a few hundred calls that took
120-260 ms on one 2-core box, and the one event loop stood still meanwhile: every call's audio stalled at
once. Start-up objects (modules, settings, tables, caches) live forever, so after start-up they are frozen
out of the collector's reach (`gc.freeze`), and the thresholds make young collections less frequent and old
ones rare. Reference counting still frees almost everything the moment it is dropped; only cycles wait.
"""

from __future__ import annotations

import gc

THRESHOLDS = (50_000, 20, 100)  # allocations before a young collection; young ones per gen1; gen1 per gen2


def settle_heap() -> tuple[int, int, int]:
    """Collect, freeze the survivors (start-up objects), raise the thresholds; returns the new thresholds."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
    return THRESHOLDS
