"""The simulation's bots answer every prompt the engine can ask."""

from __future__ import annotations

import random

from ledger.events import MatchOpened, SeatInfo
from replay.prompts import Choose, Prompt
from replay.wotf.bots import GreedyBot, random_pick
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks
from replay.wotf.engine import Engine


def test_the_bots_answer_a_distribute_prompt_of_several_realms():
    # 506 (ruling R21): distributing cards unevenly asks which realms get one card more -- a
    # "realm" prompt whose answer is a choice of several, with no options list.  The greedy
    # bot took the last of the options, and there were none (IndexError; random decks only).
    db = default_cards()
    decks = load_decks(None, db)
    seats = [SeatInfo(s, s, d.name, d.entries(), d.archive_entries())
             for s, d in (("A", decks[0]), ("B", decks[1]))]
    engine = Engine.for_match(MatchOpened(match_id="bots", ruleset="1.3.2", seats=seats), db)
    engine.start()
    prompt = Prompt("A", "realm", choose=Choose(["1", "3", "5"], 2, 2),
                    text="distribute: which 2 realm(s) get one card more? (rule 506)")
    for answer in (GreedyBot(random.Random(1))._answer(engine, prompt),
                   random_pick(prompt, random.Random(1))):
        assert len(answer) == 2 and set(answer) <= {"1", "3", "5"}, answer
