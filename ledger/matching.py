"""Maximum matchings in a general graph (Edmonds' blossom algorithm), for Swiss pairing.

A tournament round pairs players who have not met: a matching in the graph whose edges are the
pairs allowed.  Whether the players left can still all be paired without a rematch, or how many
rematches they need at least, is a question about that graph's *maximum* matching, which a
depth-first search of pairings answers only in exponential time (a group of low-ranked players
who have all met each other sends it back up the ranking, pairing by pairing).  Edmonds'
algorithm answers it in polynomial time: :class:`Matching` keeps a maximum matching of the
players still to pair while :func:`ledger.tournament.pair` removes them two by two.

Vertices are indices ``0 .. n-1``; ``allowed[v]`` is the set of vertices ``v`` may be paired
with (symmetric).
"""

from __future__ import annotations

from collections.abc import Sequence

FREE = -1


class Matching:
    """A maximum matching of the graph ``allowed`` restricted to the vertices still ``alive``."""

    def __init__(self, allowed: Sequence[set[int]], order: Sequence[int]):
        self.allowed = allowed
        self.alive = set(order)
        self.mate = [FREE] * len(allowed)
        order = list(order)
        for i, v in enumerate(order):  # greedy first, in ``order``: most of it usually stays
            if self.mate[v] == FREE:  # (a free one before ``v`` found ``v`` not allowed)
                partner = next((u for u in order[i + 1:] if self.mate[u] == FREE
                                and u in allowed[v]), FREE)
                if partner != FREE:
                    self.mate[v], self.mate[partner] = partner, v
        self.size = sum(1 for v in order if self.mate[v] != FREE) // 2
        self._maximise()

    def copy(self) -> Matching:
        twin = Matching.__new__(Matching)
        twin.allowed, twin.alive, twin.mate, twin.size = \
            self.allowed, set(self.alive), list(self.mate), self.size
        return twin

    def without(self, *vertices: int) -> Matching:
        """The maximum matching of the graph without ``vertices`` (a new object)."""
        twin = self.copy()
        for v in vertices:
            twin.alive.discard(v)
            mate = twin.mate[v]
            if mate != FREE:
                twin.mate[mate] = twin.mate[v] = FREE
                twin.size -= 1
        twin._maximise()
        return twin

    def _maximise(self) -> None:
        """Augment from every free vertex once: a vertex with no augmenting path now has none
        after later augmentations either (Edmonds), so the result is maximum."""
        for root in sorted(self.alive):
            if self.mate[root] == FREE and self._augment(root):
                self.size += 1

    def _augment(self, root: int) -> bool:
        """Find an augmenting path from ``root`` (free) and flip it: first along the plain
        alternating tree (enough in the dense graphs of a Swiss round, where most paths
        are two or three edges), else with Edmonds' blossom shrinking, which always finds
        one if there is one."""
        return self._augment_plain(root) or self._augment_blossoms(root)

    def _augment_plain(self, root: int) -> bool:
        """A breadth-first alternating tree without shrinking: a path it finds is a simple
        augmenting path (every vertex is labelled once); finding none proves nothing."""
        mate, alive, allowed = self.mate, self.alive, self.allowed
        parent = [FREE] * len(mate)
        labelled = {root}
        queue = [root]
        for v in queue:  # the queue grows while it is walked
            for to in allowed[v]:
                if to in labelled or to not in alive:
                    continue
                parent[to] = v
                if mate[to] == FREE:
                    self._flip(to, parent)
                    return True
                labelled.update((to, mate[to]))
                queue.append(mate[to])
        return False

    def _augment_blossoms(self, root: int) -> bool:
        """Edmonds' search from ``root`` (free), shrinking blossoms; flip the path if found."""
        n = len(self.mate)
        mate, alive, allowed = self.mate, self.alive, self.allowed
        parent = [FREE] * n
        base = list(range(n))
        used = [False] * n
        used[root] = True
        queue = [root]
        for v in queue:  # the queue grows while it is walked
            for to in allowed[v]:
                if to not in alive or base[v] == base[to] or mate[v] == to:
                    continue
                if to == root or (mate[to] != FREE and parent[mate[to]] != FREE):
                    self._shrink(v, to, parent, base, used, queue)
                elif parent[to] == FREE:
                    parent[to] = v
                    if mate[to] == FREE:
                        self._flip(to, parent)
                        return True
                    used[mate[to]] = True
                    queue.append(mate[to])
        return False

    def _shrink(self, v: int, to: int, parent: list[int], base: list[int], used: list[bool],
                queue: list[int]) -> None:
        """Contract the blossom closed by the edge ``v``–``to`` into its base."""
        top = self._common_base(v, to, parent, base)
        blossom = [False] * len(base)
        self._mark(v, top, to, parent, base, blossom)
        self._mark(to, top, v, parent, base, blossom)
        for i in range(len(base)):
            if blossom[base[i]]:
                base[i] = top
                if not used[i]:
                    used[i] = True
                    queue.append(i)

    def _common_base(self, a: int, b: int, parent: list[int], base: list[int]) -> int:
        seen = [False] * len(base)
        while True:
            a = base[a]
            seen[a] = True
            if self.mate[a] == FREE:
                break
            a = parent[self.mate[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[self.mate[b]]

    def _mark(self, v: int, top: int, child: int, parent: list[int], base: list[int],
              blossom: list[bool]) -> None:
        while base[v] != top:
            blossom[base[v]] = blossom[base[self.mate[v]]] = True
            parent[v] = child
            child = self.mate[v]
            v = parent[self.mate[v]]

    def _flip(self, end: int, parent: list[int]) -> None:
        v = end
        while v != FREE:
            before = parent[v]
            after = self.mate[before]
            self.mate[v], self.mate[before] = before, v
            v = after
