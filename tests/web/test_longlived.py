"""The server's garbage-collector settling: what startup loaded is frozen, and a full
collection then walks only what came after."""

import subprocess
import sys


def test_settle_startup_freezes_what_survived_and_full_collections_skip_it():
    # In a subprocess: freezing is for the whole process, and a test run must not keep it.
    code = (
        "import gc, time\n"
        "from replay.games import game\n"
        "from web.longlived import settle_startup\n"
        "db = game('wotf').default_cards()\n"
        "before = len(gc.get_objects())\n"
        "frozen = settle_startup()\n"
        "after = len(gc.get_objects())\n"
        "print(before, frozen, after)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    before, frozen, after = map(int, out.stdout.split())
    assert frozen >= 0.9 * before > 10_000  # the card pool and the modules
    assert after < 0.05 * before  # what a full collection still walks



def test_full_collections_wait_ten_times_longer_and_the_young_ones_do_not():
    """web.longlived.spread_full_collections: while what the process keeps grows (the table
    cache), a full pass comes after FULL_EVERY middle passes, not 10; the young and middle
    thresholds stay CPython's, so dropped cycles are still freed."""
    code = (
        "import gc, sys\n"
        "class Node: pass\n"
        "def cycle():\n"
        "    a, b = Node(), Node()\n"
        "    a.b, b.a = b, a\n"
        "gc.collect(); gc.freeze()\n"  # as the server starts (settle_startup)
        "if sys.argv[1] == 'spread':\n"
        "    from web.longlived import spread_full_collections; spread_full_collections()\n"
        "passes = []\n"
        "gc.callbacks.append(lambda phase, info: phase == 'stop' and "
        "passes.append(info['generation']))\n"
        "kept = []\n"
        "for i in range(200_000):\n"
        "    cycle()\n"
        "    kept.append([i])\n"  # what the server keeps grows
        "print(gc.get_threshold()[2], passes.count(1), passes.count(2), "
        "len([o for o in gc.get_objects() if type(o) is Node]))\n"
    )

    def run(mode: str) -> list[int]:
        out = subprocess.run([sys.executable, "-c", code, mode], capture_output=True, text=True,
                             check=True)
        return [int(word) for word in out.stdout.split()]
    every, middles, fulls, alive = run("spread")
    assert every == 100 and middles >= 20 and fulls == 0 and alive < 2_000
    default_every, _, default_fulls, _ = run("default")
    assert default_every == 10 and default_fulls >= 2  # what CPython alone does meanwhile
