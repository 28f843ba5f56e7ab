"""``wonders serve`` imports, before it serves (and before ``--processes`` forks), the game
modules the recording API would otherwise import on its first requests in every worker."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]

PROBE = """
import sys
import web.serve
before = 'replay.wotf.api' in sys.modules
loaded = web.serve.preload_games()
print(before, loaded, 'replay.wotf.api' in sys.modules)
"""


def test_the_recording_api_of_each_game_is_imported_before_serving():
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=True)
    # not imported by the server's own imports (else the first request would not pay it)
    assert done.stdout.strip() == "False ['replay.wotf.api'] True"
