"""The kept folds (:class:`ledger.foldcache.FoldCache`): a fold is handed back only for the
version of the log it was folded from, and at most ``size`` logs are kept, the least recently
used let go first."""

from __future__ import annotations

from ledger.foldcache import FoldCache


def test_a_fold_is_handed_back_only_for_its_version():
    cache: FoldCache[str] = FoldCache()
    cache.put("cup", (1, 2), "folded at (1, 2)")
    assert cache.get("cup", (1, 2)) == "folded at (1, 2)"
    assert cache.get("cup", (1, 3)) is None
    assert cache.get("cup", (1, 2)) is None  # an outdated fold is let go
    assert cache.get("other", None) is None


def test_at_most_size_logs_are_kept_the_least_recently_used_let_go():
    cache: FoldCache[int] = FoldCache(size=3)
    for n in range(3):
        cache.put(f"t{n}", n, n)
    assert cache.get("t0", 0) == 0  # t0 used: t1 is now the least recently used
    cache.put("t3", 3, 3)
    assert len(cache) == 3
    assert cache.get("t1", 1) is None
    assert [cache.get(f"t{n}", n) for n in (0, 2, 3)] == [0, 2, 3]
