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

