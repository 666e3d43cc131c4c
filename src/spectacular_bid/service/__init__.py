"""The live match service: one serial actor per match, the server clock, versioned events.

It talks to storage only through :mod:`spectacular_bid.service.ports` and to clients only through
per-audience messages (R2.2, D4); the web layer wires it up.
"""
