"""One router per resource: the guest session, matches, the lobby, and the client's pages."""
