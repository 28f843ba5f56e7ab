"""The garbage collector in a long-lived process (the server): what it need not walk.

Everything a server loads before it serves -- modules, the card pool, the app -- lives as
long as the process, yet every full collection walks it again (tens of thousands of
objects, tens of milliseconds: a pause any request may fall into, a seek's p99.9 among
them).  :func:`settle_startup` collects once and moves what survived into the collector's
permanent generation (``gc.freeze``), so later collections walk only what requests create
and the replays and tables held for them.  Frozen objects are still freed by reference
counting; only a cycle among them would stay, and the startup objects are never released.
"""

from __future__ import annotations

import gc


def settle_startup() -> int:
    """Collect, then freeze every surviving object; returns how many are now frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
