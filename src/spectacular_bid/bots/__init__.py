"""Computer opponents (PROTOCOL.md "POST /api/matches"): :func:`decide` picks a seat's action from
its own view.

Pure like the rules: standard library only, no clock but the injected one, no randomness but
the given ``random.Random``, and no access to a live match: a bot's whole input is the events
its seat has seen (R2.2).
"""

from spectacular_bid.bots.levels import BUDGET_S, HIGHEST, LOWEST, decide

__all__ = ["BUDGET_S", "HIGHEST", "LOWEST", "decide"]
