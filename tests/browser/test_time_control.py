"""Time controls in the browser (PROTOCOL.md "Clocks"): a match's time control is chosen before it
is created — the rules' 2 min + 10 s (sent as the server's own, so that the match can be rated), a
casual preset, or a custom bank and delay checked in the form — and the lobby shows each match's."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Request, expect

from .conftest import Tabs
from .ui import Tab, enter_name

pytestmark = pytest.mark.browser

MATCH_PAGE = re.compile(r"/m/([A-Za-z0-9_-]+)$")


def is_create(request: Request) -> bool:
    return request.method == "POST" and request.url.endswith("/api/matches")


def create(tab: Tab, mode: str) -> tuple[str, Any]:
    """Press the lobby's button for ``mode``: the new match's id and the body that was sent."""
    with tab.page.expect_request(is_create) as sent:
        tab.page.locator(f"[data-action=create-{mode}]").click()
    expect(tab.page).to_have_url(MATCH_PAGE)
    found = MATCH_PAGE.search(tab.page.url)
    assert found is not None
    return found.group(1), sent.value.post_data_json


def lobby_line(tab: Tab, kind: str, match_id: str) -> dict[str, Any]:
    line: dict[str, Any] = next(m for m in tab.api("/api/lobby")[kind] if m["id"] == match_id)
    return line


def test_a_casual_preset_is_sent_and_shown_in_the_lobby(tabs: Tabs) -> None:
    ann = tabs.open("ann")
    bob = tabs.open("bob")
    enter_name(ann, "Aino")
    enter_name(bob, "Bohdan")
    expect(ann.page.locator("#tc-standard")).to_be_checked()
    expect(ann.page.locator("label[for=tc-standard]")).to_have_text(
        "2 min + 10 s · standard, rated"
    )
    ann.page.locator("label[for=tc-5-10]").click()
    match_id, body = create(ann, "open")
    assert body == {"mode": "open", "bank_ms": 300_000, "delay_ms": 10_000}
    line = lobby_line(bob, "open_challenges", match_id)
    assert (line["bank_ms"], line["delay_ms"]) == (300_000, 10_000)

    challenge = bob.page.locator(f'#open-challenges [data-match-id="{match_id}"]')
    expect(challenge.locator(".time-tag")).to_have_text("5 min + 10 s")
    challenge.locator("[data-action=accept-challenge]").click()
    expect(bob.page).to_have_url(MATCH_PAGE)
    expect(bob.page.locator("[data-clock=second]")).to_contain_text("5:00")

    bob.page.goto(bob.base_url + "/")
    live = bob.page.locator(f'#live-matches [data-match-id="{match_id}"]')
    expect(live.locator(".time-tag")).to_have_text("5 min + 10 s")


def test_the_rules_control_is_sent_as_the_servers_own(tabs: Tabs) -> None:
    ann = tabs.open("ann")
    enter_name(ann, "Aleksi")
    _, body = create(ann, "invite")
    assert body == {"mode": "invite"}

    # A custom control equal to the rules' is theirs too (and so may be rated).
    ann.page.goto(ann.base_url + "/")
    ann.page.locator("label[for=tc-custom]").click()
    expect(ann.page.locator("#tc-bank-min")).to_have_value("2")
    expect(ann.page.locator("#tc-delay-s")).to_have_value("10")
    _, body = create(ann, "invite")
    assert body == {"mode": "invite"}


def test_a_custom_control_is_checked_in_the_form(tabs: Tabs) -> None:
    ann = tabs.open("ann")
    viewer = tabs.open("viewer")
    enter_name(ann, "Iryna")
    page = ann.page
    sent: list[Request] = []
    page.on("request", lambda request: sent.append(request) if is_create(request) else None)
    custom = page.locator("#tc-custom-fields")
    bank = page.locator("#tc-bank-min")
    delay = page.locator("#tc-delay-s")
    error = page.locator("#tc-error")
    expect(custom).to_be_hidden()
    page.locator("label[for=tc-custom]").click()
    expect(custom).to_be_visible()

    bank.fill("61")
    delay.fill("-1")
    page.locator("[data-action=create-open]").click()
    expect(error).to_have_text("Bank: enter 0 to 60 minutes. Delay: enter 0 to 600 seconds.")
    expect(error).to_have_attribute("role", "alert")
    expect(bank).to_have_attribute("aria-invalid", "true")
    expect(bank).to_be_focused()
    bank.fill("")
    expect(error).to_have_text("Bank: enter 0 to 60 minutes. Delay: enter 0 to 600 seconds.")
    bank.fill("1.5")
    expect(error).to_have_text("Delay: enter 0 to 600 seconds.")
    expect(bank).to_have_attribute("aria-invalid", "false")
    delay.fill("3")
    expect(error).to_have_text("")
    assert sent == [], "a control the form refused was never sent"
    expect(page).to_have_url(ann.base_url + "/")

    match_id, body = create(ann, "open")
    assert body == {"mode": "open", "bank_ms": 90_000, "delay_ms": 3_000}
    line = lobby_line(viewer, "open_challenges", match_id)
    assert (line["bank_ms"], line["delay_ms"]) == (90_000, 3_000)
    viewer.page.goto(viewer.base_url + "/")
    challenge = viewer.page.locator(f'#open-challenges [data-match-id="{match_id}"]')
    expect(challenge.locator(".time-tag")).to_have_text("1 min 30 s + 3 s")
