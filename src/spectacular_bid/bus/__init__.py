"""Implementations of the service's bus port (``service.bus``): Redis, for several processes."""
