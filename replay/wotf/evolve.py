"""The fold of Wonders of The First: ``evolve(state, event)`` is the only writer of game state.

The log is the truth (DESIGN.md section 2): every change the rules make is an event, and the
state of a match is the fold of its events -- :func:`initial_state` from ``MatchOpened``, then
:func:`evolve` for each event in order.  The engine decides and emits; emitting applies the
event through :func:`evolve` (``Engine.emit``), so the engine's state after event *n* is
``fold(events[:n + 1])`` by construction, and every reader (viewer, API, analytics) can know any
state without the engine.

``evolve`` trusts its input: checking is the engine's job (``Engine.check``).  It is pure in the
sense that matters here: the new state depends on the old state and the event alone (no card
database, no clock, no randomness).  It updates ``state`` in place and returns it; callers that
keep an old state :func:`~replay.wotf.state.clone` it first.

Administrative events (``TakenBack``) are not folded here: a take-back restores an earlier
state, which only a reader holding the earlier states can do (:func:`fold`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal

from replay.wotf import events as ev
from replay.wotf.instances import card_instances, deck_names, ids_by_shuffle
from replay.wotf.revisions import effective
from replay.wotf.state import (
    SEATS,
    CardState,
    Effect,
    GameState,
    Loop,
    PlayerState,
    Resolving,
    Stack,
    Targeting,
    clone,
    new_realms,
)

_TURN_ACTIONS = (ev.PlayDeclared, ev.AttackDeclared, ev.DrawDeclared, ev.ActivationDeclared,
                 ev.HarvestDeclared)
_RESOURCES = ("energy", "actions", "faith", "free_attacks")


def number(value: Any) -> Any:
    """A recorded number as the state keeps it: "inf" is ∞ and 3.0 is 3, so a state folded
    from a decoded file equals the state folded from the engine's own events."""
    if isinstance(value, str):
        return float(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def initial_state(opened: ev.MatchOpened, ids: dict[str, list[tuple[str, str]]] | None = None
                  ) -> GameState:
    """The state at seq 0: both decks in list order, both archives, nothing else.

    ``ids`` gives each seat's card instances as ``(id, card name)`` pairs for the deck,
    and under the key ``"<seat>-archive"`` for the archive (:mod:`replay.wotf.instances`).
    """
    ids = ids if ids is not None else card_instances(opened)
    # The ruleset is one of the game's: replay.games.game_of refuses any other before a match
    # is read, recorded or re-derived.
    state = GameState(ruleset="1.2" if opened.ruleset == "1.2" else "1.3.2",
                      format=opened.format, realms=new_realms(),
                      previous_loser=opened.previous_loser,
                      revision=effective(opened.rules_revision))
    if ids_by_shuffle(opened):
        # 402 (schema 3): the setup shuffle orders card names; DeckOrdered deals the ids.
        state.deck_lists = {info.seat: deck_names(opened, info.seat) for info in opened.seats}
    for info in opened.seats:
        player = PlayerState(seat=info.seat)
        state.players[info.seat] = player
        for cid, name in ids[info.seat]:
            state.cards[cid] = CardState(cid, name, info.seat, "deck")
            player.deck.append(cid)
        for cid, name in ids[f"{info.seat}-archive"]:
            state.cards[cid] = CardState(cid, name, info.seat, "archive", token=True)
            player.archive.append(cid)
    return state


def evolve(state: GameState, event: ev.Event) -> GameState:
    """Apply one event to ``state`` (in place) and return it."""
    apply = _APPLY.get(type(event))
    if apply is not None:
        apply(state, event)
    return state


def fold(events: Iterable[ev.Event], upto: int | None = None) -> GameState:
    """The state once the events up to seq ``upto`` (default: all) have happened.

    A ``TakenBack`` restores the state after its ``to_seq``; the states of earlier batch
    ends are kept for that (only where a take-back needs them).
    """
    listed = list(events)
    opened = listed[0]
    assert isinstance(opened, ev.MatchOpened), "a match log starts with MatchOpened"
    last = len(listed) - 1 if upto is None else upto
    targets = {e.to_seq for e in listed[:last + 1] if isinstance(e, ev.TakenBack)}
    kept: dict[int, GameState] = {}
    state = initial_state(opened)
    if 0 in targets:
        kept[0] = clone(state)
    for seq in range(1, last + 1):
        event = listed[seq]
        if isinstance(event, ev.TakenBack):
            state = clone(kept[event.to_seq])
        else:
            evolve(state, event)
        if seq in targets:
            kept[seq] = clone(state)
    return state


# -- decisions ------------------------------------------------------------------------------


def _passed(s: GameState, e: ev.Passed) -> None:
    # 404.5: passing uses no resource; it counts for the round end and the pass limits.
    p = s.players[e.seat]
    s.passes_in_row += 1
    p.passes_in_row += 1
    p.passes_total += 1


def _turn_action(s: GameState, e: Any) -> None:
    s.passes_in_row = 0
    s.players[e.seat].passes_in_row = 0
    s.last_turn_taker = e.seat  # 404.5.2: passing is not "taking the last turn"


def _deck_ordered(s: GameState, e: ev.DeckOrdered) -> None:
    # 402 (schema 3): the shuffled deck comes into being; position k is instance <seat><k>.
    player = s.players[e.seat]
    s.deck_lists.pop(e.seat, None)  # the list is shuffled: nothing more to order for it
    for k, name in enumerate(e.cards, start=1):
        cid = f"{e.seat}{k}"
        s.cards[cid] = CardState(cid, name, e.seat, "deck")
        player.deck.append(cid)


def _deck_shuffled(s: GameState, e: ev.DeckShuffled) -> None:
    # A chance event; a shuffle of exactly a seat's deck is its new order (402). A shuffle of
    # other cards (Distribute, R21) orders only those cards, which the next moves deal out.
    deck = s.players[e.seat].deck
    if len(e.order) == len(deck) and set(e.order) == set(deck):
        s.players[e.seat].deck = list(e.order)


# -- the procedure ----------------------------------------------------------------------------


def _first_player_chosen(s: GameState, e: ev.FirstPlayerChosen) -> None:
    s.first = s.round1_first = e.seat  # 401


def _round_started(s: GameState, e: ev.RoundStarted) -> None:
    # 403.1 / 403.2: the round begins; its first player is active during round-start triggers.
    s.round, s.first, s.turn, s.phase = e.round, e.first, e.first, "round_start"
    if s.revision >= 5:
        # 404.5.2: "took the last turn of the round" is about this round; before revision 5
        # a turn taken in an earlier round still counted.
        s.last_turn_taker = None


def _turns_began(s: GameState, e: ev.TurnsBegan) -> None:
    s.phase, s.turn, s.passes_in_row = "turns", e.first, 0
    for p in s.players.values():
        p.passes_in_row = p.passes_total = 0
        p.seized_this_round = False


def _turn_ended(s: GameState, e: ev.TurnEnded) -> None:
    if e.next is None:
        s.phase = "round_end"
    else:
        s.turn = e.next


def _match_ended(s: GameState, e: ev.MatchEnded) -> None:
    s.over, s.winner, s.reason, s.phase = True, e.winner, e.reason, "over"
    s.stack = None  # a match can end in the middle of a resolution (deck-out, 405)


# -- resources and counts ---------------------------------------------------------------------


def _resources_changed(s: GameState, e: ev.ResourcesChanged) -> None:
    p = s.players[e.seat]
    for name in _RESOURCES:
        value = getattr(e, name)
        if value is not None:
            setattr(p, name, number(value))


def _event_counted(s: GameState, e: ev.EventCounted) -> None:
    s.counts[e.key] = e.total


# -- cards ---------------------------------------------------------------------------------


#: the areas a player keeps as a list of card ids (PlayerState's fields of those names)
_ZONE_LISTS = frozenset({"hand", "deck", "abyss", "banishment", "archive"})


def _zone_list(player: PlayerState, zone: str) -> list[str] | None:
    if zone in _ZONE_LISTS:
        found: list[str] = getattr(player, zone)
        return found
    return None


def _card_moved(s: GameState, e: ev.CardMoved) -> None:
    """301.06: a card changes area; leaving The World it loses counters, effects (unless
    Portal keeps them), equipment ties, copied abilities, tapped state and face-down state."""
    c = s.cards[e.card]
    owner = s.players[c.owner]
    if e.from_zone == "world" and e.to_zone == "world":
        c.realm, c.face_down = e.to_realm, e.face_down  # Move (or turned face up where it is)
        return
    source = _zone_list(owner, c.zone)
    if source is not None and e.card in source:
        source.remove(e.card)
    if c.zone == "world":
        _leave_world(c, e.keep_effects)
    c.zone = e.to_zone
    if e.to_zone == "world":
        c.realm, c.controller, c.arrived_round = e.to_realm, e.controller or c.owner, s.round
        c.face_down = e.face_down
        return
    target = _zone_list(owner, e.to_zone)
    if target is not None:
        target.append(e.card)  # a card put into a deck goes to the bottom (Bury, 402.1)


def _card_put_on_top(s: GameState, e: ev.CardPutOnTop) -> None:
    deck = s.players[e.owner].deck
    if e.card in deck:
        deck.remove(e.card)
        deck.insert(0, e.card)  # top card first


def _leave_world(c: CardState, keep_effects: bool) -> None:
    c.counters, c.gained = {}, []
    if not keep_effects:
        c.effects = []
    c.tapped, c.equipped_to, c.realm, c.controller = False, None, None, None
    c.face_down = c.blank = False


def _token_created(s: GameState, e: ev.TokenCreated) -> None:
    """203: a printed token leaves the archive for good (303.3); a stand-in is a new card."""
    if e.card not in s.cards:
        s.cards[e.card] = CardState(e.card, e.name, e.seat, "archive", token=True)
        s.next_token += 1
    if e.definition is not None and e.name not in s.defined:
        s.defined[e.name] = e.definition  # a stand-in: what the effect defined (203)
    s.cards[e.card].blank = e.blank


def _card_stats_entered(s: GameState, e: ev.CardStatsEntered) -> None:
    """R34: the printed stats a seat entered join the match's cards (every copy of the name;
    the first entry of a name is the one in force).  Each seat enters its own copies once."""
    s.entries[f"{e.seat}:{e.name}"] = dict(e.stats)
    if e.name not in s.defined:
        s.defined[e.name] = dict(e.stats)


def _counter_changed(s: GameState, e: ev.CounterChanged) -> None:
    counters = dict(s.cards[e.card].counters)
    counters[e.counter] = e.total
    s.cards[e.card].counters = {k: n for k, n in counters.items() if n > 0}


def _card_tapped(s: GameState, e: ev.CardTapped) -> None:
    s.cards[e.card].tapped = e.tapped


def _control_changed(s: GameState, e: ev.ControlChanged) -> None:
    s.cards[e.card].controller = e.controller


def _effect_applied(s: GameState, e: ev.EffectApplied) -> None:
    c = s.cards[e.card]
    until: Literal["round", "ever"] = "round" if e.duration == "round" else "ever"
    c.effects = [*c.effects, Effect(e.effect, number(e.amount), until, e.source)]


def _effects_ended(s: GameState, e: ev.EffectsEnded) -> None:
    c = s.cards[e.card]
    c.effects = [] if e.until == "all" else [x for x in c.effects if x.until != "round"]


def _equipped(s: GameState, e: ev.Equipped) -> None:
    s.cards[e.card].equipped_to = e.wonder


def _unequipped(s: GameState, e: ev.Unequipped) -> None:
    s.cards[e.card].equipped_to = None


def _abilities_copied(s: GameState, e: ev.AbilitiesCopied) -> None:
    c = s.cards[e.card]
    c.gained = [*c.gained, *e.keywords, *(f"ability:{k}" for k in e.abilities), f"from:{e.source}"]


# -- the stack (recorded from revision 6; applied unrecorded before, Engine.emit_stack) -------


def _stack(s: GameState) -> Stack:
    if s.stack is None:
        s.stack = Stack()
    return s.stack


def _tidy(s: GameState) -> None:
    """An empty stack is no stack (``None``): it encodes as nothing."""
    st = s.stack
    if st is not None and not (st.pending or st.resolving or st.loops or st.targeting
                               or st.fliers):
        s.stack = None


def _triggers_queued(s: GameState, e: ev.TriggersQueued) -> None:
    # 502: the ordered batch waits, innermost (a copy: the state never shares the event's list)
    st = _stack(s)
    st.pending = [*st.pending, list(e.triggers)]


def _trigger_dequeued(s: GameState, e: ev.TriggerDequeued) -> None:
    # The innermost batch's first trigger begins to resolve; an emptied batch leaves the stack,
    # so the batches its resolution queues sit above the batch it came from.
    st = _stack(s)
    if st.pending:
        rest = st.pending[-1][1:]
        st.pending = [*st.pending[:-1], rest] if rest else st.pending[:-1]
    _tidy(s)


def _resolution_started(s: GameState, e: ev.ResolutionStarted) -> None:
    st = _stack(s)
    st.resolving = [*st.resolving, Resolving(e.source, e.ability)]


def _resolution_ended(s: GameState, e: ev.ResolutionEnded) -> None:
    # 503: the innermost resolution ends; when nothing resolves any more, so do the loops.
    st = _stack(s)
    st.resolving = st.resolving[:-1]
    if not st.resolving:
        st.loops = []
    _tidy(s)


def _triggers_deferred(s: GameState, e: ev.TriggersDeferred) -> None:
    # 501 (revision 13): triggers set off in the middle of the innermost resolving effect wait
    # for it (a copy: the state never shares the event's list)
    st = _stack(s)
    if st.resolving:
        st.resolving[-1].waiting = [*st.resolving[-1].waiting, *e.triggers]


def _effect_finished(s: GameState, e: ev.EffectFinished) -> None:
    # 501: the innermost effect did its last operation; its waiting triggers resolve now
    st = _stack(s)
    if st.resolving:
        st.resolving[-1].waiting = []
        st.resolving[-1].finished = True


def _loop_stated(s: GameState, e: ev.LoopStated) -> None:
    st = _stack(s)
    st.loops = [*(x for x in st.loops if (x.source, x.ability) != (e.source, e.ability)),
                Loop(e.source, e.ability, e.times)]


def _loop_repeated(s: GameState, e: ev.LoopRepeated) -> None:
    for loop in _stack(s).loops:
        if (loop.source, loop.ability) == (e.source, e.ability):
            loop.left -= 1


def _targeting_started(s: GameState, e: ev.TargetingStarted) -> None:
    st = _stack(s)
    st.targeting = [*st.targeting, Targeting(e.source, e.controller)]


def _effect_nullified(s: GameState, e: ev.EffectNullified) -> None:
    st = _stack(s)
    if st.targeting:
        st.targeting[-1].nullified = True  # Nullify: the effect choosing targets right now


def _targeting_ended(s: GameState, e: ev.TargetingEnded) -> None:
    st = _stack(s)
    st.targeting = st.targeting[:-1]
    _tidy(s)


def _flight_scheduled(s: GameState, e: ev.FlightScheduled) -> None:
    st = _stack(s)
    st.fliers = [*st.fliers, *e.cards]
    _tidy(s)


def _flights_cleared(s: GameState, e: ev.FlightsCleared) -> None:
    _stack(s).fliers = []
    _tidy(s)


# -- realms ---------------------------------------------------------------------------------


def _stone_seized(s: GameState, e: ev.StoneSeized) -> None:
    """404.3.2 step 5 / Seize Stone: the stone changes side; the seizer goes first next
    round (403.2) and has seized this round (Awaken)."""
    stones = s.realms[e.realm - 1].stones
    stones[stones.index(e.from_side)] = e.seat
    s.last_seizer = e.seat
    s.players[e.seat].seized_this_round = True
    key = f"{e.seat}:seize"
    s.counts[key] = s.counts.get(key, 0) + 1


def _stones_set(s: GameState, e: ev.StonesSet) -> None:
    s.realms[e.realm - 1].stones = list(e.stones)


def _realm_banished(s: GameState, e: ev.RealmBanished) -> None:
    s.realms[e.realm - 1].banished = True


_APPLY: dict[type, Callable[[GameState, Any], None]] = {
    ev.Passed: _passed,
    **{cls: _turn_action for cls in _TURN_ACTIONS},
    ev.DeckShuffled: _deck_shuffled,
    ev.DeckOrdered: _deck_ordered,
    ev.FirstPlayerChosen: _first_player_chosen,
    ev.RoundStarted: _round_started,
    ev.TurnsBegan: _turns_began,
    ev.TurnEnded: _turn_ended,
    ev.MatchEnded: _match_ended,
    ev.ResourcesChanged: _resources_changed,
    ev.EventCounted: _event_counted,
    ev.CardMoved: _card_moved,
    ev.CardPutOnTop: _card_put_on_top,
    ev.TokenCreated: _token_created,
    ev.CardStatsEntered: _card_stats_entered,
    ev.CounterChanged: _counter_changed,
    ev.CardTapped: _card_tapped,
    ev.ControlChanged: _control_changed,
    ev.EffectApplied: _effect_applied,
    ev.EffectsEnded: _effects_ended,
    ev.Equipped: _equipped,
    ev.Unequipped: _unequipped,
    ev.AbilitiesCopied: _abilities_copied,
    ev.StoneSeized: _stone_seized,
    ev.StonesSet: _stones_set,
    ev.RealmBanished: _realm_banished,
    ev.TriggersQueued: _triggers_queued,
    ev.TriggerDequeued: _trigger_dequeued,
    ev.TriggersDeferred: _triggers_deferred,
    ev.EffectFinished: _effect_finished,
    ev.ResolutionStarted: _resolution_started,
    ev.ResolutionEnded: _resolution_ended,
    ev.LoopStated: _loop_stated,
    ev.LoopRepeated: _loop_repeated,
    ev.TargetingStarted: _targeting_started,
    ev.EffectNullified: _effect_nullified,
    ev.TargetingEnded: _targeting_ended,
    ev.FlightScheduled: _flight_scheduled,
    ev.FlightsCleared: _flights_cleared,
}

#: Event types after which cards may be elsewhere or under other control (queries re-index).
STRUCTURAL = frozenset({ev.CardMoved, ev.TokenCreated, ev.ControlChanged, ev.AbilitiesCopied,
                        ev.Equipped, ev.Unequipped, ev.RealmBanished, ev.EffectApplied,
                        ev.EffectsEnded, ev.DeckShuffled, ev.DeckOrdered, ev.CardPutOnTop,
                        ev.CardStatsEntered})

#: The turn actions (404).  :func:`evolve` writes of one only the pass counts and who took
#: the last turn (404.5.2); of those, the static-ability table reads only who took the last
#: turn, through a condition's ``took_last_turn`` (:func:`replay.wotf.statics.reads_last_turn`):
#: without such a condition in The World, a turn action leaves the table as it was.
TURN_ACTIONS = frozenset(_TURN_ACTIONS)

#: Event types after which every fact the view keeps from one event to the next (the static
#: ability table, the links: :meth:`~replay.wotf.queries.View.changed`) is as it was: those
#: :func:`evolve` ignores, and those that write only the phase, the turn, pass counts, a
#: player's resources or the event counts -- facts no static ability's selector, condition or
#: amount (:mod:`replay.wotf.selectors`) and no link reads.  (A turn action is not among them:
#: it writes who took the last turn, which a condition reads, 404.5.2.)
VIEW_UNCHANGED = frozenset({
    *(cls for cls in vars(ev).values()
      if isinstance(cls, type) and issubclass(cls, ev.Event) and cls not in _APPLY),
    ev.TurnEnded, ev.ResourcesChanged, ev.Passed, ev.EventCounted,
})

__all__ = ["SEATS", "STRUCTURAL", "TURN_ACTIONS", "VIEW_UNCHANGED", "evolve", "fold", "initial_state",
           "number"]
