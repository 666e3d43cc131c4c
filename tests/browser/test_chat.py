"""Chat (PROTOCOL.md "chat") in a real browser: two players and two spectators chat during a match;
each line reaches exactly its audience, a flood is limited, a muted speaker's lines stop, a line in
the middle of a turn leaves the pending command valid, and the lines are in the replay after the
end.
"""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .policy import choices
from .ui import (
    Tab,
    api_guest,
    check_offer,
    click_choice,
    eventually,
    press_start,
    resign,
    wait_past,
)

pytestmark = pytest.mark.browser


def lines(tab: Tab) -> list[str]:
    """The chat lines the page shows, as ``name: text``."""
    items = tab.page.locator("#chat-lines .chat-line")
    return [
        f"{item.locator('.chat-name').inner_text()}: {item.locator('.chat-text').inner_text()}"
        for item in items.all()
    ]


def shows(tab: Tab, line: str) -> None:
    eventually(tab, lambda: lines(tab), lambda seen: line in seen, f"the chat should show {line!r}")


def say(tab: Tab, text: str) -> None:
    box = tab.page.locator("#chat-input")
    box.fill(text)
    box.press("Enter")


def test_four_people_chat_in_two_channels(tabs: Tabs) -> None:
    ann, bob, cy, di = (tabs.open(n) for n in ("ann", "bob", "cy", "di"))
    for tab, name in ((ann, "Ann"), (bob, "Bob"), (cy, "Cy"), (di, "Di")):
        api_guest(tab, name)
    match_id = ann.api_post("/api/matches", {"mode": "invite"})["id"]
    bob.api_post(f"/api/matches/{match_id}/join")
    for tab in (ann, bob, cy, di):
        tab.page.goto(f"{tab.base_url}/m/{match_id}")
        expect(tab.page.locator("#chat")).to_be_visible()
    expect(ann.page.locator("#chat-title")).to_have_text("Chat with your opponent")
    expect(cy.page.locator("#chat-title")).to_have_text("Spectators' chat")

    # Each channel reaches its side only: Cy's line arriving at Di comes after Ann's would have.
    say(ann, "good luck, Bob")
    shows(bob, "Ann: good luck, Bob")
    say(cy, "Ann opens strong")
    shows(di, "Cy: Ann opens strong")
    bob.page.locator('.chat-phrase[data-phrase="thanks"]').click()
    shows(ann, "Bob: Thanks!")
    shows(cy, "Cy: Ann opens strong")
    assert lines(di) == lines(cy) == ["Cy: Ann opens strong"]
    assert lines(ann) == lines(bob) == ["Ann: good luck, Bob", "Bob: Thanks!"]
    own = ann.page.locator("#chat-lines .chat-line")
    expect(own.filter(has_text="good luck, Bob").locator("[data-action=mute]")).to_have_count(0)
    expect(own.filter(has_text="Thanks!").locator("[data-action=mute]")).to_have_count(1)
    ann.shot("chat-players")
    cy.shot("chat-spectators")

    # A flood: four lines at once go, the next ones are refused and shown as such. The form is
    # sent six times in one go, as a held-down Enter would (typing each takes the page longer).
    di.page.evaluate(
        """() => {
          const form = document.querySelector('.chat-form');
          const input = form.querySelector('input');
          for (let i = 0; i < 6; i++) {
            input.value = `flood ${i}`;
            form.requestSubmit();
          }
        }"""
    )
    expect(di.page.locator(".chat-problem")).to_contain_text("Slow down")
    shows(cy, "Di: flood 3")
    cy.page.wait_for_timeout(300)  # a window for a refused line to show wrongly: none may
    assert [x for x in lines(cy) if x.startswith("Di:")] == [f"Di: flood {i}" for i in range(4)]

    # Cy mutes Di: Di's lines go from Cy's page, and later ones do not come back.
    cy.page.locator('#chat-lines .chat-line[data-channel="spectators"]').filter(
        has_text="flood 0"
    ).locator("[data-action=mute]").click()
    eventually(cy, lambda: lines(cy), lambda seen: seen == ["Cy: Ann opens strong"], "muted")
    expect(cy.page.locator(".chat-muted-note")).to_be_visible()
    cy.shot("chat-muted")
    di.page.wait_for_timeout(2_100)  # the time under test: the bucket refills one line
    say(di, "can you hear me")
    shows(di, "Di: can you hear me")
    cy.page.wait_for_timeout(300)  # a window for a muted line to show wrongly: none may
    assert lines(cy) == ["Cy: Ann opens strong"]

    # In the middle of a turn: the opponent's line leaves the pending command valid.
    players = {"first": ann, "second": bob}
    for tab in players.values():
        version = tab.snapshot(match_id)["version"]
        tab.wait_version(version)
        press_start(tab)
        wait_past(tab, version)
    view = ann.snapshot(match_id)
    acting = players[view["match"]["to_act"]]
    other = bob if acting is ann else ann
    view = acting.snapshot(match_id)
    acting.wait_version(view["version"])
    check_offer(acting, view["match"])
    say(other, "take your time")
    shows(acting, f"{'Bob' if acting is ann else 'Ann'}: take your time")
    assert acting.snapshot(match_id)["version"] == view["version"]
    click_choice(acting, view["match"], random.Random(5).choice(choices(view["match"]["legal"])))
    wait_past(acting, view["version"])

    # The end: both channels are in the replay, for anyone; a reader's mutes still hold there.
    resign(ann)
    expect(ann.page.locator("#result")).to_be_visible()
    expect(ann.page.locator("#chat-title")).to_have_text("Chat")
    shows(ann, "Cy: Ann opens strong")
    for reader, count in ((bob, 9), (cy, 4)):
        reader.page.goto(f"{reader.base_url}/replay/{match_id}")
        chat = reader.page.locator("#replay-chat")
        expect(chat).to_be_visible()
        expect(chat.locator(".chat-line")).to_have_count(count)
        expect(chat).to_contain_text("good luck, Bob")
        expect(chat).to_contain_text("take your time")
        expect(chat).to_contain_text("Ann opens strong")
    expect(bob.page.locator("#replay-chat")).to_contain_text("can you hear me")
    expect(cy.page.locator("#replay-chat")).not_to_contain_text("flood")
    bob.shot("chat-replay")
