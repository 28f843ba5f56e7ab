"""``now_iso`` (the ``at`` of every append) formats a second's date and time once; what it
gives is what ``format_time(datetime.now(UTC))`` gives at that moment."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime

from ledger.codec import format_time, now_iso

AT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def test_now_iso_is_the_formatted_time_across_second_boundaries():
    seconds = set()
    deadline = time.monotonic() + 1.3  # long enough to cross at least one second
    while time.monotonic() < deadline:
        before = format_time(datetime.now(UTC))
        at = now_iso()
        after = format_time(datetime.now(UTC))
        assert AT.fullmatch(at), at
        assert before <= at <= after
        seconds.add(at[:19])
    assert len(seconds) >= 2
