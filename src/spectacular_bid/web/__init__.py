"""The web layer: the FastAPI app, its HTTP routes, the WebSocket endpoint and the wire messages.

It only translates: HTTP requests and WebSocket frames become calls on the match service, and the
service's per-audience messages go out unchanged (R2.2, D4). :mod:`.app` is the one place
that builds the store and the service (ARCHITECTURE.md "Code map").
"""
