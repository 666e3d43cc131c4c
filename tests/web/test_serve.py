"""``specbid serve`` and ``specbid schema``: flags over ``SPECBID_*``, uvicorn's options."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import uvicorn
from uvicorn.config import LOGGING_CONFIG
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from spectacular_bid import cli
from spectacular_bid.web.drain import DrainingServer
from spectacular_bid.web.logs import JsonFormatter
from spectacular_bid.web.messages import schema_text
from spectacular_bid.web.settings import WebSettings
from spectacular_bid.web.ws import MatchSocketEndpoint


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The uvicorn configuration ``specbid serve`` would run, and its server (not run)."""
    calls: dict[str, Any] = {}

    def fake_run(server: DrainingServer, sockets: object = None) -> None:
        calls.update(vars(server.config), server=server)
        server.started = True

    monkeypatch.setattr(DrainingServer, "run", fake_run)
    # Configuring logging is the process's business, not a test's: it would replace pytest's.
    monkeypatch.setattr(uvicorn.Config, "configure_logging", lambda _config: None)
    return calls


def test_serve_defaults(served: dict[str, Any]) -> None:
    assert cli.main(["serve"]) == 0
    assert (served["host"], served["port"]) == ("127.0.0.1", 8000)
    # uvicorn's httptools and websockets-sansio protocols, with the handshake timeout and the
    # UTF-8 check (OPERATIONS.md "Under load and abuse") on top.
    assert issubclass(served["http"], HttpToolsProtocol)
    assert issubclass(served["ws"], WebSocketsSansIOProtocol)
    assert served["ws_max_size"] == 4096
    assert served["ws_per_message_deflate"] is False
    assert (served["ws_ping_interval"], served["ws_ping_timeout"]) == (20.0, 20.0)
    assert (served["loop"], served["lifespan"]) == ("uvloop", "on")


def test_flags_override_the_environment(
    served: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPECBID_PORT", "9001")
    monkeypatch.setenv("SPECBID_HOST", "0.0.0.0")
    monkeypatch.setenv("SPECBID_GRACE_MS", "7000")
    argv = ["serve", "--port", "9002", "--bank-ms", "30000", "--allowed-origin", "https://a.ex"]
    assert cli.main(argv) == 0
    assert (served["host"], served["port"]) == ("0.0.0.0", 9002)
    endpoint = served["app"]
    assert isinstance(endpoint, MatchSocketEndpoint)  # the sockets' endpoint in front of the app
    settings = endpoint.app.state.settings
    assert isinstance(settings, WebSettings)
    assert (settings.bank_ms, settings.grace_ms) == (30_000, 7_000)
    assert settings.allowed_origins == ["https://a.ex"]


def test_invalid_settings_exit_2(
    served: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["serve", "--grace-ms", "0"]) == 2
    assert "grace_ms" in capsys.readouterr().err
    assert served == {}


def test_schema_prints_the_checked_in_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["schema"]) == 0
    assert capsys.readouterr().out == schema_text()
    target = tmp_path / "schema.json"
    assert cli.main(["schema", "-o", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == schema_text()


def test_drain_and_log_format_reach_the_server(
    served: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPECBID_LOG_FORMAT", "json")
    assert cli.main(["serve", "--drain-s", "300"]) == 0
    server = served["server"]
    assert isinstance(server, DrainingServer)
    assert server.drain_s == 300
    assert served["log_config"]["formatters"]["json"]["()"] is JsonFormatter


def test_by_default_a_signal_stops_at_once_with_uvicorns_logs(served: dict[str, Any]) -> None:
    assert cli.main(["serve"]) == 0
    assert served["server"].drain_s == 0
    assert served["log_config"] is LOGGING_CONFIG
