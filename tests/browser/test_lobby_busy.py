"""A creation refused as busy (docs/PROTOCOL.md "When the server is busy") is retried by the page
after the server's Retry-After, and the page says so: "trying again in 30 s…" with Cancel while
it waits, then, once the server stayed busy through every try, a message with Try again; a try
after the server freed up creates the match. The server refuses for real, at its live-match cap;
the page's clock is run forward through the waits instead of waiting them out."""

from __future__ import annotations

import json
import operator
from collections.abc import Iterator
from functools import partial

import pytest
from playwright.sync_api import Request, Route, expect

from spectacular_bid.service.admission import RETRY_AFTER_AT_CAP_S

from .conftest import Tabs
from .lobby_server import Api
from .server import BrowserServer, serve
from .ui import enter_name, eventually

pytestmark = pytest.mark.browser

WAIT_MS = RETRY_AFTER_AT_CAP_S * 1000


@pytest.fixture
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserServer]:
    """A server of each test's own: what one test leaves live would hold the other's cap."""
    yield from serve(tmp_path_factory.mktemp("lobby-busy"), "--max-live-matches", "1")


def until_not_busy(api: Api) -> None:
    """The cap frees once the live match ends, and the server stays busy 3 s after."""
    api.until("/api/health", lambda health: not health["busy"], "the server stayed busy", 20.0)


def test_joining_a_challenge_refused_as_busy_is_retried(tabs: Tabs, server: BrowserServer) -> None:
    """A join is refused as busy only when the challenge's server process cannot be reached
    for a moment (a relay's 503, Retry-After 2): here the page's first join is answered so."""
    with Api(server) as api:
        bo = api.guest("Bohdan")
        challenge = api.post("/api/matches", bo, {"mode": "open"})["id"]
    tab = tabs.open("ann")
    tab.allow_refusal(503, f"/api/matches/{challenge}/join")
    tab.context.clock.install()
    refused: list[str] = []

    def first_refused(route: Route, request: Request) -> None:
        if refused:
            route.continue_()
            return
        refused.append(request.url)
        body = {"error": {"code": "server_busy", "message": "the match's server is away"}}
        route.fulfill(status=503, headers={"Retry-After": "2"}, body=json.dumps(body))

    tab.page.route(f"**/api/matches/{challenge}/join", first_refused)
    enter_name(tab, "Annikki")
    tab.page.locator(
        f'#open-challenges [data-match-id="{challenge}"] [data-action=accept-challenge]'
    ).click()
    notice = tab.page.locator(".busy-notice")
    expect(notice).to_contain_text("The server is busy — trying again in 2 s…")
    tab.context.clock.run_for(2_000)
    expect(tab.page.locator("#match")).to_have_attribute("data-audience", "second")
    assert len(refused) == 1


def test_a_creation_refused_as_busy_is_retried_then_given_up_then_tried_again(
    tabs: Tabs, server: BrowserServer
) -> None:
    with Api(server) as api:
        check_the_retries(tabs, api)


def check_the_retries(tabs: Tabs, api: Api) -> None:
    bo, cy = api.guest("Bohdan"), api.guest("Cyril")
    live = api.invitation(bo, cy)  # the one live match the cap allows
    tab = tabs.open("ann", viewport={"width": 1366, "height": 800})
    tab.allow_refusal(503, "/api/matches")
    tab.context.clock.install()
    sent: list[str] = []

    def note(request: Request) -> None:
        if request.method == "POST" and request.url.endswith("/api/matches"):
            sent.append(request.url)

    tab.page.on("request", note)
    enter_name(tab, "Annikki")
    tries = tab.page.evaluate("() => import('/js/api.js').then((api) => api.BUSY_TRIES)")
    assert tries > 1
    invite = tab.page.locator("[data-action=create-invite]")
    notice = tab.page.locator(".busy-notice")
    countdown = notice.locator(".busy-count")  # what is seen; screen readers hear it once a wait
    waiting = f"The server is busy — trying again in {RETRY_AFTER_AT_CAP_S} s…"

    # Refused: the page says when it tries again; Cancel stops it.
    invite.click()
    expect(notice).to_be_visible()
    expect(countdown).to_have_text(waiting)
    tab.context.clock.run_for(1_000)
    expect(countdown).to_have_text(
        f"The server is busy — trying again in {RETRY_AFTER_AT_CAP_S - 1} s…"
    )
    tab.shot("lobby-busy-waiting-1366x800")
    notice.locator("[data-action=busy-cancel]").click()
    expect(notice).to_be_hidden()
    tab.context.clock.run_for(WAIT_MS)
    assert len(sent) == 1, "a cancelled retry sent nothing more"

    # Refused at every try: a clear message and Try again.
    invite.click()
    for attempt in range(2, tries + 1):
        expect(countdown).to_have_text(waiting)  # a new wait, after the last try's refusal
        tab.context.clock.run_for(WAIT_MS)
        eventually(
            tab, lambda: len(sent), partial(operator.eq, 1 + attempt), "no try after the wait"
        )
    expect(notice).to_contain_text("The server is still busy, so no match was started.")
    again = notice.locator("[data-action=busy-again]")
    expect(again).to_be_visible()
    assert len(sent) == 1 + tries
    tab.shot("lobby-busy-gave-up-1366x800")
    assert api.get("/api/health")["refused"] == 1 + tries
    assert tab.page.url == tab.base_url + "/"

    # Try again, still busy: it waits again; the server frees up meanwhile; the next try
    # creates the match and the page goes there.
    again.click()
    expect(countdown).to_have_text(waiting)
    api.resign(live, cy)
    until_not_busy(api)
    tab.context.clock.run_for(WAIT_MS)
    expect(tab.page.locator("#match")).to_have_attribute("data-audience", "first")
    assert len(sent) == 3 + tries
