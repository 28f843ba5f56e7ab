"""Connection counts the workers of one server share, so that each takes only its share.

The workers of ``wonders serve --processes N`` accept on one socket, and the kernel gives a new
connection to whichever worker's ``accept`` runs first -- often the same one: 20 connections
opened at once were split 3 and 17 between two workers, measured.  Connections are kept alive
(a table's client, a phone's page), so that split lasts, and one worker then does most of the
work while the other idles.  So each worker publishes how many connections it holds, in a
slot of a small shared memory made by the parent before the fork, and polls the socket only
while it holds no more than :data:`SLACK` above the fewest any accepting worker holds (nginx's
accept mutex, by counts).  A worker that is not accepting -- starting, stopping, dead --
shows :data:`AWAY`, above any count, so the others never wait for it.  The check runs at
every turn of a worker's event loop, so it is one ``min`` over the slots.

The counts are advisory: a slot is written by its worker alone (one aligned 32-bit store), read
by the others without a lock; a stale count only lets a worker take one connection more or
less.
"""

from __future__ import annotations

import mmap

#: A slot's value while its worker does not accept (before it is ready, while it stops, dead):
#: more than any count, so never the fewest.
AWAY = 2**31 - 1
#: Connections a worker may hold above the fewest any accepting worker holds, and still accept.
SLACK = 1


class Shares:
    """One slot per worker (numbered from 1), in memory shared across ``fork``."""

    def __init__(self, workers: int):
        self._memory = mmap.mmap(-1, 4 * workers)  # anonymous and shared: children see writes
        self.slots = memoryview(self._memory).cast("i")
        for i in range(workers):
            self.slots[i] = AWAY

    def publish(self, number: int, connections: int) -> None:
        self.slots[number - 1] = connections

    def leave(self, number: int) -> None:
        """Worker ``number`` no longer accepts (it stops, or it has died)."""
        self.slots[number - 1] = AWAY

    def may_accept(self, number: int) -> bool:
        """Whether worker ``number`` holds no more than :data:`SLACK` connections above the
        fewest of the accepting workers (itself included, once it has published)."""
        return self.slots[number - 1] <= min(self.slots) + SLACK
