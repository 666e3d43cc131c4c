"""JSON log lines (PROTOCOL.md "Probes and metrics"): one object per line, naming the match when
there is one."""

from __future__ import annotations

import json
import logging
import sys

from spectacular_bid.service.telemetry import current_match
from spectacular_bid.web.logs import JsonFormatter, log_config


def record(message: str, *args: object, **extra: object) -> logging.LogRecord:
    made = logging.LogRecord(
        "spectacular_bid.test", logging.WARNING, __file__, 1, message, args, None
    )
    made.__dict__.update(extra)
    return made


def test_a_line_is_one_json_object_with_the_usual_fields() -> None:
    line = JsonFormatter().format(record("match %s: %d versions", "m1", 3))
    assert "\n" not in line
    data = json.loads(line)
    assert set(data) == {"time", "level", "logger", "message"}
    assert (data["level"], data["logger"]) == ("warning", "spectacular_bid.test")
    assert data["message"] == "match m1: 3 versions"
    assert data["time"].endswith("+00:00")


def test_the_match_id_comes_from_the_task_or_the_record() -> None:
    formatter = JsonFormatter()
    token = current_match.set("m-task")
    try:
        assert json.loads(formatter.format(record("x")))["match_id"] == "m-task"
        # A record that names its match itself wins.
        assert json.loads(formatter.format(record("x", match_id="m-own")))["match_id"] == "m-own"
    finally:
        current_match.reset(token)
    assert "match_id" not in json.loads(formatter.format(record("x")))


def test_a_traceback_stays_on_the_line() -> None:
    try:
        raise ValueError("bad")
    except ValueError:
        made = record("failed")
        made.exc_info = sys.exc_info()
    line = JsonFormatter().format(made)
    assert "\n" not in line
    assert "ValueError: bad" in json.loads(line)["exc_info"]


def test_text_keeps_uvicorns_configuration_and_json_covers_every_logger() -> None:
    text = log_config("text")
    assert text["formatters"]["default"]["()"] == "uvicorn.logging.DefaultFormatter"
    config = log_config("json")
    assert config["formatters"]["json"]["()"] is JsonFormatter
    assert config["root"]["handlers"] == ["json"]
    for name in ("uvicorn", "uvicorn.access"):
        assert config["loggers"][name]["handlers"] == ["json"]
