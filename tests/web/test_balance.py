"""web/balance.py: the workers' shared connection counts -- who may accept, across a fork."""

from __future__ import annotations

import os

import pytest

from web.balance import AWAY, SLACK, Shares


def test_a_worker_accepts_while_it_holds_no_more_than_the_fewest_plus_the_slack():
    shares = Shares(3)
    for number, held in ((1, 5), (2, 5 + SLACK), (3, 5 + SLACK + 1)):
        shares.publish(number, held)
    assert [shares.may_accept(n) for n in (1, 2, 3)] == [True, True, False]


def test_a_worker_away_is_left_out_so_the_others_never_wait_for_it():
    shares = Shares(2)
    assert list(shares.slots) == [AWAY, AWAY]  # none ready yet
    shares.publish(1, 40)
    assert shares.may_accept(1)  # the other is starting: its count does not hold this one back
    shares.publish(2, 0)
    assert not shares.may_accept(1) and shares.may_accept(2)
    shares.leave(2)  # stopping or dead
    assert shares.may_accept(1)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_count_published_after_the_fork_is_seen_by_the_other_side():
    shares = Shares(2)
    pid = os.fork()
    if pid == 0:  # the child publishes and leaves at once
        shares.publish(2, 7)
        os._exit(0)
    os.waitpid(pid, 0)
    assert shares.slots[1] == 7
