"""The revisions of what the State of Wonder engine derives (``MatchOpened.rules_revision``).

A revision changes only when the same decisions would derive different outcomes.  Revision 1
is the first engine (rules text 004, rulings in docs/rulings-sow.md).
"""

RULES_REVISION = 1
RULESETS = ("004",)  # the published rules text this engine implements
ENGINE_VERSION = "sow-0.1.0"
#: R14: a match that reaches this many turns without a winner is a draw ("turn_limit").
TURN_LIMIT = 60
