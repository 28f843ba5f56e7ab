"""The kept folds (:class:`ledger.foldcache.FoldCache`): each with the version of the log it
was folded from (a later fold replaces it), and at most ``size`` logs, the least recently used
let go first."""

from __future__ import annotations

from ledger.foldcache import FoldCache


def test_a_fold_is_kept_with_its_version_and_replaced_by_a_later_one():
    cache: FoldCache[str] = FoldCache()
    assert cache.get("cup") is None
    cache.put("cup", (1, 2), "folded at (1, 2)")
    assert cache.get("cup") == ((1, 2), "folded at (1, 2)")
    cache.put("cup", (1, 3), "folded at (1, 3)")
    assert cache.get("cup") == ((1, 3), "folded at (1, 3)") and len(cache) == 1


def test_at_most_size_logs_are_kept_the_least_recently_used_let_go():
    cache: FoldCache[int] = FoldCache(size=3)
    for n in range(3):
        cache.put(f"t{n}", n, n)
    assert cache.get("t0") == (0, 0)  # t0 used: t1 is now the least recently used
    cache.put("t3", 3, 3)
    assert len(cache) == 3
    assert cache.get("t1") is None
    assert [cache.get(f"t{n}") for n in (0, 2, 3)] == [(0, 0), (2, 2), (3, 3)]
