"""Log lines as JSON, one object per line, for a log collector (PROTOCOL.md "Probes and metrics").

With ``SPECBID_LOG_FORMAT=json`` every line — the server's own and uvicorn's — is one JSON object
with ``time`` (UTC, ISO 8601 with milliseconds), ``level``, ``logger`` and ``message``, plus
``match_id`` when the line is about a match, so that one match's story can be found across
replicas. The id comes from the record (``extra={"match_id": …}``) or else from
:data:`~spectacular_bid.service.telemetry.current_match`, which a match's actor and its sockets
set in their own tasks. A traceback goes in ``exc_info`` as text, never over several lines.
The default, ``text``, is uvicorn's own configuration, as before.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any, Literal

from uvicorn.config import LOGGING_CONFIG

from spectacular_bid.service.telemetry import current_match

LogFormat = Literal["text", "json"]


class JsonFormatter(logging.Formatter):
    """One JSON object per record."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        match_id = getattr(record, "match_id", None) or current_match.get()
        if match_id is not None:
            line["match_id"] = match_id
        if record.exc_info:
            line["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def log_config(log_format: LogFormat) -> dict[str, Any]:
    """uvicorn's ``log_config`` for ``log_format``: its own for text; for JSON, one handler on
    stderr for the root logger and uvicorn's, so the server's lines go out as JSON too."""
    if log_format == "text":
        return LOGGING_CONFIG
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    uvicorn_logger = {"handlers": ["json"], "level": "INFO", "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {"json": handler},
        "root": {"handlers": ["json"], "level": "INFO"},
        "loggers": {
            "uvicorn": uvicorn_logger,
            "uvicorn.error": {"level": "INFO"},
            "uvicorn.access": uvicorn_logger,
        },
    }
