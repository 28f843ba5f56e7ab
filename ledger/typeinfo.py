"""msgspec's decoding information of every Struct class, built on one thread before threads race.

msgspec works out how to decode a Struct class (its fields' types) the first time a decoder
meets the class, and it makes that information visible on the class *before* it has filled
it in.  A second thread decoding the same class in that window reads a field type that is not
there yet, and the whole process dies: SIGSEGV in msgspec's ``json_decode_struct_map_inner``
(msgspec 0.22.0, the newest release).  Seen here in twelve Python processes in a day, all at
that instruction, among them ``wonders serve`` workers under the API bench (a server's first
requests decode on many threads at once), and reproduced
in a few milliseconds by eight threads decoding a new class together
(tests/ledger/test_typeinfo.py).

So a process that decodes on threads -- a server's request threads, a store's concurrent
writers, a Dask worker's threads -- has every Struct class's information built once, on one
thread, before its threads start: :func:`prepare`.  :func:`ledger.registry.load_games` calls it
for every event, state and envelope class (any decoding of a match loads the games first), and
``wonders serve`` calls it again once the app is built and before it forks or starts a thread.
Building a decoder for a class is what makes msgspec build the information; the decoder itself
is thrown away.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import msgspec

_lock = threading.Lock()
_prepared: set[type] = set()


def prepare() -> int:
    """Build msgspec's decoding information of every Struct class defined so far, here, under
    a lock (a thread that calls it while another does waits until it is done).  Returns how
    many classes were new."""
    with _lock:
        new = [cls for cls in _structs(msgspec.Struct) if cls not in _prepared]
        for cls in new:
            # TypeError, NameError: msgspec can't decode this class at all (an unsupported
            # field type, an annotation that names nothing); every decoding of it fails the
            # same way before any information is used, so there is nothing to race for
            with contextlib.suppress(TypeError, NameError):
                msgspec.json.Decoder(cls)
            _prepared.add(cls)
        return len(new)


def _structs(base: type) -> Iterator[type]:
    """Every subclass of ``base``, depth first (a class with two Struct bases may come twice)."""
    subclasses: list[type] = base.__subclasses__()
    for cls in subclasses:
        yield cls
        yield from _structs(cls)
