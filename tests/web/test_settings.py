"""``SPECBID_*`` settings and the service settings built from them."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from lenient import LENIENT
from spectacular_bid.clock import ClockSettings
from spectacular_bid.service.settings import Capacity, ServiceSettings
from spectacular_bid.web.room import RoomSettings
from spectacular_bid.web.settings import WebSettings


def test_the_defaults_are_the_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in LENIENT:
        monkeypatch.delenv(name)
    settings = WebSettings()
    assert (settings.host, settings.port) == ("127.0.0.1", 8000)
    assert settings.fixed_deck_seed is None
    assert settings.allowed_origins == []
    assert settings.max_message_bytes == 4096
    # R7.1, R7.2, D3, D5; a server guards its capacity by its loop's lag, and its cap of live
    # matches is measured only by `specbid serve` (auto), so an app made here has none.
    assert settings.max_live_matches == "auto"
    assert settings.service_settings() == ServiceSettings(capacity=Capacity(40, None, None))


def test_a_server_guards_its_capacity_and_sockets(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in LENIENT:
        monkeypatch.delenv(name)
    settings = WebSettings()
    assert (settings.sockets_per_address, settings.sockets_per_guest) == (256, 16)
    assert (settings.handshake_timeout_s, settings.ws_ping_timeout_s) == (10.0, 20.0)
    assert settings.room_settings() == RoomSettings(100, 64, 250, 32)


def test_the_environment_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPECBID_PORT", "9001")
    monkeypatch.setenv("SPECBID_BANK_MS", "60000")
    monkeypatch.setenv("SPECBID_GRACE_MS", "5000")
    monkeypatch.setenv("SPECBID_FIXED_DECK_SEED", "42")
    monkeypatch.setenv("SPECBID_ALLOWED_ORIGINS", "https://a.example, https://B.example/")
    settings = WebSettings()
    assert settings.port == 9001
    assert settings.allowed_origins == ["https://a.example", "https://b.example"]
    service = settings.service_settings()
    assert service.clock == ClockSettings(bank_ms=60_000, delay_ms=10_000)
    assert (service.grace_ms, service.fixed_deck_seed) == (5_000, 42)


def test_origins_may_be_a_json_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPECBID_ALLOWED_ORIGINS", '["https://a.example"]')
    assert WebSettings().allowed_origins == ["https://a.example"]


def test_arguments_override_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPECBID_PORT", "9001")
    assert WebSettings(port=9002).port == 9002


@pytest.mark.parametrize("field", ["grace_ms", "join_timeout_ms", "lag_threshold_ms"])
def test_non_positive_times_are_refused(field: str) -> None:
    with pytest.raises(ValidationError, match=field):
        WebSettings.model_validate({field: 0})
