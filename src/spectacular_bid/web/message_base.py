"""What every WebSocket message shares: a client message's ``id``, a server message's
``version`` (``messages.py`` and ``chat_messages.py`` build on these)."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

from spectacular_bid.web.notation import WireModel

CLIENT_ID_MAX = 64

ClientId = Annotated[
    str,
    Field(
        max_length=CLIENT_ID_MAX,
        description="The client's correlation id, echoed in the ack or error of this message.",
    ),
]


class ClientMessageBase(WireModel):
    model_config = ConfigDict(extra="forbid", strict=True, use_attribute_docstrings=True)

    id: ClientId | None = None


class ServerMessageBase(WireModel):
    version: int
    """The match version when the message was built; every server message carries it."""
