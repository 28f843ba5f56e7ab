"""A simulated Swiss tournament pairs like the tournament tool: no avoidable rematch, no
avoidable second bye, and the same arguments give the same files.

The pairings are read back from the written match files (round and seats of each
``MatchOpened``); a round's bye is the player who did not play in it.  Whether a rematch was
avoidable is decided by brute force over every pairing the bye rule allows.
"""

from collections import defaultdict

import pytest

from ledger.filestore import FileStore
from replay.games import game
from replay.simulate import simulate_tournament


def _rounds(store: FileStore) -> dict[int, list[tuple[str, str]]]:
    out: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for info in store.list():
        seats = info.opened.seats
        out[info.opened.round].append((seats[0].player, seats[1].player))
    return out


def _free(players: list[str], met: dict[str, set[str]]) -> bool:
    """Whether ``players`` (an even count) can all be paired with no one meeting twice."""
    if not players:
        return True
    first, others = players[0], players[1:]
    return any(_free(others[:i] + others[i + 1:], met)
               for i, p in enumerate(others) if p not in met[first])


def _avoidable(players: list[str], met: dict[str, set[str]], had_bye: set[str]) -> bool:
    """Whether a rematch-free pairing of ``players`` existed under the bye rule."""
    if len(players) % 2 == 0:
        return _free(players, met)
    byes = [p for p in players if p not in had_bye] or players
    return any(_free([p for p in players if p != bye], met) for bye in byes)


def _simulate(root, players: int, rounds: int, seed: int = 1) -> FileStore:
    played = game("wotf")
    db = played.default_cards()
    store = FileStore(root)
    list(simulate_tournament(store, db, played.sample_decks(db), "Sim", players, rounds,
                             seed=seed, bulk=True))
    return store


@pytest.mark.parametrize("players,rounds", [(3, 3), (5, 4), (7, 5), (9, 4), (6, 4)])
def test_no_avoidable_rematch_or_second_bye(tmp_path, players, rounds):
    paired = _rounds(_simulate(tmp_path, players, rounds))
    everyone = {p for tables in paired.values() for t in tables for p in t}
    assert len(everyone) == players and sorted(paired) == list(range(1, rounds + 1))
    met: dict[str, set[str]] = defaultdict(set)
    had_bye: set[str] = set()
    for number in sorted(paired):
        tables = paired[number]
        rematches = [t for t in tables if t[1] in met[t[0]]]
        assert not rematches or not _avoidable(sorted(everyone), met, had_bye), (number, rematches)
        byes = everyone - {p for t in tables for p in t}
        assert len(byes) == players % 2
        for bye in byes:
            assert bye not in had_bye or had_bye >= everyone, (number, bye, had_bye)
            had_bye.add(bye)
        for a, b in tables:
            met[a].add(b)
            met[b].add(a)


def test_the_same_seed_writes_the_same_files(tmp_path):
    one, two = _simulate(tmp_path / "one", 5, 3), _simulate(tmp_path / "two", 5, 3)
    assert one.ids() == two.ids() and len(one.ids()) == 6
    for mid in one.ids():
        assert one.path(mid).read_bytes() == two.path(mid).read_bytes()
