"""Derived facts about a state: current power, keywords in force, links, realm control.

Pure functions of ``(state, cards)``; nothing here changes the state.  Each follows the rule
it cites.
"""

from __future__ import annotations

import math

from replay.wotf import events as wotf_events
from replay.wotf import statics as static_rules
from replay.wotf.abilities import Ability, Amount
from replay.wotf.cards import Card, CardDB, MatchCards, ability_key, find_ability
from replay.wotf.evolve import STRUCTURAL, TURN_ACTIONS
from replay.wotf.selectors import Context, amount
from replay.wotf.state import CardState, GameState, Seat, controller_of

INF = math.inf
#: events after which no card's counters, effects, area, control, face or copied abilities
#: are other than before (View._forget): those that are not structural
#: (:data:`~replay.wotf.evolve.STRUCTURAL`, after which the engine calls ``touch``) but a
#: counter change, and a move between areas outside The World
_KEEPS_CARDS = frozenset(
    cls for cls in vars(wotf_events).values()
    if isinstance(cls, type) and issubclass(cls, wotf_events.Event)
    and cls not in STRUCTURAL and cls is not wotf_events.CounterChanged
) | {wotf_events.CardMoved}
_POWER_OPS = frozenset(static_rules.POWER_OPS)
_CANT_ATTACK = static_rules.cant_ops("attack")  # the table's "can't attack" part
#: the effects on a card that :meth:`View.power` reads (a base, an addition, a multiplier)
_POWER_EFFECTS = frozenset({"base", "power+", "power*"})
#: keys of View._names_where (no ability timing is spelt so)
_STAT_DEFINING, _MAY_LOWER = "fact:stat-defining", "fact:may-lower"
#: a key of View._names_where: the names whose definition reads the stones (Card.reads_stones)
_READS_STONES = "fact:reads-stones"


class View:
    """Read-only questions about one state, with its card database."""

    def __init__(self, state: GameState, db: CardDB, consult_statics: bool = True):
        self.s = state
        self.db = db if isinstance(db, MatchCards) else MatchCards(db, state)
        # the definitions no event can change, by name: looked up without a call (definition)
        self._fixed = self.db.fixed
        self._consult_statics = consult_statics
        self._base: View | None = None  # the same facts with no statics in force
        # the cards in The World (world), until a card changes area: one box, shared with the
        # base view (without_statics), which forgets it together with this view (touch)
        self._world: list[list[CardState] | None] = [None]
        self._card_positions: tuple[int, dict[str, int]] | None = None  # (_positions)
        self._static_sources: list | None = None
        self._static_ops: frozenset[str] | None = None  # the effects of the sources' abilities
        self._last_turn_read: bool | None = None  # whether a source's condition reads it
        # a part of the static table (the effects filling it) -> whether no source has one of
        # them (View.statics_for), kept as the sources are
        self._skips: dict[frozenset[str], bool] = {}
        # whether a static ability on a card in The World may lower power, kept as the sources
        self._lowering_statics: bool | None = None
        self._statics: static_rules.Statics | None = None
        self._printed: dict[str, list] = {}  # card name -> its printed (key, ability, True)
        self._counted: frozenset[str] | None = None
        # card name -> (its definition, its all-zones statics / the events its "whenever"s
        # name), worked out again if the definition changes (a card's stats entered, R34)
        # (keyed by how many definitions the state has added: a name's definition changes
        # only when that count grows, MatchCards.defines)
        self._defining: dict[str, tuple[int, tuple[Ability, ...]]] = {}
        self._whenever: dict[str, tuple[int, frozenset[str]]] = {}
        self._timings: dict[str, tuple[int, frozenset[str]]] = {}  # name -> its abilities' "when"s
        self._lowering: dict[str, tuple[int, bool]] = {}  # name -> whether it alone can lower power
        self._card_links: dict[str, tuple[int, frozenset[str]]] = {}  # name -> its links
        self._links: dict[str, frozenset[str]] = {}  # seat -> its links, until the next event
        # game event -> (definitions known, the cards in The World that may react to it),
        # until a card changes area or gains abilities
        self._reactors: dict[str, tuple[int, list[CardState]]] = {}
        # (definitions known, cards in the state, the events some card of the match has a
        # "whenever" on): no card can be added or defined but by an event that grows either
        self._reacted: tuple[int, int, frozenset[str]] | None = None
        # timing (and the facts of _names_where) -> names, as _reacted
        self._timing_names: dict[str, frozenset[str]] = {}
        self._names: frozenset[str] = frozenset()  # the match's cards' names, as _reacted
        # whether a card in The World has copied abilities (symbiosis), until one changes area
        self._copying: bool | None = None
        # (realm, controller) -> the cards there, until a card changes area or controller
        self._here: dict[tuple[int | None, str | None], list[CardState]] = {}
        # (definitions known, the cards in The World with an effect or a definition that may
        # lower their power), until a card changes area or its effects change (touch)
        self._fragile: tuple[int, set[str]] | None = None
        # card id -> a fact about the card, kept while the generation lasts (every event that
        # can change a fact calls :meth:`changed`): the same facts are asked many times
        # between two events (settling, triggers, legal options)
        self._null_marks: dict[str, bool] = {}
        self._nullified: dict[str, bool] = {}
        self._refs: dict[str, list[tuple[str, Ability, bool]]] = {}
        self._refs_all: dict[str, list[tuple[str, Ability, bool]]] = {}  # nullified ones too
        self._wonders: dict[str, bool] = {}
        self._powers: dict[str, int | float] = {}
        self._grants: dict[str, list[str]] = {}
        #: counts :meth:`changed` calls: facts read at one generation stand while it lasts
        self.generation = 0
        #: counts the events that may have changed whether a card in The World has a +1 and
        #: a −1 counter, or is a Wonder of negative power (101.6): what settling finds
        #: stands while it lasts (:meth:`changed`)
        self.settled_generation = 0
        # whether no power in The World can change but by an event that changes a card
        # (counters, effects, area: not in _KEEPS_CARDS), until a card changes area
        self._stable_power: bool | None = None

    def touch(self, keeps_sources: bool = False, moved: str | None = None) -> None:
        """Forget cached facts: call whenever a card changes area (the engine's ``move``).

        ``keeps_sources``: the change is a move of a card that was no static source
        (:meth:`may_be_static_source`, asked before the move): the static abilities on
        cards in The World, and what is worked out of them alone, stand (the table itself
        does not: its targets and conditions may read where the card is).  ``moved``: the
        change moved this card alone (a ``CardMoved`` of it): the cards in The World are
        those known before, with it added or taken out (:meth:`_world_after`)."""
        self._world[0] = self._world_after(moved) if moved is not None else None
        self._touch(keeps_sources)

    def _world_after(self, cid: str) -> list[CardState] | None:
        """The cards in The World once ``cid`` alone changed area, from those known before it
        (``None`` when none are: worked out when asked): ``cid`` in or out as its area now
        says, in the state's card order -- not a scan of every card of the match (a move in
        or out of The World is a few hundred a match; The World holds a few of ~130 cards)."""
        before = self._world[0]
        if before is None:
            return None
        c = self.s.cards[cid]
        was_in = c in before  # (card states are equal only to themselves: ids differ)
        if was_in == (c.zone == "world"):
            return before  # (the same cards: moved within The World, or outside it)
        if was_in:
            return [x for x in before if x is not c]
        position = self._positions()
        at = position[cid]
        found = list(before)
        index = 0
        while index < len(found) and position[found[index].id] < at:
            index += 1
        found.insert(index, c)
        return found

    def _positions(self) -> dict[str, int]:
        """Each card's place in the state's card table (the order of :meth:`world`): kept
        while the table holds as many cards (a card is only ever added to it, at its end)."""
        kept = self._card_positions
        if kept is None or kept[0] != len(self.s.cards):
            kept = self._card_positions = (len(self.s.cards),
                                           {cid: n for n, cid in enumerate(self.s.cards)})
        return kept[1]

    def _touch(self, keeps_sources: bool) -> None:
        """:meth:`touch` but for the cards in The World (this view's and its base's box)."""
        self.generation += 1
        if not keeps_sources:
            self._static_sources = None
            self._static_ops = None
            self._last_turn_read = None
            self._skips.clear()
            self._lowering_statics = None
        self._statics = None
        self._links.clear()
        self._reactors.clear()
        self._copying = None
        self._here.clear()
        self._fragile = None
        self._stable_power = None
        self.settled_generation += 1
        self._forget()
        if self._base is not None:
            self._base._touch(keeps_sources)

    def changed(self, kind: type | None = None) -> None:
        """Forget the static-ability table and the links: call after any change of the state
        (every event).  ``kind``: the type of the event, when it is one that changes no
        card's area, control, face, copied abilities or effects (those :meth:`touch`):
        then the facts it can't have changed stand (:meth:`_forget`)."""
        self.generation += 1
        if kind is wotf_events.StoneSeized:
            # a seized stone changes the stones, who seized this round and last, and the event
            # counts; of those the table reads only the first two, through a condition or an
            # amount of a card's ability (Hoard, Awaken, per stone): none, the table stands
            if self._names_where(_READS_STONES):
                self._statics = None
        elif kind not in TURN_ACTIONS or self._reads_last_turn():
            self._statics = None  # a turn action changes none of it but who took the last turn
        if kind is None or kind not in _KEEPS_CARDS or self._stable_power is not True:
            self.settled_generation += 1
        self._forget(kind)
        base = self._base
        if base is not None:
            if kind is not None and kind in _KEEPS_CARDS:
                base._powers.clear()  # all the base's _forget does then: it consults no statics
            else:
                base._forget(kind)

    def effects_changed(self) -> None:
        """Forget what a change of cards' effects (or equipment) may change: all that
        :meth:`changed` forgets and the cards whose power may be negative; the cards in The
        World, their realms, the static sources and who reacts to what stand."""
        self._fragile = None
        self.changed()

    def has_stable_power(self) -> bool:
        """Whether no power of a card in The World can change but by an event that changes
        a card (its counters, effects, area, control or face): no static ability in The
        World changes power and no card there has a stat-defining ability (whose amount may
        read anything, rule 1).  Then a Wonder's power is its base (printed, or a growth
        land's count of lands), its counters and its effects (101.6).  Kept until a card
        changes area."""
        if self._stable_power is None:
            defining = self._names_where(_STAT_DEFINING)
            self._stable_power = not self.has_power_statics() and not (
                defining and any(c.name in defining for c in self.world()))
        return self._stable_power

    def _forget(self, kind: type | None = None) -> None:
        """Forget the facts about single cards kept for this generation, and the links.

        After an event of type ``kind`` that changes no card's area, control, face, copied
        abilities or effects, and no counter (:data:`_KEEPS_CARDS`), a card's null marks,
        whether it is a Wonder and its abilities in force whether nullified or not stand:
        nothing they read changed.  So do whether it is nullified, its abilities in force
        and the links, while no static ability in The World can nullify or protect from it
        (else its condition may read anything), and its granted keywords while none grants
        any.  Its power is always worked out again."""
        self._powers.clear()
        if kind is None or kind not in _KEEPS_CARDS:
            self._null_marks.clear()
            self._wonders.clear()
            self._refs_all.clear()
        elif not self._consult_statics or self._skips.get(static_rules.NULLIFY_OPS) is True:
            # known, without working anything out, that no static ability in The World
            # nullifies (the skip kept by statics_for), nor grants (below)
            if not self._consult_statics or self._skips.get(static_rules.GRANT_OPS) is True:
                return
            self._grants.clear()
            return
        self._nullified.clear()
        self._refs.clear()
        self._links.clear()
        self._grants.clear()

    def without_statics(self) -> View:
        """The facts of this state before any static ability applies: what the static
        abilities themselves are worked out with (:func:`replay.wotf.statics.compute`)."""
        if self._base is None:
            base = self._base = View(self.s, self.db, consult_statics=False)
            # The facts no static ability changes are the same in both views, and both forget
            # them together (touch, _forget: the base is told of every change with the same
            # event type): the base reads them from this view's keeping, not a second copy.
            base._world = self._world
            base._here, base._wonders, base._null_marks = self._here, self._wonders, self._null_marks
            base._refs_all, base._printed = self._refs_all, self._printed
        return self._base

    def statics(self) -> static_rules.Statics:
        """The static abilities in force (empty, and free, when no card has one)."""
        if not self._consult_statics:
            return static_rules.EMPTY
        if self._statics is None:
            base = self.without_statics()
            found = self._sources()
            if not found:
                return static_rules.EMPTY
            self._statics = static_rules.compute(base, found)
        return self._statics

    def has_power_statics(self) -> bool:
        """Whether some static ability on a card in The World has an effect that changes
        power ("gets +N", a multiplier, a base power: the only effects that fill the static
        table's power entries, :func:`replay.wotf.statics.compute`).  Kept until a card
        changes area, as the sources are."""
        return not self._skips_part(_POWER_OPS)

    def has_lowering_statics(self) -> bool:
        """Whether some static ability on a card in The World, in force or not, has a power
        effect that may lower a card's power (101.6): "gets" a negative or derived-and-maybe-
        negative amount, a base power or a multiplier that may be negative.  "Gets +N" of
        N ≥ 0 (or a count of something, which is never negative), a base power and a
        multiplier of that kind never make a power negative that is not already (its base,
        its −1 counters, its effects).  Kept until a card changes area, as the sources are."""
        if self._lowering_statics is None:
            self._lowering_statics = self.has_power_statics() and any(
                op.do in _POWER_OPS and not _never_negative(getattr(op, "amount", 1))
                for _, ability in self._sources() for op in ability.effects)
        return self._lowering_statics

    def _sources(self) -> list:
        """The static abilities on cards in The World (:func:`replay.wotf.statics.sources`),
        kept until a card changes area."""
        if self._static_sources is None:
            # only the cards of a name with a printed static ability, or with copied ones
            statics = self._names_with_timing("static")
            cards = [c for c in self.world() if _may_be_source(c, statics)] \
                if statics or self._has_copies() else []
            self._static_sources = static_rules.sources(self.without_statics(), cards)
        return self._static_sources

    def may_be_static_source(self, cid: str) -> bool:
        """Whether the card is one :meth:`_sources` looks at when in The World: of a name with
        a printed static ability, or with copied abilities.  Not so before a move, it is not
        so after (a move copies no abilities: leaving The World drops those copied)."""
        c = self.s.cards.get(cid)
        return c is None or _may_be_source(c, self._names_with_timing("static"))

    def _source_ops(self) -> frozenset[str]:
        """The effects (``Op.do``, and ``cant:<restriction>`` for each "can't") of the static
        abilities on cards in The World, whether in force or not: kept until a card changes
        area, as the sources are."""
        if not self._consult_statics:
            return frozenset()
        if self._static_ops is None:
            self._static_ops = frozenset(static_rules.op_keys(
                op for _, ability in self._sources() for op in ability.effects))
        return self._static_ops

    def _reads_last_turn(self) -> bool:
        """Whether a static ability on a card in The World, in force or not, has a condition
        on who took the last turn (:func:`replay.wotf.statics.reads_last_turn`): else a turn
        action keeps the static table (:meth:`changed`).  Kept until a card changes area, as
        the sources are."""
        if self._last_turn_read is None:
            self._last_turn_read = static_rules.reads_last_turn(self._sources())
        return self._last_turn_read

    def statics_for(self, ops: frozenset[str]) -> static_rules.Statics:
        """The static table, for a question about the part of it these effects fill
        (:data:`replay.wotf.statics.GRANT_OPS` …): the empty table, and free, while no static
        ability on a card in The World has one of them (no other effect fills that part)."""
        skip = self._skips.get(ops)  # _skips_part, without its call: asked at every look
        if skip is None:
            skip = self._skips_part(ops)
        if skip:
            return static_rules.EMPTY
        return self.statics()

    def _skips_part(self, ops: frozenset[str]) -> bool:
        """Whether no static ability on a card in The World has one of these effects (kept
        until a card changes area, as the sources are)."""
        skip = self._skips.get(ops)
        if skip is None:
            skip = self._skips[ops] = self._source_ops().isdisjoint(ops)
        return skip

    def counted_events(self) -> frozenset[str]:
        """The game events some card of this match counts ("the third time …", rule 511), so
        only those are counted and the state stays small.  A fact of the match's cards: the
        cards a match can use are all in its state from setup on (a stand-in token made
        later has no abilities), so it is worked out once."""
        if self._counted is None:
            self._counted = frozenset().union(*(  # (each definition's, worked out once)
                self.db[n].counted_events for n in {c.name for c in self.s.cards.values()}))
        return self._counted

    # -- cards ---------------------------------------------------------------------------

    def card(self, cid: str) -> CardState:
        return self.s.cards[cid]

    def definition(self, cid: str) -> Card:
        name = self.s.cards[cid].name
        return self._fixed.get(name) or self.db[name]

    def world(self) -> list[CardState]:
        """Cards in The World, in the order of the state's card table."""
        found = self._world[0]
        if found is None:
            found = self._world[0] = [c for c in self.s.cards.values() if c.zone == "world"]
        return found

    def in_realm(self, realm: int | None, controller: str | None = None) -> list[CardState]:
        """Cards in The World in a realm (of one controller), in The World's order: kept
        until a card changes area, realm or controller (:meth:`touch`); callers must not
        change the list."""
        key = (realm, controller)
        found = self._here.get(key)
        if found is None:
            found = self._here[key] = [c for c in self.world() if c.realm == realm and (
                controller is None or c.controller == controller)]
        return found

    def is_active_realm(self, realm: int) -> bool:
        """Active Realm: opened (1..round) and, under v1.3.2, not banished (301.2)."""
        if not 1 <= realm <= self.s.round:
            return False
        return not (self.s.ruleset == "1.3.2" and self.s.realms[realm - 1].banished)

    def active_realms(self) -> list[int]:
        return [r for r in range(1, self.s.round + 1) if self.is_active_realm(r)]

    def enters_in_banishment(self, realm: int) -> bool:
        """v1.2 301.2, from revision 9: "If a card is portaled to or attempts to enter a
        banished realm, it enters that realm in banishment" -- a banished realm still active
        (v1.2), whatever puts the card there (a move, flying, call, a token, face down)."""
        return self.s.revision >= 9 and self.s.realms[realm - 1].banished \
            and self.is_active_realm(realm)

    # -- abilities -----------------------------------------------------------------------

    def has_null_mark(self, cid: str) -> bool:
        """A null counter or a nullify effect on the card (before "can't be nullified")."""
        found = self._null_marks.get(cid)
        if found is None:
            c = self.s.cards[cid]
            found = self._null_marks[cid] = c.counters.get("null", 0) > 0 or \
                (bool(c.effects) and any(e.kind == "nullify" for e in c.effects))
        return found

    def is_nullified(self, cid: str) -> bool:
        """Nullify: a card with a null counter, a nullify effect or under a continuous
        "are nullified" is nullified (its rules text is blank), unless it can't be."""
        found = self._nullified.get(cid)
        if found is None:
            table = self.statics_for(static_rules.NULLIFY_OPS)
            if "be_nullified" in table.cant.get(cid, ()):
                found = False
            else:
                found = self.has_null_mark(cid) or cid in table.nullified
            self._nullified[cid] = found
        return found

    def abilities(self, cid: str, include_nullified: bool = False) -> list[Ability]:
        return [a for _, a, _ in self.ability_refs(cid, include_nullified)]

    def ability_refs(self, cid: str, include_nullified: bool = False) -> list[tuple[str, Ability, bool]]:
        """(key, ability, printed) of the scripted abilities in force on a card: its printed
        ones and those copied by symbiosis (keys: :func:`~replay.wotf.cards.ability_key`); none while
        nullified.  Kept for the generation: callers must not change the list."""
        memo = self._refs_all if include_nullified else self._refs
        found = memo.get(cid)
        if found is None:
            found = memo[cid] = self._ability_refs(cid, include_nullified)
        return found

    def _ability_refs(self, cid: str, include_nullified: bool) -> list[tuple[str, Ability, bool]]:
        c = self.s.cards[cid]
        printed = self._printed.get(c.name)
        if printed is None:
            card = self.db[c.name]
            revision = self.s.revision
            printed = self._printed[c.name] = [(ability_key(card, i, revision), a, True)
                                               for i, a in enumerate(card.abilities)]
        if not printed and not c.gained:
            return []
        if c.face_down or c.blank or (not include_nullified and self.is_nullified(cid)):
            return []
        if not c.gained:
            return printed  # kept, like every answer: callers never change it
        refs = list(printed)
        for entry in c.gained:
            if entry.startswith("ability:"):
                refs.append((entry[8:], find_ability(self.db, entry[8:]), False))
        return refs

    def may_react_to(self, cid: str, event: str) -> bool:
        """Whether a card can have a "whenever" ability on ``event`` in force: one printed on
        it, or any copied by symbiosis (then :meth:`ability_refs` decides).  False only when
        :meth:`ability_refs` could list no such ability, so a caller may skip the card."""
        c = self.s.cards[cid]
        return event in self._whenever_of(c.name) or _copies_abilities(c)

    def _whenever_of(self, name: str) -> frozenset[str]:
        """The game events a definition's "whenever" abilities name (``Card.whenever_events``,
        worked out once per definition), by name for this match."""
        return self._definition_fact(self._whenever, name, "whenever_events")

    def may_have_timing(self, cid: str, when: str) -> bool:
        """Whether a card can have an ability with this timing (``Ability.when``) in force:
        one printed on it, or any copied by symbiosis.  False only when :meth:`ability_refs`
        could list no such ability, so a caller may skip the card."""
        c = self.s.cards[cid]
        if c.gained and any(entry.startswith("ability:") for entry in c.gained):
            return True
        fixed = self._fixed.get(c.name)
        if fixed is not None:  # a definition no event changes: its own (cached) fact
            return when in fixed.timings
        epoch = len(self.db.defines.defined)
        cached = self._timings.get(c.name)
        if cached is None or cached[0] != epoch:
            return when in self._timings_of(c.name)
        return when in cached[1]

    def _timings_of(self, name: str) -> frozenset[str]:
        """The timings (``Ability.when``) of a definition's printed abilities (``Card.timings``,
        worked out once per definition), by name for this match."""
        return self._definition_fact(self._timings, name, "timings")

    def _definition_fact(self, kept: dict[str, tuple[int, frozenset[str]]], name: str,
                         fact: str) -> frozenset[str]:
        """A fact of the definition a name has in this match (a :class:`Card` attribute),
        kept in ``kept`` until the match defines more cards (a stand-in token, an entered
        definition: 203, R34) -- the name's definition may be one of them.  A definition no
        event changes (:attr:`MatchCards.fixed`) keeps its own fact (a cached property)."""
        fixed = self._fixed.get(name)
        if fixed is not None:
            found: frozenset[str] = getattr(fixed, fact)
            return found
        epoch = len(self.db.defines.defined)
        cached = kept.get(name)
        if cached is None or cached[0] != epoch:
            cached = kept[name] = (epoch, getattr(self.db[name], fact))
        return cached[1]

    def with_timing(self, when: str) -> list[CardState]:
        """The cards in The World that :meth:`may_have_timing` ``when``, in The World's order
        (a new list: callers may change the state while they go through it)."""
        names = self._names_with_timing(when)
        if self._has_copies():
            return [c for c in self.world() if c.name in names or (c.gained and _copies_abilities(c))]
        return [c for c in self.world() if c.name in names] if names else []

    def reactors(self, event: str) -> list[CardState]:
        """The cards in The World that :meth:`may_react_to` ``event``, in The World's order.

        Kept until a card changes area or copies abilities (:meth:`touch`: what
        :meth:`may_react_to` reads is the card's name, what it gained and its definition),
        and worked out again when the state defines a card it didn't before (a stand-in
        token, an entry of printed stats, R34)."""
        known = len(self.db.defines.defined)
        found = self._reactors.get(event)
        if found is None or found[0] != known:
            if event not in self._events_reacted_to() and not self._has_copies():
                found = self._reactors[event] = (known, [])  # no card of the match reacts
            else:
                names = self._names_with_timing(f"whenever:{event}")
                found = self._reactors[event] = (known, [
                    c for c in self.world() if c.name in names or (c.gained and _copies_abilities(c))])
        return found[1]

    def _events_reacted_to(self) -> frozenset[str]:
        """The game events some card of the match has a printed "whenever" ability on (worked
        out again when the state holds or defines more cards)."""
        reacted, defined, cards = self._reacted, len(self.db.defines.defined), len(self.s.cards)
        if reacted is None or reacted[0] != defined or reacted[1] != cards:  # (no key built)
            names = self._names = frozenset(c.name for c in self.s.cards.values())
            base = self.db.base
            shared = _NAME_FACTS.get((id(base), names)) if not defined else None
            if shared is None or shared[0] is not base:
                shared = (base, frozenset().union(*(self._whenever_of(n) for n in names)), {})
                if not defined:  # facts of the recorded definitions alone: any match's
                    _remember_name_facts((id(base), names), shared)
            reacted = self._reacted = (defined, cards, shared[1])
            self._timing_names = shared[2]
        return reacted[2]

    def _names_with_timing(self, when: str) -> frozenset[str]:
        """The names of the match's cards with a printed ability of this timing, or for
        ``whenever:<event>`` a "whenever" on that game event (worked out again when the state
        holds or defines more cards, as :meth:`_events_reacted_to`)."""
        self._events_reacted_to()  # drops these names when the match's cards change
        found = self._timing_names.get(when)
        if found is None:
            names = self._names
            if when.startswith("whenever:"):  # those with a "whenever" on this game event
                found = frozenset(n for n in names if when[9:] in self._whenever_of(n))
            else:
                found = frozenset(n for n in names if when in self._timings_of(n))
            self._timing_names[when] = found
        return found

    def _names_where(self, fact: str) -> frozenset[str]:
        """The names of the match's cards of which a fact of the definition holds
        (:data:`_STAT_DEFINING`: :meth:`_stat_defining` lists an ability; :data:`_MAY_LOWER`:
        :meth:`_may_lower`), worked out again as :meth:`_names_with_timing` is: a scan of
        The World then asks no question of each card."""
        self._events_reacted_to()  # drops these names when the match's cards change
        found = self._timing_names.get(fact)
        if found is None:
            names = self._names
            holds = self._may_lower if fact == _MAY_LOWER else \
                self._reads_stones if fact == _READS_STONES else self._stat_defining
            found = self._timing_names[fact] = frozenset(n for n in names if holds(n))
        return found

    def _has_copies(self) -> bool:
        """Whether a card in The World has abilities copied by symbiosis (kept until a card
        changes area or copies abilities: :meth:`touch`)."""
        if self._copying is None:
            self._copying = any(_copies_abilities(c) for c in self.world() if c.gained)
        return self._copying

    def has_blank_text(self, cid: str) -> bool:
        """Its own rules text is blank: face down, nullified, or a copy of a nullified card."""
        c = self.s.cards[cid]
        return c.face_down or c.blank or self.is_nullified(cid)

    def _granted(self, cid: str) -> list[str]:
        """Keywords granted by statics and by effects ("gets flying"), with repeats (kept for
        the generation: callers must not change the list)."""
        found = self._grants.get(cid)
        if found is None:
            c = self.s.cards[cid]
            if c.face_down:
                found = []
            else:
                found = [*self.statics_for(static_rules.GRANT_OPS).grants.get(cid, ()),
                         *(e.kind[6:] for e in c.effects if e.kind.startswith("grant:"))]
            self._grants[cid] = found
        return found

    def keywords(self, cid: str) -> set[str]:
        """Keywords in force: printed, copied by symbiosis and granted ("get"), none of the
        card's own while its text is blank (granted ones stay: Nullify)."""
        c = self.s.cards[cid]
        granted = set(self._granted(cid))
        if self.has_blank_text(cid):
            return granted
        own = {k for k in c.gained if ":" not in k or k.startswith(("attuned:", "link:"))}
        return set(self.db[c.name].keywords) | own | granted

    def may_have_keyword(self, cid: str, keywords: tuple[str, ...]) -> bool:
        """Whether a card may have one of these keywords in force: printed on it, or it has
        gained or been granted any keyword.  False only when :meth:`keyword_count` is 0 for
        each, so a caller may skip the card."""
        c = self.s.cards[cid]
        if c.gained:
            return True
        printed = (self._fixed.get(c.name) or self.db[c.name]).keywords
        for k in keywords:  # (a loop: no generator made for the commonest question)
            if k in printed:
                return True
        if c.face_down or (not c.effects and self._skips_part(static_rules.GRANT_OPS)):
            return False  # nothing granted: no "gets" effect, no static ability grants one
        return bool(self._granted(cid))

    def keyword_count(self, cid: str, keyword: str) -> int:
        """How many instances of a keyword a card has (granted twice = twice, Symbiosis ex. 1)."""
        c = self.s.cards[cid]
        granted = self._granted(cid).count(keyword)
        own = int(keyword in (self._fixed.get(c.name) or self.db[c.name]).keywords) + \
            c.gained.count(keyword)
        if own and self.has_blank_text(cid):
            return granted  # none of its own while its text is blank
        return own + granted

    def has(self, cid: str, keyword: str) -> bool:
        """Whether a keyword is in force on a card (:meth:`keywords`): for a plain keyword,
        whether it has an instance of it (:meth:`keyword_count`, no sets built)."""
        if ":" in keyword:
            return keyword in self.keywords(cid)
        return self.keyword_count(cid, keyword) > 0

    def no_attack_here(self, realm: int, seat: str) -> bool:
        """404.3.1: attacks involve all of a seat's Wonders in a realm or none, so a "can't
        attack" on any of them means no attack can take place there.  (:meth:`cant` of each,
        with the table's "can't attack" part looked up once.)"""
        here = self.in_realm(realm, seat)
        if not here:
            return False
        table = self.statics_for(_CANT_ATTACK).cant
        for c in here:
            if c.effects and any(e.kind == "cant:attack" for e in c.effects):
                return True
            if "attack" in table.get(c.id, ()):
                return True
        return False

    def cant(self, cid: str, restriction: str, by: str | None = None) -> bool:
        """A "can't" restriction on a card (it wins over any "can", rule 506).

        ``be_tapped`` also asks ``be_tapped_by_opponents`` ("Opponents can't tap", Whisperleaf
        Cloak): from revision 7 it binds only a tap by ``by``, an opponent of the card's
        controller (R22) -- the controller's own effects and costs still tap it; revisions 1-6
        let it bind every tap, the controller's own included."""
        if self._cant(cid, restriction):
            return True
        if restriction == "be_tapped" and self._cant(cid, "be_tapped_by_opponents"):
            return self.s.revision < 7 or (by is not None and by != self.s.cards[cid].controller)
        return False

    def _cant(self, cid: str, restriction: str) -> bool:
        effects = self.s.cards[cid].effects
        if effects:  # (most cards have none: no text made for them)
            kind = "cant:" + restriction
            if any(e.kind == kind for e in effects):
                return True
        return restriction in self.statics_for(static_rules.cant_ops(restriction)).cant.get(cid, ())

    def classes(self, cid: str) -> tuple[str, ...]:
        return self.db[self.s.cards[cid].name].classes

    def is_wonder(self, cid: str) -> bool:
        """A Wonder, or a land with a growth counter (Growth: it is also a legendary Wonder)."""
        found = self._wonders.get(cid)
        if found is None:
            c = self.s.cards[cid]
            if c.face_down:
                found = False  # a face-down card has no card type (Face Down)
            else:
                d = self._fixed.get(c.name) or self.db[c.name]
                found = d.type == "wonder" or (d.type == "land" and c.counters.get("growth", 0) > 0)
            self._wonders[cid] = found
        return found

    def is_legendary_wonder(self, cid: str) -> bool:
        c = self.s.cards[cid]
        if self.db[c.name].type == "land":
            return c.counters.get("growth", 0) > 0
        return self.db[c.name].type == "wonder" and self.db[c.name].tier == "legendary"

    def links(self, seat: str) -> frozenset[str]:
        """Link: orbitals linked by non-nullified cards the seat controls in The World (kept
        until the next event: :meth:`changed` forgets them)."""
        found = self._links.get(seat)
        if found is None:
            linked: set[str] = set()
            for c in self.world():
                if c.controller == seat:
                    # whether a card is nullified is asked only of one that links what is
                    # not linked yet (most cards link nothing, rule Link)
                    own = self._links_of(c.name)
                    if own and not own <= linked and not self.is_nullified(c.id):
                        linked |= own
            found = self._links[seat] = frozenset(linked)
        return found

    def _links_of(self, name: str) -> frozenset[str]:
        """The orbitals a card's definition links (a fact of the definition, worked out once
        per definition; a definition no event changes keeps its own)."""
        fixed = self._fixed.get(name)
        if fixed is not None:
            return fixed.links
        epoch = len(self.db.defines.defined)
        cached = self._card_links.get(name)
        if cached is None or cached[0] != epoch:
            cached = self._card_links[name] = (epoch, self.db[name].links)
        return cached[1]

    def lands_controlled(self, seat: str) -> int:
        return sum(1 for c in self.world()
                   if c.controller == seat and self.db[c.name].type == "land")

    def controls_matching(self, seat: str, requirement: str) -> bool:
        """Attuned requirement: a land of an orbital, or a card of a type or class."""
        for c in self.world():
            if c.controller != seat:
                continue
            d = self.db[c.name]
            if requirement in ("Petraia", "Thalwind", "Solfera", "Umbrathene", "Heliosynth",
                               "Boundless"):
                if d.type == "land" and d.orbital == requirement:
                    return True
            elif requirement.lower() == d.type or requirement in d.classes:
                return True
        return False

    # -- power ---------------------------------------------------------------------------

    def base_power(self, cid: str) -> int | float:
        """Base power: the printed power (``*``/undefined is 0); growth lands count lands."""
        c = self.s.cards[cid]
        d = self._fixed.get(c.name) or self.db[c.name]
        base: int | float
        if d.type == "land" and c.counters.get("growth", 0) > 0:
            base = self.lands_controlled(controller_of(c)) if c.zone == "world" else 0
        else:
            base = d.base_power
        defining = self.stat_defining_base(cid)
        if defining is not None:
            base = defining
        if c.zone == "world":
            table = self.statics_for(_POWER_OPS)
            if cid in table.base:
                base = table.base[cid]
        for e in c.effects:
            if e.kind == "base":
                base = e.amount  # stun: base power 0 this round; the latest overwrites (508)
        return base

    def stat_defining_base(self, cid: str) -> int | float | None:
        """A stat-defining ability ("this gets power equal to …") works in every zone (rule 1)."""
        c = self.s.cards[cid]
        for ability in self._stat_defining(c.name):
            nulled = self.is_nullified(cid) if self.s.revision >= 7 else self.has_null_mark(cid)
            if ability.when == "static" and ability.all_zones and not nulled and not c.blank:
                for op in ability.effects:
                    if op.do == "base_power" and op.target is None:
                        return amount(self, op.amount, Context(cid, c.controller or c.owner, c.realm))
        return None

    def _stat_defining(self, name: str) -> tuple[Ability, ...]:
        """A card's static abilities that work in every zone (a fact of its definition, so
        worked out once per definition: most cards have none, and then no other check is
        made; a definition no event changes keeps its own)."""
        fixed = self._fixed.get(name)
        if fixed is not None:
            return fixed.stat_defining
        epoch = len(self.db.defines.defined)
        cached = self._defining.get(name)
        if cached is None or cached[0] != epoch:
            cached = self._defining[name] = (epoch, self.db[name].stat_defining)
        return cached[1]

    def _may_lower(self, name: str) -> bool:
        """Whether a card's definition alone may make its power negative: a printed base
        below 0, or a stat-defining ability (``Card.may_lower_power``, worked out once per
        definition; a definition no event changes keeps its own), by name for this match."""
        fixed = self._fixed.get(name)
        if fixed is not None:
            return fixed.may_lower_power
        epoch = len(self.db.defines.defined)
        cached = self._lowering.get(name)
        if cached is None or cached[0] != epoch:
            cached = self._lowering[name] = (epoch, self.db[name].may_lower_power)
        return cached[1]

    def _reads_stones(self, name: str) -> bool:
        """Whether a card's definition reads the stones (``Card.reads_stones``, worked out
        once per definition), by name for this match."""
        fixed = self._fixed.get(name)
        return (fixed if fixed is not None else self.db[name]).reads_stones

    def can_have_negative_power(self, cid: str) -> bool:
        """Whether :meth:`power` may be below 0.  False only when nothing of rule 101.6's
        order of operations can lower it: a printed base of 0 or more (a growth land's count
        of lands is never negative), no stat-defining ability, no −1 counter, no effect and
        no static modifier on the card that may lower it (:meth:`has_lowering_statics`) --
        then its power is its base plus its +1 counters and what statics add, never below 0.
        Settling (101.6: a Wonder with negative power dies) asks :meth:`power` only of the
        others."""
        c = self.s.cards[cid]
        if (c.effects and _effects_may_lower(c)) or c.counters.get("-1", 0) or \
                self._may_lower(c.name):
            return True
        if not self.has_lowering_statics():
            return False  # no static ability in force can lower a card's power
        table = self.statics()
        return cid in table.power_add or cid in table.power_mul or cid in table.base

    def may_be_negative(self) -> list[CardState]:
        """The cards in The World whose power may be below 0 (:meth:`can_have_negative_power`),
        in The World's order: what settling asks the power of (101.6).  While no static
        ability can lower power, those are the cards with an effect or a definition that
        may lower it (kept until a card changes area or its effects change: :meth:`touch`)
        and those with a −1 counter."""
        if self.has_lowering_statics():
            return [c for c in self.world() if self.can_have_negative_power(c.id)]
        epoch = len(self.db.defines.defined)
        if self._fragile is None or self._fragile[0] != epoch:
            lowering = self._names_where(_MAY_LOWER)
            self._fragile = (epoch, {c.id for c in self.world() if c.name in lowering
                                     or (c.effects and _effects_may_lower(c))})
        fragile = self._fragile[1]
        return [c for c in self.world() if c.id in fragile or (c.counters and c.counters.get("-1", 0))]

    def power(self, cid: str) -> int | float:
        """Current power, in the order of operations of rule 101.6 (v1.3.2).

        Base → additive modifiers (+1/−1 counters, "gets +N") → multiplicative modifiers.
        An indeterminate value (∞ − ∞) is 0 (rule 102).
        """
        found = self._powers.get(cid)
        if found is None:
            found = self._powers[cid] = self._power(cid)
        return found

    def _power(self, cid: str) -> int | float:
        c = self.s.cards[cid]
        value = self.base_power(cid)
        value = _add(value, c.counters.get("+1", 0) - c.counters.get("-1", 0))
        for e in c.effects:
            if e.kind == "power+":
                value = _add(value, e.amount)
        table = self.statics_for(_POWER_OPS)
        if cid in table.power_add:
            value = _add(value, table.power_add[cid])
        for e in c.effects:
            if e.kind == "power*":
                value = _mul(value, e.amount)
        if cid in table.power_mul:
            value = _mul(value, table.power_mul[cid])
        return value

    def side_power(self, realm: int, seat: str) -> tuple[int | float, int]:
        """(total power, number of Wonders) of a seat's Wonders in a realm (404.3.2 step 4)."""
        total: int | float = 0
        count = 0
        for c in self.in_realm(realm, seat):
            if self.is_wonder(c.id):
                total = _add(total, self.power(c.id))
                count += 1
        return total, count

    # -- stones --------------------------------------------------------------------------

    def stones_of(self, seat: str) -> int:
        """Stones a seat controls, plus cards that count as stones (Stones)."""
        extra = self.statics_for(static_rules.STONE_OPS).extra_stones.get(seat, 0)
        count = 0
        for r in self.s.realms:  # (a loop: no generator made at every look)
            if not r.banished:
                count += r.stones.count(seat)
        return count + extra

    def realm_stones(self, realm: int) -> list[str]:
        """The stones in play in a realm.  From revision 9 a banished realm has none: "When a
        realm is banished, all stones and cards there are also banished" (v1.3.2 section 3,
        v1.2 301.2), so no one controls, seizes or calls by them; before, they stayed."""
        here = self.s.realms[realm - 1]
        if here.banished and self.s.revision >= 9:
            return []
        return here.stones

    def realm_controller(self, realm: int) -> Seat | None:
        """505.3: the player controlling the most stones in a realm, if there is one (405's
        tie-break; from revision 9 a banished realm has no stones, so no controller)."""
        stones = self.realm_stones(realm)
        a, b = stones.count("A"), stones.count("B")
        if a > b:
            return "A"
        if b > a:
            return "B"
        return None


def _never_negative(value: object) -> bool:
    """Whether an effect's amount (:data:`~replay.wotf.abilities.Number`) is never below 0:
    a number of 0 or more, ∞, or N × a count plus M with N, M ≥ 0 (a count of rounds, stones,
    lands, Wonders, cards or counters is never negative; the most power of a Wonder and a
    sacrificed Wonder's power may be)."""
    if value == "inf":
        return True
    if isinstance(value, Amount):
        return value.times >= 0 and value.plus >= 0 and \
            value.per not in ("max_power", "sacrificed_power")
    return isinstance(value, (int, float)) and value >= 0


#: (id of a recorded card database, a match's card names) -> (that database, the events their
#: "whenever" abilities name, and the names of each timing and fact, View._names_with_timing /
#: View._names_where, filled as they are asked).  While a match defines no card of its own (no
#: stand-in token, no entered stats: 203, R34) these are facts of the recorded definitions
#: alone, the same for every match of the same cards and names: the matches of a corpus or a
#: tournament share them instead of working them out each.  Bounded: the oldest goes first.
_NAME_FACTS: dict[tuple[int, frozenset[str]],
                  tuple[CardDB, frozenset[str], dict[str, frozenset[str]]]] = {}
_NAME_FACTS_MAX = 256


def _remember_name_facts(key: tuple[int, frozenset[str]],
                         facts: tuple[CardDB, frozenset[str], dict[str, frozenset[str]]]) -> None:
    while len(_NAME_FACTS) >= _NAME_FACTS_MAX:
        try:
            _NAME_FACTS.pop(next(iter(_NAME_FACTS)), None)
        except (StopIteration, RuntimeError):  # another thread changed it meanwhile
            break
    _NAME_FACTS[key] = facts


def _effects_may_lower(c: CardState) -> bool:
    """Whether an effect on the card may lower its power (101.6): a base power, an addition
    or a multiplier (the only effects :meth:`View.power` reads) of an amount below 0.  Of
    amounts of 0 or more, a power that no other part lowers is never below 0."""
    return any(e.kind in _POWER_EFFECTS and not e.amount >= 0 for e in c.effects)


def _may_be_source(c: CardState, static_names: frozenset[str]) -> bool:
    """Whether a card may have a static ability: its name has a printed one, or it has
    copied abilities (symbiosis)."""
    return c.name in static_names or bool(c.gained and _copies_abilities(c))


def _copies_abilities(c: CardState) -> bool:
    """Whether a card has abilities copied by symbiosis (``gained`` entries ``ability:…``)."""
    return bool(c.gained) and any(entry.startswith("ability:") for entry in c.gained)


def _add(a: int | float, b: int | float) -> int | float:
    value = a + b
    return 0 if math.isnan(value) else value


def _mul(a: int | float, b: int | float) -> int | float:
    value = a * b
    return 0 if math.isnan(value) else value
