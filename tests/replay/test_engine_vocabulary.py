"""The engine's vocabulary is bound to the components that own it (Engine.__init__): a
component's call of a word goes straight to the owner's method, and binding it changes
nothing, because each façade method of those words only hands the call on."""

import inspect
import re

from replay.wotf import engine as engine_module
from replay.wotf.engine import Engine
from tests.replay.helpers import opened, small_db


def test_each_bound_word_is_its_owners_method():
    engine = Engine.for_match(opened(), small_db())
    for part, words in engine_module._VOCABULARY.items():
        owner = getattr(engine, part)
        for word in words:
            bound = vars(engine)[word]
            assert bound.__self__ is owner and bound.__func__ is getattr(type(owner), word)
    assert vars(engine)["run_event"].__self__ is engine._bus


def test_each_bound_words_facade_method_only_hands_the_call_on():
    # binding a word that did more than hand its call on would skip that work
    for part, words in engine_module._VOCABULARY.items():
        for word in words:
            body = inspect.getsource(getattr(Engine, word)).strip().splitlines()[-1].strip()
            assert re.fullmatch(rf"return self\.{part}\.{word}\([^()]*\)", body), (word, body)
