"""The engine's error hierarchy (R8.3: an illegal request changes nothing and gets a clear error).

Every error is a ``ValueError`` whose message quotes the offending input, so a caller can show it
to the sender as it is.
"""


class RulesError(ValueError):
    """Base of every error the rules engine raises."""


class NotationError(RulesError):
    """Text that is not valid tile, side or placement notation (Appendix A)."""


class IllegalActionError(RulesError):
    """A well-formed action that the rules do not allow in the current state."""


class NotYourTurnError(IllegalActionError):
    """An action from a seat that is not the one to act."""


class WrongPhaseError(IllegalActionError):
    """An action of a kind that the current phase of the match does not take."""
