"""The rules engine's exceptions: one root, one subclass per cause."""


class ReplayError(Exception):
    """Root of every error the ``replay`` package raises."""


class CardDataError(ReplayError):
    """A card or deck file is invalid; the message names the file and the field."""


class IllegalDecisionError(ReplayError):
    """A decision the rules forbid; the message says which rule and why."""


class DivergenceError(ReplayError):
    """Re-running the engine derived something other than what was recorded."""


class ConformanceCaseError(ReplayError):
    """A conformance case cannot be loaded (bad TOML, unknown key, unknown card)."""


class NewerRevisionError(ReplayError):
    """A match recorded under a rules revision newer than this program knows."""


class StaleBuildError(ReplayError):
    """A compiled engine module is older than its source (``replay.native``): rebuild it."""
