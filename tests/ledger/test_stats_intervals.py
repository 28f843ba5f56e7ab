"""The Wilson score interval and Newcombe's difference interval against published values
(Newcombe 1998, "Two-sided confidence intervals for the single proportion", Table I, method 3;
and "Interval estimation for the difference between independent proportions", Table II,
method 10), plus their edge cases."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.intervals import newcombe, rate, wilson


@pytest.mark.parametrize("wins,games,low,high", [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
])
def test_wilson_matches_published_values(wins, games, low, high):
    got_low, got_high = wilson(wins, games)
    assert got_low == pytest.approx(low, abs=5e-5)
    assert got_high == pytest.approx(high, abs=5e-5)


@pytest.mark.parametrize("a,m,b,n,low,high", [
    (56, 70, 48, 80, 0.0524, 0.3339),
    (9, 10, 3, 10, 0.1705, 0.8090),
    (6, 7, 2, 7, 0.0582, 0.8062),
    (5, 56, 0, 29, -0.0381, 0.1926),
    (0, 10, 0, 20, -0.1611, 0.2775),
    (10, 10, 0, 20, 0.6791, 1.0),
])
def test_newcombe_matches_published_values(a, m, b, n, low, high):
    got_low, got_high = newcombe(a, m, b, n)
    assert got_low == pytest.approx(low, abs=5e-5)
    assert got_high == pytest.approx(high, abs=5e-5)


def test_no_games_has_no_rate_and_no_interval():
    assert rate(0, 0) is None
    assert wilson(0, 0) == (None, None)
    assert newcombe(1, 2, 0, 0) == (None, None)


def test_impossible_counts_are_rejected():
    with pytest.raises(ValueError):
        wilson(5, 4)


@given(st.integers(1, 10_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_the_interval_holds_the_rate_and_stays_in_0_1(pair):
    wins, games = pair
    low, high = wilson(wins, games)
    assert 0.0 <= low <= wins / games <= high <= 1.0


def test_all_wins_and_no_wins_are_mirror_images():
    low0, high0 = wilson(0, 17)
    low1, high1 = wilson(17, 17)
    assert low0 == 0.0 and high1 == 1.0
    assert high0 == pytest.approx(1 - low1, abs=1e-12)
