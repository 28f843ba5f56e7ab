"""The revisions of what the State of Wonder engine derives (``MatchOpened.rules_revision``).

A revision changes only when the same decisions would derive different outcomes.  Revision 1
is the first engine (rules text 004, rulings in docs/rulings-sow.md).  Every change keeps the
old behaviour selectable: the engine asks the state's ``revision`` (recorded in
``MatchOpened``) where a behaviour differs, so a match always re-derives under the behaviour
it was recorded with.  :data:`REVISIONS` says what each revision changed; docs/rulings-sow.md
lists them too (a test checks the two agree).
"""

#: The revision new matches are recorded at.
RULES_REVISION = 2
RULESETS = ("004",)  # the published rules text this engine implements
ENGINE_VERSION = "sow-0.1.0"
#: R14: a match that reaches this many turns without a winner is a draw ("turn_limit").
TURN_LIMIT = 60

#: From this revision a pitched battle that leaves units on both sides, or only on the
#: defender's, ends the Combat Phase: no City Siege step follows it that turn (R22).
PHASE_OVER_REVISION = 2

#: From this revision a unit whose damage reaches its health because a card giving it health
#: ("Your units get +1 health") left play is destroyed at once (R23).
HEALTH_CHECK_REVISION = 2

#: What each revision changed (0 means "recorded before revisions existed" and derives as 1).
REVISIONS: dict[int, str] = {
    1: "the first engine: rules text 004 with rulings R1-R21",
    2: "R22: \"if there are units left on both sides or only on the defender's side, the "
       "Combat Phase is over\": after such a pitched battle the turn player's besieging units "
       "fight no City Siege step that turn; before, they did; "
       "R23: \"When this number reaches 0, the card will be put into the graveyard\": a unit "
       "whose damage reaches its health because a card giving it health left play is destroyed "
       "at once; before, it stayed in play until its damage was removed at the end of the turn",
}


def effective(recorded: int) -> int:
    """The revision a match derives under: its recorded one (0 -- before revisions were
    recorded -- derives as 1, the only behaviour there was then).  A revision newer than this
    program is the caller's :class:`~replay.errors.NewerRevisionError` to raise."""
    return max(recorded, 1)
