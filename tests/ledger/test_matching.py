"""Maximum matchings (:mod:`ledger.matching`) against a brute-force search, with hypothesis:
the size is the maximum, every pair is an allowed edge, and removing vertices keeps it
maximum (what Swiss pairing relies on, pairing the players two by two)."""

from __future__ import annotations

import functools
import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.matching import FREE, Matching

SETTINGS = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


@st.composite
def graphs(draw):
    n = draw(st.integers(0, 11))
    allowed: list[set[int]] = [set() for _ in range(n)]
    density = draw(st.integers(1, 9))
    for a, b in itertools.combinations(range(n), 2):
        if draw(st.integers(0, 9)) < density:
            allowed[a].add(b)
            allowed[b].add(a)
    gone = draw(st.lists(st.integers(0, max(n - 1, 0)), max_size=3)) if n else []
    return allowed, sorted(set(gone))


def _maximum(vertices: tuple[int, ...], allowed: list[set[int]]) -> int:
    @functools.cache
    def best(left: tuple[int, ...]) -> int:
        if not left:
            return 0
        first, rest = left[0], left[1:]
        return max([best(rest)] + [1 + best(rest[:i] + rest[i + 1:])
                                   for i, v in enumerate(rest) if v in allowed[first]])
    return best(vertices)


def _valid(m: Matching, vertices: list[int]) -> None:
    for v in vertices:
        if m.mate[v] != FREE:
            assert m.mate[m.mate[v]] == v and m.mate[v] in m.allowed[v]
            assert m.mate[v] in vertices
    assert sum(1 for v in vertices if m.mate[v] != FREE) == 2 * m.size


@SETTINGS
@given(graphs())
def test_the_matching_is_maximum_and_stays_so_without_some_vertices(graph):
    allowed, gone = graph
    everyone = list(range(len(allowed)))
    m = Matching(allowed, everyone)
    _valid(m, everyone)
    assert m.size == _maximum(tuple(everyone), allowed)
    rest = [v for v in everyone if v not in gone]
    smaller = m.without(*gone)
    _valid(smaller, rest)
    assert smaller.size == _maximum(tuple(rest), allowed)
    assert m.size == _maximum(tuple(everyone), allowed)  # the original is left as it was


def test_a_path_through_an_odd_cycle_is_found():
    """The triangle 0-1-2 with 3 hanging off 0: the greedy start matches 0-1 and leaves 2 and
    3 free.  From 2 the plain alternating tree reaches 1 only as 0's mate (even) and stops;
    the augmenting path 2-1=0-3 goes round the triangle (Edmonds' blossom)."""
    m = Matching([{1, 2, 3}, {0, 2}, {0, 1}, {0}], range(4))
    assert m.size == 2 and m.mate == [3, 2, 1, 0]
