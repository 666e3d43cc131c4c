"""The live match service: one serial actor per match, the server clock, versioned events.

It talks to storage only through :mod:`spectacular_bid.service.ports` and to clients only through
per-audience messages (STYLE rules 1 and 3); the web layer wires it up.
"""
