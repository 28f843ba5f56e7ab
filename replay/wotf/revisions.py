"""Rules revisions: this engine's integer version of what it derives (DESIGN.md section 3).

A ruleset is the published rules text (``1.3.2``, ``1.2``); a rules revision numbers this
engine's reading of it.  Every change to what the engine derives bumps
:data:`RULES_REVISION` and keeps the old behaviour selectable: the engine asks
:func:`GameState.revision <replay.state.GameState>` (recorded in ``MatchOpened``) where a
behaviour differs, exactly as it asks the ruleset, so a match always re-derives under the
behaviour it was recorded with.  :data:`REVISIONS` says what each revision changed;
``docs/rulings.md`` lists them too (a test checks the two agree).
"""

from __future__ import annotations

from replay.errors import NewerRevisionError

#: The revision new matches are recorded at.
RULES_REVISION = 13

#: From this revision the stack (triggers waiting to resolve, what is resolving, stated loops,
#: targeting, v1.2 fliers) is recorded as events; before, the same events are applied to the
#: state but not recorded.
STACK_REVISION = 6

#: From this revision the end-of-battle effects (v1.3.2 Flying, v1.2 Deathstrike, "at end of
#: battle" abilities) are one batch in the active player's order (404.3.2 step 6, 502; R42).
END_OF_BATTLE_BATCH_REVISION = 10

#: From this revision unequipped equipment equips to an allied Wonder that moves into its
#: realm, not only to one that arrives (Equip; R43).
EQUIP_ON_MOVE_REVISION = 10

#: From this revision a Wonder that leaves The World other than by dying (banished,
#: portalled) leaves its equipment unequipped in the realm, where it equips to another ally
#: (Equip; R44).
EQUIP_LEAVES_REVISION = 10

#: From this revision an ability nested in its own resolution more than
#: :data:`LOOP_NET_DEPTH` deep is prevented however many cards it is on (503; R18's net): a
#: loop through new cards -- "create a token copy of target Wonder" on arrival, copying a card
#: with that ability -- has a new source at each repetition, which the loop count per card
#: never sees; before, such a loop went on until the engine ran out of stack.
LOOP_NET_REVISION = 10
LOOP_NET_DEPTH = 50

#: From this revision Rage's "sacrifice this at the end of battle" is an end-of-battle effect
#: collected with the others of 404.3.2 step 6, in the active player's order (502; R42);
#: before, the rage Wonder was sacrificed after that batch had resolved.
RAGE_SACRIFICE_BATCH_REVISION = 11

#: From this revision a change of control sets off the equip trigger of the new controller's
#: unequipped equipment in that realm (an allied Wonder beside it now), and Equip's "move the
#: equipment to the arriving Wonder" option needs the equipped Wonder to be controlled by the
#: equipment's controller ("an equipped Wonder you control"; Equip, 505.1; R43).
EQUIP_ON_CONTROL_REVISION = 11

#: From this revision the owner's order of a buried group is asked with a prompt of its own
#: kind, ``bury_order`` (Bury, Game Terms; R20), so the answer says it is a bury's and a viewer
#: other than its owner is shown ``?`` for it at once (R46); before, it was an ``order``
#: prompt like the active player's order of triggers (502), told apart by the moves after it.
BURY_ORDER_KIND_REVISION = 12

#: From this revision a trigger set off while a scripted effect resolves -- by one of its
#: operations: a death, an arrival, a move, a banishment, a change of control -- waits on the
#: stack until the effect's last operation is done (``TriggersDeferred``); then every waiting
#: trigger resolves as one batch in the active player's order (501: "If it triggers in the
#: middle of another effect resolving, finish the first effect before resolving the second";
#: 502; R47).  The triggers the rules resolve before the effect goes on keep their place: those
#: reacting to its choice of targets (Nullify) and to a card it plays (Triggered Effects
#: Example 1).  Before, every trigger resolved inside the operation that set it off.
MID_EFFECT_TRIGGERS_WAIT_REVISION = 13

#: What each revision changed (0 means "recorded before revisions existed" and derives as 1).
REVISIONS: dict[int, str] = {
    1: "the engine as of schema 3: every change of state is an event (fold-complete events), "
       "deck ids drawn by the setup shuffle, cards recorded in the match file",
    2: "Equip: when a Wonder arrives in a realm where its controller has an equipped Wonder, "
       "the controller may move that equipment to the arriving Wonder, as a triggered effect",
    3: "abilities are named by stable ids, not list positions: events, trigger order labels "
       "and copied abilities say `Card#<id>` (an ability's `id`, or `<timing>-<hash of what "
       "it does>`), so a card whose abilities are reordered or reworded derives the same",
    4: "Face Down: a face-down card whose text is not scripted is not offered for activation "
       "and can't be activated (it has no abilities, rule 510); before, the turn options "
       "offered it and its manual prompt showed the hidden card and its text",
    5: "Deck-out at any time (405): a deck emptied by anything that takes a card from it "
       "(a card played from the deck, a seek, a put, a manual move, a judge's ruling) ends "
       "the match at once; before, only draws and deny checked; "
       "\"took the last turn of the round\" (404.5.2) starts afresh each round: a turn taken "
       "in an earlier round no longer counts (RoundStarted resets it); Symbiosis copies every "
       "instance of a keyword, a copied keyword the copier already has being a second instance "
       "(symbiosis example 1: two deathstrikes kill two); before, copies were de-duplicated; "
       "a pick-N prompt with exactly one legal pick (all of its candidates, e.g. a forced "
       "sacrifice of every Wonder, a \"sacrifice which?\" of one Wonder) answers itself "
       "(an auto Answered), as single-option prompts did; before, it was asked",
    6: "the stack is recorded: what the engine holds while an ability resolves is in the state "
       "(GameState.stack) and changes only by outcome events -- TriggersQueued for a batch of "
       "simultaneous triggers waiting to resolve in the order the active player chose (502) "
       "and TriggerDequeued as each begins to resolve, ResolutionStarted and "
       "ResolutionEnded around each scripted ability's effects (503), LoopStated and "
       "LoopRepeated for a voluntary loop's stated repetitions (503), TargetingStarted, "
       "EffectNullified and TargetingEnded around the abilities that react to an effect "
       "choosing targets (Nullify), FlightScheduled and FlightsCleared for v1.2 Flying's "
       "end-of-turn fliers; before, the engine applies the same events to its state without "
       "recording them (the file doesn't hold them, and the state hash leaves the stack out), "
       "so what it derives is otherwise unchanged",
    7: "R22: \"Opponents can't tap\" (Whisperleaf Cloak, restriction be_tapped_by_opponents) "
       "binds only an opponent's effect or cost, the controller's own taps still work; before, "
       "it bound every tap; "
       "R20: a group of two or more different cards buried goes to the bottom in the order its "
       "owner chooses (an order prompt); before, in the order revealed; "
       "R23: one targeting path: deathstrike, call and symbiosis choose their target as scripted "
       "effects do (\"can't be targeted\" excludes a card; targeted abilities such as Feline "
       "Entity's resolve first and may tax or nullify the keyword); before, neither; "
       "R27: null counters on a card that can't be nullified do nothing -- its statics and "
       "stat-defining ability keep working; before, they switched them off; "
       "R18: an involuntary endless loop continues as many times as the active player states "
       "(an amount prompt, 0 to 24) and the active player picks which of its abilities is "
       "prevented (asked when it has more than one); before, it was prevented 24 deep; "
       "R21: distributing cards as evenly as possible (506), the player chooses which realms get "
       "the extra cards (a realm prompt) before the shuffle deals them; before, round-robin "
       "from realm 1; "
       "R26: actions and free attacks may be infinite (recorded \"inf\"); before, capped at "
       "999,999",
    8: "issue 15, beyond its list (docs/rulings.md, R28-R33): the tokens one effect creates "
       "arrive together, in its one target realm, their arrival triggers one batch (502); "
       "before, each arrived and its triggers resolved before the next was made, the realm "
       "asked for each; one ability's simultaneous triggers about different cards are ordered "
       "by the active player when what they do depends on the card (\"it gets +1\" for two "
       "defenders); before, kept in the order they happened; cards banished together (a "
       "banished realm, a banish of several) go at once, every \"whenever banished\" trigger "
       "seeing all of them; before, one by one in listed order; two or more fliers: the "
       "attacker orders their moves; before, listed order; a seat's answer to its own manual "
       "prompt may shuffle its own deck (a DeckShuffled chance event); before, only a judge's "
       "ruling could; several returns at the end of the round: the last player to pass orders "
       "them (403.5); before, listed order",
    9: "the rules audit's fixes (docs/rulings.md R36-): a banished realm's stones are banished "
       "with it (v1.3.2 section 3, v1.2 301.2), out of play for every purpose -- no controller "
       "for 405's tie-break (a draw goes to the lowest numbered realm with a single controller "
       "among the others), none to seize in a battle or by an effect, none for call; before, "
       "the tie-break and a seizure still read them; v1.2: a card moved into a banished realm "
       "(flying, call, a move), a token created or a card distributed face down there enters "
       "it in banishment, equipment moving with its Wonder too (301.2, R37); before, it "
       "stayed in The World there; a protector counter stops a seizure only on a Wonder in "
       "the battle, not on a land or an item there (\"Only cards with a power stat can "
       "battle\", R38); before, any card's in the realm did; v1.3.2: a rage attack can't take "
       "place where one of its controller's Wonders there can't attack (404.3.1, \"including "
       "attacks that would otherwise be enabled by triggered effects\"): not offered, and the "
       "rage Wonder is not sacrificed (R39); before, it was offered and made; deck checks "
       "(R40): one copy of a legendary story token per archive, refused only for a match of "
       "this revision or later",
    10: "the second rules audit (docs/rulings.md R42-R44): the end-of-battle effects happen at "
        "once (404.3.2 step 6: \"resolve any end-of-battle effects. These include abilities "
        "such as Flying ... and other cards that trigger 'at end of battle'\"): v1.3.2 "
        "Flying (a `flying` trigger per attacking flier) and the \"at end of battle\" "
        "abilities of the cards in the realm, v1.2 Deathstrike and those abilities, are "
        "collected together before any resolves and resolve in the active player's order "
        "(502), so a flier's own end-of-battle ability still triggers after it flies (R42); "
        "before, the fliers moved first and only the cards still there triggered (v1.2: "
        "deathstrike first); unequipped equipment equips to an allied Wonder that moves "
        "into its realm (Equip: \"When an unequipped equipment is in the same realm as an "
        "allied Wonder, it automatically equips\", R43); before, only an arrival equipped it; "
        "a Wonder that leaves The World other than by dying (banished, portalled) leaves its "
        "equipment unequipped in the realm (Equip: \"If the equipped Wonder leaves The World "
        "its equipment remains in the realm and equips to another Wonder there\", R44), a "
        "banished Wonder's equipping another ally there; before, it stayed equipped to the "
        "card that had left; an ability nested in its own resolution more than 50 deep, on "
        "whatever cards (a copy loop through new tokens), is prevented (503, R18); before, "
        "the engine ran out of stack",
    11: "two questions R42 and R43 had left open (docs/rulings.md): Rage's \"sacrifice this at "
        "the end of battle\" is an end-of-battle effect (404.3.2 step 6), a `rage_sacrifice` "
        "trigger collected with Flying, Deathstrike (v1.2) and the \"end of battle\" "
        "abilities in the active player's order (502), so a raging flier may fly and then be "
        "sacrificed, or be sacrificed first; before, it was sacrificed after the batch; a "
        "change of control makes the Wonder an ally of its new controller's unequipped "
        "equipment in that realm, which equips (Equip: \"When an unequipped equipment is in "
        "the same realm as an allied Wonder, it automatically equips\"), and the equipment "
        "already on it stays there under its old controller (505.1), which can no longer move "
        "it to an arriving Wonder (\"an equipped Wonder you control\"); before, a change of "
        "control set off no equip trigger, and that option was offered",
    12: "the owner's order of a buried group (Bury, Game Terms: \"in any order of the owner's "
        "choice\"; R20) is asked and recorded as a prompt of its own kind, `bury_order`, so "
        "the answer itself says it is a bury's and is shown as `?` to everyone but its owner "
        "(R46) from the moment it is written; before, it was an `order` prompt, the kind of "
        "the active player's order of triggers, fliers and returns (502, 403.5), told from "
        "them by the moves that follow it",
    13: "501: a trigger set off in the middle of a scripted effect (by a death, an arrival, a "
        "move, a banishment, a change of control its operations cause) waits on the stack "
        "(TriggersDeferred) until the effect's last operation is done (EffectFinished), then "
        "every waiting trigger resolves as one batch in the active player's order (502) -- "
        "501's example: \"Destroy target Wonder and draw a card\" draws before \"whenever a "
        "Wonder dies\" resolves; a change of control's equip trigger (R43) waits for the rest "
        "of its effect; the abilities reacting to the effect's targeting (Nullify) and to a "
        "card it plays (Triggered Effects Example 1) still resolve before it goes on (R47); "
        "before, every trigger resolved inside the operation that set it off",
}


def effective(recorded: int) -> int:
    """The revision a match derives under: its recorded one (0 -- before revisions -- is 1)."""
    if recorded > RULES_REVISION:
        raise NewerRevisionError(f"rules revision {recorded} is newer than this program's "
                         f"{RULES_REVISION}; upgrade wonders to re-derive this match")
    return max(recorded, 1)
