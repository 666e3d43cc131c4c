"""``specbid bench page``: how fast the lobby and a match page load in a real browser.

Debian's Chromium, driven through Playwright, visits each page twice under the network that the
DevTools Protocol's ``Network.emulateNetworkConditions`` makes (by default 150 ms of latency and
1.6 Mbit/s each way, a slow mobile link): a *first* visit in a new browser context (an empty
cache) and a *repeat* visit in a new tab of the same context (the cache warm from the first).
The match page is a live match the bench creates for each repeat (an invitation, the second
seat joined over HTTP), seen from its first seat. :mod:`.page_probe` says what each figure is.

It starts a server of its own from this checkout (as ``bench server`` does), or measures the one
at ``--url``: so the same measurement can be taken of an older release, started from its own
checkout. It prints one JSON line: per page and visit the median over the repeats, and every
repeat's figures.
"""

from __future__ import annotations

import contextlib
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from spectacular_bid.bench.page_probe import HANDLED, RENDERED, Traffic, probe_script
from spectacular_bid.bench.server_process import serving_several

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page, ViewportSize

CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking")
VIEWPORT: ViewportSize = {"width": 1366, "height": 800}
"""The laptop of the first-minutes report."""
PAGES = ("lobby", "match")
VISITS = ("first", "repeat")
READY_TIMEOUT_S = 60.0
"""Long enough for the slowest page on the slowest link a run would choose."""
BUSY_WAIT_S = 60.0
"""How long a server that refuses new matches as busy (a loaded machine) is given."""
QUIET_S = 0.5
"""After ready, a visit's requests are counted until none has started for this long."""
QUIET_CAP_S = 5.0
"""… or for at most this long (a page that polls would never be quiet)."""
_GUEST_MADE_HERE = 'localStorage.setItem("specbid.guest", "1");'
"""What the client keeps once it has made a guest in this browser (``static/js/api.js``): with
it a page asks who it is, as a returning player's does; without, it would skip that request."""
_CONTROL_CENTRE = """() => {
    const box = window.__pageProbe.control.getBoundingClientRect();
    const x = Math.min(Math.max(box.left + box.width / 2, 1), innerWidth - 1);
    const y = Math.min(Math.max(box.top + Math.min(box.height / 2, 20), 1), innerHeight - 1);
    return [x, y];
}"""
"""Where the mouse goes: over the control, inside the viewport."""


@dataclass(frozen=True)
class Throttle:
    latency_ms: float = 150.0
    down_kbps: float = 1600.0
    up_kbps: float = 1600.0

    def conditions(self) -> dict[str, Any]:
        """``Network.emulateNetworkConditions``'s parameters (throughputs in bytes per second)."""
        return {
            "offline": False,
            "latency": self.latency_ms,
            "downloadThroughput": self.down_kbps * 1000 / 8,
            "uploadThroughput": self.up_kbps * 1000 / 8,
        }


def run(
    url: str | None,
    repeats: int = 3,
    throttle: Throttle | None = None,
    chromium: str = "/usr/bin/chromium",
) -> dict[str, object]:
    """Visit the pages ``repeats`` times each and report (``throttle=None``: no throttling)."""
    from playwright.sync_api import sync_playwright

    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    samples: dict[str, dict[str, list[dict[str, float]]]] = {
        page: {visit: [] for visit in VISITS} for page in PAGES
    }
    with _server(url) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, headless=True, args=list(CHROMIUM_ARGS)
        )
        try:
            for _ in range(repeats):
                viewer, match_id = _live_match(base)
                for page, path in (("lobby", "/"), ("match", f"/m/{match_id}")):
                    context = browser.new_context(viewport=VIEWPORT, locale="en-US")
                    context.add_cookies([{"name": "specbid_token", "value": viewer, "url": base}])
                    context.add_init_script(_GUEST_MADE_HERE)
                    try:
                        for visit in VISITS:
                            figures = _visit(context, base + path, page, throttle)
                            samples[page][visit].append(figures)
                    finally:
                        context.close()
        finally:
            browser.close()
    return {
        "server": url or "own",
        "throttle": None if throttle is None else throttle.__dict__,
        "repeats": repeats,
        **{page: {visit: _summary(samples[page][visit]) for visit in VISITS} for page in PAGES},
    }


@contextlib.contextmanager
def _server(url: str | None) -> Iterator[str]:
    if url is not None:
        yield url.rstrip("/")
        return
    with serving_several(1) as servers:
        yield servers[0].base


def _live_match(base: str) -> tuple[str, str]:
    """A new live match: Ann invites, Bob joins. Ann's token and the match's id."""
    origin = {"Origin": base}
    with (
        httpx.Client(base_url=base, headers=origin, timeout=10) as ann,
        httpx.Client(base_url=base, headers=origin, timeout=10) as bob,
    ):
        token = _guest(ann, "Ann")
        _guest(bob, "Bob")
        deadline = time.monotonic() + BUSY_WAIT_S
        created = ann.post("/api/matches", json={"mode": "invite"})
        while created.status_code == 503 and time.monotonic() < deadline:  # busy: as it says
            time.sleep(float(created.headers.get("Retry-After", "1")))
            created = ann.post("/api/matches", json={"mode": "invite"})
        created.raise_for_status()
        match_id = str(created.json()["id"])
        bob.post(f"/api/matches/{match_id}/join").raise_for_status()
    return token, match_id


def _guest(client: httpx.Client, name: str) -> str:
    response = client.post("/api/session", json={"name": name})
    response.raise_for_status()
    token = str(response.json()["token"])
    client.headers["Authorization"] = f"Bearer {token}"
    return token


def _visit(
    context: BrowserContext, url: str, page_name: str, throttle: Throttle | None
) -> dict[str, float]:
    """One visit in a new tab of ``context``: its figures."""
    tab = context.new_page()
    try:
        tab.add_init_script(probe_script(page_name))
        cdp = context.new_cdp_session(tab)
        traffic = Traffic()
        for event, handler in (
            ("Network.requestWillBeSent", traffic.on_request),
            ("Network.requestServedFromCache", traffic.on_cache_hit),
            ("Network.responseReceived", traffic.on_response),
            ("Network.loadingFinished", traffic.on_finished),
            ("Network.webSocketCreated", traffic.on_socket),
        ):
            cdp.on(event, _stamped(traffic, handler))
        cdp.send("Network.enable")
        if throttle is not None:
            cdp.send("Network.emulateNetworkConditions", throttle.conditions())
        timeout_ms = READY_TIMEOUT_S * 1000
        with tab.expect_console_message(lambda m: m.text == RENDERED, timeout=timeout_ms):
            tab.goto(url, wait_until="commit", timeout=timeout_ms)
        x, y = tab.evaluate(_CONTROL_CENTRE)
        with tab.expect_console_message(lambda m: m.text == HANDLED, timeout=timeout_ms):
            tab.mouse.move(x, y)
        probe = tab.evaluate("() => ({r: __pageProbe.rendered, d: __pageProbe.inputDelay})")
        _settle(tab, traffic)
        return {
            "ready_ms": round(probe["r"] + max(0.0, probe["d"]), 1),
            "rendered_ms": round(probe["r"], 1),
            "input_delay_ms": round(max(0.0, probe["d"]), 1),
            **traffic.figures(),
        }
    finally:
        tab.close()


def _stamped(traffic: Traffic, handler: Any) -> Any:
    def on_event(event: dict[str, Any]) -> None:
        traffic.last_event_s = time.monotonic()
        handler(event)

    return on_event


def _settle(tab: Page, traffic: Traffic) -> None:
    """Let the visit's last requests finish: until no network event for ``QUIET_S``."""
    deadline = time.monotonic() + QUIET_CAP_S
    while time.monotonic() < deadline:
        quiet_for = time.monotonic() - traffic.last_event_s
        if quiet_for >= QUIET_S:
            return
        tab.wait_for_timeout((QUIET_S - quiet_for) * 1000)  # lets Playwright deliver events


def _summary(samples: list[dict[str, float]]) -> dict[str, object]:
    keys = samples[0].keys()
    return {
        **{key: round(statistics.median(s[key] for s in samples), 1) for key in keys},
        "samples": samples,
    }
