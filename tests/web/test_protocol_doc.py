"""docs/PROTOCOL.md stays complete: every code, message and event is there, examples validate."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from spectacular_bid.service.refusals import ErrorCode
from spectacular_bid.web.events import MatchEvent
from spectacular_bid.web.messages import CLIENT_MESSAGES, ClientMessage, ServerMessage
from spectacular_bid.web.snapshot import MatchSnapshot

DOC = (Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"```(json|jsonl)\n(.*?)```", re.DOTALL)
ABRIDGED = "…"
"""Examples abridged with this mark show a shape, not a whole message."""

EVENT_TYPES = [
    typing.get_args(m.model_fields["type"].annotation)[0]
    for m in typing.get_args(typing.get_args(MatchEvent)[0])
]


def examples(kind: str) -> list[Any]:
    found = []
    for lang, body in BLOCK.findall(DOC):
        if lang == kind == "json":
            found.append(json.loads(body))
        elif lang == kind == "jsonl":
            found += [json.loads(line) for line in body.splitlines() if line.strip()]
    return found


def table_rows() -> set[str]:
    return set(re.findall(r"^\| `([a-z_]+)` \|", DOC, re.MULTILINE))


@pytest.mark.parametrize("code", [c.value for c in ErrorCode])
def test_every_error_code_is_explained(code: str) -> None:
    assert code in table_rows()


@pytest.mark.parametrize("kind", [*CLIENT_MESSAGES, *EVENT_TYPES])
def test_every_client_message_and_event_is_listed(kind: str) -> None:
    assert kind in table_rows()


@pytest.mark.parametrize("kind", ["state", "update", "presence", "ack", "error", "pong"])
def test_every_server_message_has_a_section(kind: str) -> None:
    assert f"### `{kind}`" in DOC


def test_the_examples_validate() -> None:
    client, server = TypeAdapter(ClientMessage), TypeAdapter(ServerMessage)
    events = TypeAdapter(MatchEvent)
    checked = 0
    for example in examples("json") + examples("jsonl"):
        if ABRIDGED in json.dumps(example, ensure_ascii=False):
            continue
        if "audience" in example:
            MatchSnapshot.model_validate(example)
        elif "type" not in example:
            continue  # an HTTP body
        elif "events" not in example and "version" in example and example["type"] in EVENT_TYPES:
            events.validate_python(example)
        elif example["type"] in CLIENT_MESSAGES and "lines" not in example:  # not a server chat
            client.validate_python(example)
        else:
            server.validate_python(example)
        checked += 1
    assert checked >= 30
