"""ledger.typeinfo: no thread meets a Struct class msgspec has not finished working out.

msgspec 0.22.0 makes a class's decoding information visible before it has filled it in, so
threads decoding a class for the first time together can crash the process (SIGSEGV).  The
script below makes that race as likely as it can be: eight threads released at once onto
each of many new classes, with the interpreter switching threads every microsecond.  Without
``prepare()`` it died with SIGSEGV at once, every time it was run here (msgspec 0.22.0); with
it, it must finish.  Each run is a real subprocess, so a crash fails the test rather than the
test run.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import msgspec

from ledger import registry, typeinfo

RACE = textwrap.dedent('''
    import sys, threading, msgspec
    from typing import Optional
    from ledger import typeinfo
    sys.setswitchinterval(1e-6)
    PREPARE = sys.argv[1] == "prepare"
    THREADS = 8
    DATA = b'{"x":1,"y":"s","z":[{"a":1,"b":"q"}],"w":{"k":2},"v":1.5}'
    for k in range(int(sys.argv[2])):
        class Inner(msgspec.Struct):
            a: int
            b: Optional[str] = None
        class Outer(msgspec.Struct):
            x: int
            y: str
            z: list[Inner]
            w: dict[str, int] = {}
            v: Optional[float] = None
        if PREPARE:
            typeinfo.prepare()
        gate = threading.Barrier(THREADS)
        def decode():
            gate.wait()
            for _ in range(3):
                assert msgspec.json.decode(DATA, type=Outer).z[0].b == "q"
        threads = [threading.Thread(target=decode) for _ in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    print("finished")
''')


def _race(mode: str, classes: int) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", RACE, mode, str(classes)],
                          capture_output=True, text=True, timeout=120)


def test_threads_decoding_new_classes_together_survive_once_prepared():
    for _ in range(3):
        done = _race("prepare", 300)
        assert done.returncode == 0 and "finished" in done.stdout, \
            f"rc {done.returncode}: {done.stderr[-2000:]}"


def test_prepare_works_out_each_class_once():
    class Fresh(msgspec.Struct):
        n: int

    assert typeinfo.prepare() >= 1  # Fresh, at least
    assert typeinfo.prepare() == 0  # nothing new since
    assert Fresh in typeinfo._prepared


def test_loading_the_games_prepares_every_event_class():
    registry.load_games()
    assert set(registry.EVENT_TYPES.values()) <= typeinfo._prepared

