"""Invitations that wait for the friend, in a real browser (D3): the creator's page keeps the
invitation open and hears, sees and (tab hidden, allowed) is notified when the friend comes; a
friend who comes after it expired is shown who invited them and invites that player back in one
click, and the creator finds the new invitation in the lobby. The join timeout is short here, so
"after it expired" takes a second, and the creator's open page outlives it many times over."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .server import BrowserServer, serve
from .test_cues import NOTIFICATIONS_JS
from .ui import api_guest, enter_name, eventually, invite_link, match_id_of, press_start

pytestmark = pytest.mark.browser

JOIN_TIMEOUT_MS: Final = 3_000
"""Longer than the lobby takes to show a new invitation's page on a loaded machine."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserServer]:
    flags = ("--join-timeout-ms", str(JOIN_TIMEOUT_MS))
    yield from serve(tmp_path_factory.mktemp("waiting-server"), *flags)


def test_the_creator_hears_and_sees_the_friend_arrive(tabs: Tabs) -> None:
    ann, bob = tabs.open("ann"), tabs.open("bob")
    ann.context.add_init_script(script=f"({NOTIFICATIONS_JS})()")
    enter_name(ann, "Ann")
    api_guest(bob, "Bob")
    ann.page.locator("[data-action=create-invite]").click()  # the lobby opens its page at once
    invite = ann.page.locator("#invite-panel")
    expect(invite).to_contain_text("stays open while this page is open")
    match_id = match_id_of(invite_link(ann))
    assert ann.snapshot(match_id)["match"]["status"] == "waiting"
    ann.page.locator("[data-action=sound]").click()
    ann.page.locator("[data-action=notify]").click()
    expect(ann.page.locator("[data-action=notify]")).to_have_attribute("aria-pressed", "true")
    ann.page.evaluate(
        """() => {
          Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
          document.dispatchEvent(new Event('visibilitychange'));
        }"""
    )
    # Join timeouts pass while her page is open: the invitation still waits.
    ann.page.wait_for_timeout(2 * JOIN_TIMEOUT_MS)
    assert ann.snapshot(match_id)["match"]["status"] == "waiting"
    expect(ann.page).not_to_have_title(re.compile("joined"))

    bob.api_post(f"/api/matches/{match_id}/join")
    expect(ann.page).to_have_title(re.compile(r"^● Bob has joined · Ann – Bob"))
    cues = ann.page.locator("#match")
    eventually(ann, lambda: cues.get_attribute("data-cues") or "", lambda c: "join" in c, "cue")
    notes = eventually(ann, lambda: ann.page.evaluate("window.__notes"), bool, "a notification")
    assert notes == ["Bob has joined"]
    expect(invite).to_be_hidden()
    ann.shot("waiting-arrival")
    press_start(ann)  # she is back at it: the title says no more
    expect(ann.page).not_to_have_title(re.compile("joined"))


def test_a_friend_after_the_expiry_invites_the_creator_back_in_one_click(tabs: Tabs) -> None:
    ann, bob = tabs.open("ann"), tabs.open("bob")
    enter_name(ann, "Ann")  # in the lobby, as she made her invitation
    clock = {"mode": "invite", "bank_ms": 60_000, "delay_ms": 5_000}
    expired: str = ann.api_post("/api/matches", clock)["id"]  # she never opens its page
    eventually(
        ann,
        lambda: ann.snapshot(expired)["match"]["status"],
        lambda status: status == "aborted",
        "the invitation expiring",
    )
    bob.page.goto(f"{bob.base_url}/m/{expired}")  # Bob has no name yet
    late = bob.page.locator("#late-panel")
    expect(late).to_be_visible()
    expect(late).to_contain_text("Ann's invitation has expired")
    expect(bob.page.locator("#result")).to_be_hidden()  # no replay of an empty match
    bob.shot("waiting-late-panel")
    bob.page.locator("#late-name").fill("Bob")
    late.locator("[data-action=again-invite]").click()
    expect(bob.page).not_to_have_url(re.compile(expired))
    fresh = match_id_of(invite_link(bob))
    assert bob.page.url.endswith(f"/m/{fresh}")
    view = bob.snapshot(fresh)["match"]
    assert (view["status"], view["players"]["first"]["name"]) == ("waiting", "Bob")
    assert view["clock"]["bank_left_ms"] == {"first": 60_000, "second": 60_000}

    ann.page.goto(f"{ann.base_url}/")
    invited = ann.page.locator("#invitations-back")
    expect(invited.locator(".item-name")).to_contain_text("Bob")  # beside the rating tag
    expect(invited).to_contain_text("invites you to a match")
    ann.shot("waiting-lobby-invitation")
    invited.locator("[data-action=accept-invitation]").click()
    expect(ann.page).to_have_url(re.compile(f"/m/{fresh}$"))
    expect(bob.page).to_have_title(re.compile(r"^● Ann has joined · "))
