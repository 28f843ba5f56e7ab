"""The garbage collector in a long-lived process (the server): what it need not walk.

Everything a server loads before it serves -- modules, the card pool, the app -- lives as
long as the process, yet every full collection walks it again (tens of thousands of
objects, tens of milliseconds: a pause any request may fall into, a seek's p99.9 among
them).  :func:`settle_startup` collects once and moves what survived into the collector's
permanent generation (``gc.freeze``), so later collections walk only what requests create
and the replays and tables held for them.  Frozen objects are still freed by reference
counting; only a cycle among them would stay, and the startup objects are never released --
until the process exits: they are unfrozen then (``atexit``), so the interpreter's last
collection frees them (DuckDB's bindings print dozens of lines about "leaked instances" at exit
when DuckDB objects were never freed, as every Ctrl-C of a server did).

What requests leave behind -- the table cache's folded matches, ~2,300 tracked objects each --
is walked by every full collection too: under the API bench's load (20 tables) the collector
made a full pass every ~10 of its middle passes while the cache grew, each a 45-90 ms pause
of every thread, collecting almost nothing (the state answers' p99 sat at that pause).
:func:`spread_full_collections` has a full pass wait for :data:`FULL_EVERY` middle passes
instead of 10 (CPython's own rule still waits for the long-lived objects to grow by a
quarter): the young and middle generations are collected as before, so a cycle dropped by a
request is still freed at once; one that outlived two passes waits longer.
"""

from __future__ import annotations

import atexit
import gc


def settle_startup() -> int:
    """Collect, then freeze every surviving object; returns how many are now frozen."""
    gc.collect()
    gc.freeze()
    atexit.unregister(gc.unfreeze)  # once, however often a process settles
    atexit.register(gc.unfreeze)
    return gc.get_freeze_count()


#: Middle-generation passes between two full collections (CPython's default: 10).
FULL_EVERY = 100


def spread_full_collections() -> tuple[int, int, int]:
    """Full collections ten times rarer (:data:`FULL_EVERY`); returns the new thresholds."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_EVERY)
    return gc.get_threshold()
