"""replay.counted: the singular for exactly one, a plural otherwise (none, many), an irregular
plural where given."""

from replay.counted import counted


def test_one_is_singular_and_none_or_many_plural():
    assert [counted(n, "card") for n in (0, 1, 2)] == ["0 cards", "1 card", "2 cards"]


def test_an_irregular_plural():
    assert counted(1, "live match", "live matches") == "1 live match"
    assert counted(3, "live match", "live matches") == "3 live matches"
