"""The card database and decks: fixtures load and validate; errors name file and field."""

import pytest

from replay import resources
from replay.errors import CardDataError
from replay.wotf.cards import SIMPLE_KEYWORDS, default_cards, load_card_file, load_cards
from replay.wotf.decks import load_deck, load_decks, validate_deck

ORBITALS = ["Petraia", "Thalwind", "Solfera", "Umbrathene", "Heliosynth", "Boundless"]


def test_the_starter_pool_covers_every_orbital_cost_and_keyword():
    db = default_cards()
    for orbital in ORBITALS:
        cards = [c for c in db if c.orbital == orbital and not c.token]
        assert {c.cost for c in cards if c.type == "wonder" and not c.keywords} >= set(range(8))
        assert any(c.type == "land" for c in cards)
        keywords = {k for c in cards for k in c.keywords}
        assert keywords | {"attuned"} >= SIMPLE_KEYWORDS, orbital
        assert f"attuned:{orbital}" in keywords and any(k.startswith("link:") for k in keywords)


@pytest.mark.parametrize("body,field", [
    ('name = "X"\ntype = "wonder"\ncolour = "red"', "colour"),
    ('name = "X"\ntype = "creature"', "type"),
    ('name = "X"\ntype = "wonder"\nkeywords = ["flyin"]', "keywords"),
    ('name = "X"\ntype = "wonder"\norbital = "Mars"', "orbital"),
    ('name = "X"\ntype = "wonder"\ncost = -1', "cost"),
])
def test_a_bad_card_names_the_file_and_the_field(tmp_path, body, field):
    path = tmp_path / "bad.toml"
    path.write_text("[[card]]\n" + body + "\n")
    with pytest.raises(CardDataError) as caught:
        load_card_file(path)
    assert str(path) in str(caught.value) and f"'{field}" in str(caught.value)


def test_every_fixture_deck_is_legal():
    db = default_cards()
    decks = load_decks(None, db)
    assert len(decks) >= 8
    for deck in decks:
        assert validate_deck(deck, db) == [], deck.name
        assert deck.size() == 50 and deck.main_orbitals(db)


def _deck(tmp_path, cards: dict, archive: dict | None = None, format: str = "constructed"):
    lines = ['name = "t"', f'format = "{format}"', "[cards]"] + [f'"{k}" = {v}' for k, v in cards.items()]
    if archive:
        lines += ["[archive]"] + [f'"{k}" = {v}' for k, v in archive.items()]
    path = tmp_path / "t.toml"
    path.write_text("\n".join(lines) + "\n")
    return load_deck(path)


def test_deck_problems_are_named(tmp_path):
    db = default_cards()
    secondary = next(c.name for c in db if c.tier == "secondary" and c.type == "wonder" and not c.token)
    legend = next(c.name for c in db if c.tier == "legendary")
    token = next(c.name for c in db if c.token)
    land = next(c.name for c in db if c.type == "land")
    assert "has 49 cards" in validate_deck(_deck(tmp_path, {land: 49}), db)[0]
    problems = validate_deck(_deck(tmp_path, {secondary: 4, legend: 2, land: 44}), db)
    assert any("4 copies of a secondary" in p for p in problems)
    assert any("2 copies of a legendary" in p for p in problems)
    assert any("unknown card" in p for p in validate_deck(_deck(tmp_path, {"Nope": 1, land: 49}), db))
    assert any("token can't start" in p for p in validate_deck(_deck(tmp_path, {token: 1, land: 49}), db))
    assert any("51 tokens" in p for p in validate_deck(_deck(tmp_path, {land: 50}, {token: 51}), db))


def test_an_unreadable_deck_names_the_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('name = "x"\ncards = 5\n')
    with pytest.raises(CardDataError, match=r"broken.toml: cards"):
        load_deck(path)


# -- where the data is: replay.resources, WONDERS_CARDS, empty pools -------------------------------

def test_the_data_is_found_through_replay_resources():
    from replay import resources

    root = resources.data_root()
    assert resources.shipped_cards_dir() == root / "cards"
    assert resources.cards_dir() == root / "cards"  # no --cards, no WONDERS_CARDS (autouse)
    assert resources.card_files() == sorted((root / "cards").glob("*.toml"))
    assert sorted(resources.decks_dir().glob("*.toml"))
    assert sorted(resources.golden_dir().glob("*.jsonl"))
    assert sorted(resources.conformance_dir().rglob("*.toml"))


@pytest.fixture(autouse=True)
def _no_chosen_pool(monkeypatch):
    from replay import resources

    monkeypatch.delenv(resources.CARDS_ENV, raising=False)
    monkeypatch.setattr(resources, "_chosen_cards", None)


def test_wonders_cards_and_use_cards_choose_another_pool(tmp_path, monkeypatch):
    from replay import resources

    pool = tmp_path / "pool"
    pool.mkdir()
    (pool / "two.toml").write_text('[[card]]\nname = "Pebble"\ntype = "wonder"\npower = 1\n'
                                   '[[card]]\nname = "Boulder"\ntype = "wonder"\npower = 3\n')
    shipped = len(default_cards())
    monkeypatch.setenv(resources.CARDS_ENV, str(pool))
    assert sorted(c.name for c in default_cards()) == ["Boulder", "Pebble"]
    monkeypatch.delenv(resources.CARDS_ENV)
    assert len(default_cards()) == shipped
    previous = resources.use_cards(pool)
    try:
        assert len(default_cards()) == 2
    finally:
        resources.use_cards(previous)
    assert len(default_cards()) == shipped


@pytest.mark.parametrize("content", [None, "# no cards here\n"])
def test_an_empty_pool_is_an_error_not_an_empty_database(tmp_path, monkeypatch, content):
    from replay import resources
    from replay.wotf.cards import load_cards

    if content is not None:
        (tmp_path / "nothing.toml").write_text(content)
    monkeypatch.setenv(resources.CARDS_ENV, str(tmp_path))
    with pytest.raises(CardDataError, match=r"card pool .* is empty") as caught:
        default_cards()
    assert str(tmp_path) in str(caught.value) and "\n" not in str(caught.value)
    with pytest.raises(CardDataError, match="empty"):
        load_cards()
    monkeypatch.setenv(resources.CARDS_ENV, str(tmp_path / "missing"))
    with pytest.raises(CardDataError, match="no such directory"):
        default_cards()


def test_a_recorded_card_set_is_parsed_once_and_an_altered_one_is_still_refused():
    """``match_cards`` keeps the card sets it parsed by digest (matches of one corpus record
    the same few): a second match of the same set shares the database; a file whose recorded
    definitions were altered is refused even when its claimed digest names a kept set."""
    import msgspec

    from replay.wotf.game import GAME

    pool = default_cards()
    opened = _opened(pool, 0, "m-1")
    first = GAME.match_cards(opened, pool)
    again = GAME.match_cards(msgspec.structs.replace(opened, match_id="m-2"), pool)
    assert again is first and first is not pool
    changed = [dict(d) for d in opened.cards]
    changed[0] = {**changed[0], "cost": changed[0].get("cost", 0) + 1}
    altered = msgspec.structs.replace(opened, cards=changed)  # the digest of the kept set
    with pytest.raises(CardDataError, match="do not match their digest"):
        GAME.match_cards(altered, pool)


def test_a_kept_card_set_is_not_hashed_again_but_other_bytes_are(monkeypatch):
    """A match whose recorded definitions encode to the bytes of a kept set has its digest:
    no SHA-256 worked out again.  The same definitions with their keys in another order are
    other bytes, so another digest: refused, as before the set was kept."""
    import hashlib

    import msgspec

    from replay.wotf import cards as cards_module
    from replay.wotf.game import GAME

    pool = default_cards()
    opened = _opened(pool, 1, "h-1")
    GAME.match_cards(opened, pool)
    hashed, sha256 = [], hashlib.sha256

    def counting(data: bytes):
        hashed.append(data)
        return sha256(data)
    monkeypatch.setattr(cards_module.hashlib, "sha256", counting)
    GAME.match_cards(msgspec.structs.replace(opened, match_id="h-2"), pool)
    assert hashed == []
    reordered = [dict(reversed(list(d.items()))) for d in opened.cards]
    assert reordered == opened.cards  # equal as values, other bytes
    with pytest.raises(CardDataError, match="do not match their digest"):
        GAME.match_cards(msgspec.structs.replace(opened, cards=reordered), pool)
    assert len(hashed) == 1


def test_the_very_list_already_checked_is_not_encoded_again_but_a_new_one_is(monkeypatch):
    """The same decoded definitions list (the same match re-derived again) is not even
    encoded again; a new list -- a file read afresh, or one altered on disk -- is encoded and
    checked, and one that does not encode to its digest refused, as before; so is the very
    list checked once when it comes with another claimed digest."""
    import msgspec

    from replay.wotf import cards as cards_module
    from replay.wotf.game import GAME

    pool = default_cards()
    opened = _opened(pool, 2, "i-1")
    first = GAME.match_cards(opened, pool)
    encoded, encode = [], msgspec.json.encode

    def counting(obj, *args, **kwargs):
        encoded.append(obj)
        return encode(obj, *args, **kwargs)
    monkeypatch.setattr(cards_module.msgspec.json, "encode", counting)
    assert GAME.match_cards(msgspec.structs.replace(opened, match_id="i-2"), pool) is first
    assert encoded == []
    fresh = msgspec.json.decode(encode(opened.cards))  # the same set read again: new objects
    assert GAME.match_cards(msgspec.structs.replace(opened, cards=fresh), pool) is first
    assert len(encoded) == 1
    altered = [{**fresh[0], "cost": fresh[0].get("cost", 0) + 1}, *fresh[1:]]
    with pytest.raises(CardDataError, match="do not match their digest"):
        GAME.match_cards(msgspec.structs.replace(opened, cards=altered), pool)
    with pytest.raises(CardDataError, match="do not match their digest"):
        GAME.match_cards(msgspec.structs.replace(opened, cards_digest="0" * 64), pool)


def _opened(pool, deck_index: int, match_id: str):
    """A completed ``MatchOpened`` of two seats playing the ``deck_index``-th sample deck."""
    from ledger.events import MatchOpened, SeatInfo
    from replay.wotf.game import GAME

    deck = load_decks(db=pool)[deck_index]
    seats = [SeatInfo(seat, "P", deck.name, deck.entries(), deck.archive_entries())
             for seat in ("A", "B")]
    return GAME.complete_opened(MatchOpened(match_id=match_id, ruleset="1.3.2", seats=seats,
                                            game="wotf"), pool)


def _facts_worked_out(card) -> tuple:
    """A definition's facts worked out afresh from its fields (what the kept ones must equal)."""
    defining = tuple(a for a in card.abilities if a.when == "static" and a.all_zones)
    links = {k.split(":", 1)[1] for k in card.keywords if k.startswith("link:")}
    if card.type == "land" and card.orbital and not links:
        links.add(card.orbital)
    return (frozenset(a.when for a in card.abilities),
            frozenset(a.on.event for a in card.abilities if a.when == "whenever" and a.on is not None),
            defining, card.base_power < 0 or bool(defining), frozenset(links))


def _facts_kept(card) -> tuple:
    return (card.timings, card.whenever_events, card.stat_defining, card.may_lower_power, card.links)


def test_a_definition_s_kept_facts_are_its_own_and_a_changed_copy_works_them_out_again():
    # The facts every view of every match shares (Card.timings ...) are the definition's;
    # a copy with changed fields (a test's variant, a verify against other cards) must not
    # inherit the original's.
    from replay.wotf.cards import default_cards
    pool = list(default_cards())
    for card in pool:
        assert _facts_kept(card) == _facts_worked_out(card), card.name
    wonder = next(c for c in pool if c.type == "wonder" and c.base_power > 0 and not c.stat_defining)
    assert wonder.may_lower_power is False
    lowered = wonder.model_copy(update={"power": -2})
    assert lowered.may_lower_power is True and _facts_kept(lowered) == _facts_worked_out(lowered)
    scripted = next(c for c in pool if c.whenever_events)
    assert scripted.timings  # worked out on the original first
    bare = scripted.model_copy(update={"abilities": ()})
    assert _facts_kept(bare) == _facts_worked_out(bare) and not bare.timings
    land = next(c for c in pool if c.type == "land" and c.links)
    relinked = land.model_copy(update={"keywords": (*land.keywords, "link:Solfera")})
    assert "Solfera" in relinked.links and _facts_kept(relinked) == _facts_worked_out(relinked)


_EXTRA = """
[[card]]
name = "Test Unknown Land"
type = "land"
classes = ["Unknown"]
cost = 0
orbital = "Petraia"
rarity = "T"
set = "Test"
token = true

[[card]]
name = "Test Legendary Companion"
type = "wonder"
classes = ["Story Token", "Owl"]
tier = "legendary"
cost = 0
power = 1
orbital = "Boundless"
rarity = "story"
set = "Test"
token = true
"""


def _legal_with(db, name: str, copies: int) -> dict:
    """A shipped legal deck's cards with ``copies`` of its first entries replaced by ``name``
    (so the deck still holds 50)."""
    cards = dict(load_decks(None, db)[0].cards)
    left = copies
    for swap in list(cards):
        taken = min(left, cards[swap])
        cards[swap] -= taken
        left -= taken
    cards = {k: n for k, n in cards.items() if n}
    if copies:
        cards[name] = copies
    return cards


def _db_with_extra(tmp_path):
    """The shipped pool plus a token land and a legendary story token (R40)."""
    extra = tmp_path / "extra.toml"
    extra.write_text(_EXTRA)
    return load_cards([*resources.card_files(resources.shipped_cards_dir()), extra])


def test_token_lands_start_in_the_main_deck_only_in_prerelease_and_draft(tmp_path):
    """304.1: "Players can include token lands in their starting decks"; Unknown Lands: "They
    can't start the game in a main deck except in some formats like draft and prerelease"
    (docs/rulings.md R40).  Other tokens never start there."""
    db = _db_with_extra(tmp_path)
    wonder_token = next(c.name for c in db if c.token and c.type == "wonder")
    cards = _legal_with(db, "Test Unknown Land", 3)
    for fmt in ("prerelease", "draft"):
        assert validate_deck(_deck(tmp_path, cards, format=fmt), db) == [], fmt
        problems = validate_deck(_deck(tmp_path, _legal_with(db, wonder_token, 1), format=fmt), db)
        assert problems and all("token can't start" in p for p in problems), fmt
    problems = validate_deck(_deck(tmp_path, cards), db)
    assert problems and all("Test Unknown Land" in p and "token can't start" in p for p in problems)
    over = validate_deck(_deck(tmp_path, _legal_with(db, "Test Unknown Land", 4), format="draft"), db)
    assert any("4 copies of a secondary" in p for p in over)  # 303.1 still counts


def test_a_legendary_story_token_once_per_archive_from_revision_9(tmp_path):
    """Story Tokens: "Legendary story tokens are limited to one copy of that printed token
    card per archive" (R40); a match recorded before revision 9 is not refused for it."""
    db = _db_with_extra(tmp_path)
    cards = _legal_with(db, "", 0)
    twice = _deck(tmp_path, cards, {"Test Legendary Companion": 2})
    assert any("legendary story token" in p for p in validate_deck(twice, db))
    assert any("legendary story token" in p for p in validate_deck(twice, db, rules_revision=9))
    assert validate_deck(twice, db, rules_revision=8) == []
    assert validate_deck(twice, db, rules_revision=0) == []
    once = _deck(tmp_path, cards, {"Test Legendary Companion": 1})
    assert validate_deck(once, db) == []


def test_the_match_format_decides_for_entries():
    """A seat's entries are checked in the match's format (the organizer's create passes it)."""
    from replay.games import game
    from replay.wotf.decks import Deck

    played = game("wotf")
    db = default_cards()
    deck = load_decks(None, db)[0]
    assert played.deck_problems(deck, db, "prerelease") == []
    assert isinstance(deck, Deck) and played.deck_problems(deck, db, "constructed", 8) == []
