"""Driving the client through its DOM contract, and the reads the referee makes.

A :class:`Tab` is one browser context (its own cookie, so its own guest) with one page. Every
console error and uncaught page error of every tab is collected: the fixture fails the test if
any occurred. Every tab also runs :data:`SIGHTINGS_JS` from the first byte of each document, a
``MutationObserver`` that notes each ``data-tile`` value that appears outside ``#board`` and
``#settlement``, so a hidden tile shown even for a moment is caught, not only one still there.
The rules' pictures (``.worked-board``, Appendix B's fixed positions, drawn whether or not the
rules are open) are no match's tiles and are left out too.

The referee reads the truth from ``GET /api/matches/{id}`` with the tab's own cookie (its seat's
view); every command is still given by clicks or keys in the page.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from playwright.sync_api import BrowserContext, ConsoleMessage, Dialog, Locator, Page, expect

from .policy import Choice

SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
ALL_TILES = frozenset(f"{low}-{high}" for low in range(7) for high in range(low, 7))
IN_ROUND = ("auction", "opening", "playing")
"""Phases in which tiles are hidden: the hands and the boneyard (R2.2)."""

SIGHTINGS_JS = """
(() => {
  const seen = [];
  window.__specbidSightings = seen;
  const note = (el) => {
    if (!el.isConnected || el.closest('#board, #settlement, .worked-board')) return;
    const m = document.querySelector('#match');
    seen.push({tile: el.getAttribute('data-tile'), version: m ? m.dataset.version : null});
  };
  const visit = (node) => {
    if (node.nodeType !== 1) return;
    if (node.hasAttribute('data-tile')) note(node);
    node.querySelectorAll('[data-tile]').forEach(note);
  };
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'attributes') visit(r.target);
      else r.addedNodes.forEach(visit);
    }
  }).observe(document, {subtree: true, childList: true, attributes: true,
                        attributeFilter: ['data-tile']});
})();
"""

TAKE_SIGHTINGS_JS = """() => {
  const seen = window.__specbidSightings || [];
  const taken = seen.splice(0, seen.length);
  return taken;
}"""

SCAN_JS = """() => Array.from(document.querySelectorAll('[data-tile]'))
  .filter((el) => !el.closest('#board, #settlement, .worked-board'))
  .map((el) => el.getAttribute('data-tile'))"""

VERSION_AT_LEAST_JS = """(v) => {
  const m = document.querySelector('#match');
  return m !== null && Number(m.dataset.version) >= v;
}"""

FOCUSED_TILE_JS = """() => {
  const a = document.activeElement;
  const t = a && a.closest ? a.closest('#hand .tile[data-tile]') : null;
  return t ? t.dataset.tile : null;
}"""

FOCUSED_PLACE_JS = """() => {
  const a = document.activeElement;
  const p = a && a.closest ? a.closest('[data-place]') : null;
  return p ? p.getAttribute('data-place') : null;
}"""

T = TypeVar("T")


@dataclass
class Tab:
    name: str
    context: BrowserContext
    page: Page
    base_url: str
    errors: list[str] = field(default_factory=list)
    refusals: set[tuple[int, str]] = field(default_factory=set)
    """``(status, url)`` of the refusals the test asks for (see :meth:`allow_refusal`)."""

    def __post_init__(self) -> None:
        self.page.on("console", self._on_console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"{self.name}: {exc}"))
        # The client asks in the page: a browser dialog is a defect.
        self.page.on("dialog", self._on_dialog)

    def _on_dialog(self, dialog: Dialog) -> None:
        self.errors.append(f"{self.name}: a browser dialog opened: {dialog.message!r}")
        dialog.dismiss()

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            where = message.location.get("url", "")
            if self._is_allowed_refusal(message.text, where):
                return
            self.errors.append(f"{self.name}: console error: {message.text} ({where})")

    def allow_refusal(self, status: int, path: str) -> None:
        """The test makes the server refuse a request to ``path`` with ``status`` (a wrong
        password, say): the browser's console line for that refusal is no error of the page's."""
        self.refusals.add((status, self.base_url + path))

    def _is_allowed_refusal(self, text: str, url: str) -> bool:
        found = re.match(
            r"Failed to load resource: the server responded with a status of (\d+)", text
        )
        return found is not None and (int(found.group(1)), url) in self.refusals

    # -- the server's truth, with this tab's cookie ---------------------------------------

    def api(self, path: str) -> Any:
        response = self.page.request.get(self.base_url + path)
        assert response.ok, f"{self.name}: GET {path}: {response.status} {response.text()}"
        return response.json()

    def api_post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        response = self.page.request.post(self.base_url + path, data=body or {})
        assert response.ok, f"{self.name}: POST {path}: {response.status} {response.text()}"
        return response.json()

    def snapshot(self, match_id: str) -> dict[str, Any]:
        """``{"version": V, "match": {...}}`` as this tab's guest sees it."""
        body: dict[str, Any] = self.api(f"/api/matches/{match_id}")
        return body

    # -- the page ---------------------------------------------------------------------------

    def version(self) -> int | None:
        text = self.page.locator("#match").first.get_attribute("data-version")
        return int(text) if text is not None and text.isdigit() else None

    def wait_version(self, version: int) -> None:
        """Until the page has rendered ``version`` (or a later one)."""
        try:
            self.page.wait_for_function(VERSION_AT_LEAST_JS, arg=version)
        except Exception as exc:
            raise AssertionError(
                f"{self.name}: #match never reached data-version {version} (shows {self.version()})"
            ) from exc

    def scan_tiles(self) -> set[str]:
        """``data-tile`` values in the DOM now, outside the board and the settlement."""
        return set(self.page.evaluate(SCAN_JS))

    def take_sightings_tagged(self) -> list[tuple[str, int]]:
        """``(tile, version)`` for each ``data-tile`` that appeared outside the board and the
        settlement since the last call; ``version`` is what ``#match`` showed then (0: none)."""
        taken: list[dict[str, str | None]] = self.page.evaluate(TAKE_SIGHTINGS_JS)
        tagged = []
        for seen in taken:
            version = seen["version"] or ""
            tagged.append((str(seen["tile"]), int(version) if version.isdigit() else 0))
        return tagged

    def take_sightings(self, since_version: int = 0) -> set[str]:
        """The tiles of :meth:`take_sightings_tagged` on pages showing ``since_version`` or
        later."""
        return {tile for tile, version in self.take_sightings_tagged() if version >= since_version}

    def hand(self) -> list[str]:
        tiles = self.page.locator("#hand .tile[data-tile]")
        return sorted(t.get_attribute("data-tile") or "" for t in tiles.all())

    def legal_hand(self) -> list[str]:
        tiles = self.page.locator('#hand .tile[data-tile][data-legal="true"]')
        return sorted(t.get_attribute("data-tile") or "" for t in tiles.all())

    def visible(self, selector: str) -> Locator:
        return self.page.locator(selector).filter(visible=True)

    def number(self, selector: str) -> int | None:
        """The first whole number in the text of the first element matching ``selector``."""
        locator = self.page.locator(selector)
        if locator.count() == 0:
            return None
        found = re.search(r"\d+", locator.first.text_content() or "")
        return int(found.group()) if found else None

    def clock_seconds(self, seat: str) -> int:
        """The bank shown on ``[data-clock=seat]`` (m:ss) in seconds."""
        text = self.page.locator(f"[data-clock={seat}]").first.text_content() or ""
        found = re.search(r"(\d+):(\d\d)", text)
        assert found, f"{self.name}: [data-clock={seat}] shows no m:ss: {text!r}"
        return int(found.group(1)) * 60 + int(found.group(2))

    def shot(self, name: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def resign(tab: Tab) -> None:
    """Press Resign and answer its in-page confirmation yes."""
    tab.page.locator("[data-action=resign]").click()
    question = tab.page.locator("#confirm-box")
    expect(question).to_be_visible()
    question.locator("[data-action=confirm-yes]").click()
    expect(question).to_be_hidden()


def eventually(tab: Tab, read: Callable[[], T], ok: Callable[[T], bool], what: str) -> T:
    """Poll ``read()`` until ``ok`` holds (the page may render a moment after its version)."""
    deadline = time.monotonic() + 10.0
    value = read()
    while not ok(value):
        if time.monotonic() > deadline:
            raise AssertionError(f"{tab.name}: {what}; the page shows {value!r}")
        tab.page.wait_for_timeout(50)
        value = read()
    return value


# -- the lobby ------------------------------------------------------------------------------


def enter_name(tab: Tab, name: str) -> None:
    """Open the lobby and save a display name; done when the server knows the guest."""
    tab.page.goto(tab.base_url + "/")
    tab.page.locator("#name-input").fill(name)
    tab.page.locator("[data-action=save-name]").click()
    eventually(
        tab,
        lambda: tab.page.request.get(tab.base_url + "/api/session").status,
        lambda status: status == 200,
        f"saving the name {name!r} made no guest session (GET /api/session)",
    )


def invite_link(tab: Tab) -> str:
    link = tab.page.locator("#invite-link")
    expect(link).to_be_visible()
    text: str = link.evaluate(
        "(el) => el.value || el.getAttribute('href') || el.textContent || ''"
    ).strip()
    return text


def match_id_of(url: str) -> str:
    found = re.search(r"/m/([A-Za-z0-9_-]+)$", url)
    assert found, f"not an invitation link: {url!r}"
    return found.group(1)


def api_guest(tab: Tab, name: str) -> None:
    """A guest for this tab's context without the lobby (tests that are about something else)."""
    tab.api_post("/api/session", {"name": name})


# -- accounts in the lobby ------------------------------------------------------------------


def session_player(tab: Tab) -> dict[str, Any] | None:
    """``GET /api/session``'s player for this tab's cookie, or None when it has no identity."""
    response = tab.page.request.get(tab.base_url + "/api/session")
    if response.status == 401:
        return None
    assert response.ok, f"{tab.name}: GET /api/session: {response.status} {response.text()}"
    player: dict[str, Any] = response.json()["player"]
    return player


def account_form(tab: Tab, kind: str) -> Locator:
    """The lobby's ``#{kind}-form`` (claim, login, password), opened by its button if closed."""
    form = tab.page.locator(f"#{kind}-form")
    if form.is_hidden():
        tab.page.locator(f"[data-action=open-{kind}]").click()
    expect(form).to_be_visible()
    return form


def fill_form(form: Locator, action: str, fields: dict[str, str]) -> None:
    """Type each ``#id`` field's value, then press the ``[data-action=action]`` submit button;
    done when the form has its answer (the button is enabled again)."""
    for field_id, value in fields.items():
        form.locator(f"#{field_id}").fill(value)
    submit = form.locator(f"[data-action={action}]")
    submit.click()
    expect(submit).to_be_enabled()


def log_in_by_form(tab: Tab, name: str, password: str) -> Locator:
    form = account_form(tab, "login")
    fill_form(form, "submit-login", {"login-name": name, "login-password": password})
    return form


def expect_account(tab: Tab, name: str) -> None:
    """The lobby shows this tab logged in to the account ``name``."""
    status = tab.page.locator("#account-status")
    expect(status).to_have_class(re.compile(r"\bis-account\b"))
    expect(status).to_contain_text(name)
    expect(tab.page.locator("[data-action=log-out]")).to_be_visible()
    expect(tab.page.locator("#name-row")).to_be_hidden()


# -- playing ----------------------------------------------------------------------------------


def check_offer(tab: Tab, match: dict[str, Any]) -> None:
    """The page offers exactly what the server's ``legal`` allows (R8.1)."""
    legal = match["legal"]
    assert legal is not None, f"{tab.name}: not this seat's decision"
    own = sorted(match["hand"] or [])
    if match["phase"] in ("opening", "playing"):
        eventually(tab, tab.hand, lambda hand: hand == own, f"#hand .tile should be {own}")
        want = sorted(p["tile"] for p in legal["plays"])
        eventually(
            tab, tab.legal_hand, lambda tiles: tiles == want, f"data-legal=true tiles: {want}"
        )
    _shown_iff(tab, "[data-action=draw]", bool(legal["can_draw"]))
    if match["phase"] == "auction" and legal["bids"]:
        check_bids(tab, legal["bids"])
    if match["phase"] == "auction":
        for action in ("decline", "accept"):
            _shown_iff(tab, f"#auction [data-action={action}]", bool(legal[f"can_{action}"]))


QUICK_STEPS = (0, 5, 10, 20)
"""The auction's quick choices: the minimum bid, and 5, 10 and 20 above it."""


BID_TAG_JS = "b => (b.querySelector('.bid-btn-tag') || {textContent: ''}).textContent.split(' ')[0]"
"""A bid button's discount tag's figure ("−15"), or "" when it has none."""


def discount_tag(bid: dict[str, Any]) -> str:
    """The tag of a bid the server discounts (R6.4): what its ``cost`` takes off its amount."""
    return f"\u2212{bid['amount'] - bid['cost']}" if bid["cost"] < bid["amount"] else ""


def check_bids(tab: Tab, bids: list[dict[str, Any]]) -> None:
    """Quick buttons for exactly the legal amounts among the minimum, +5, +10 and +20, each
    marked when it costs the whole balance and tagged with the discount the server's cost
    shows (R6.4); a stepper over every legal amount when there are more."""
    least = bids[0]["amount"]
    quick = [b for b in bids if b["amount"] - least in QUICK_STEPS]
    want = [
        (str(b["amount"]), "true" if b.get("loses_match") else "false", discount_tag(b))
        for b in quick
    ]
    eventually(
        tab,
        lambda: [
            (
                b.get_attribute("data-amount") or "",
                b.get_attribute("data-loses-match") or "",
                str(b.evaluate(BID_TAG_JS)),
            )
            for b in tab.visible("#auction .bid-quick [data-action=bid]").all()
        ],
        lambda shown: shown == want,
        f"#auction quick bids {want}",
    )
    stepper = tab.page.locator("#auction .bid-slider")
    if len(bids) == len(quick):
        expect(stepper).to_have_count(0)
        return
    amounts = " ".join(str(b["amount"]) for b in bids)
    expect(stepper).to_have_attribute("data-amounts", amounts)


def click_bid(tab: Tab, bid: dict[str, Any]) -> None:
    """A quick button when the amount has one, else the stepper moved to it; a bid costing the
    whole balance is confirmed in the page."""
    amount = str(bid["amount"])
    quick = tab.page.locator(f'#auction .bid-quick [data-action=bid][data-amount="{amount}"]')
    if quick.count():
        quick.first.click()
    else:
        chosen = tab.page.locator("#auction .bid-chosen [data-action=bid]")
        for _ in range(80):
            shown = int(chosen.get_attribute("data-amount") or "0")
            if shown == bid["amount"]:
                break
            step = "bid-more" if shown < bid["amount"] else "bid-less"
            tab.page.locator(f"#auction [data-action={step}]").click()
        expect(chosen).to_have_attribute("data-amount", amount)
        chosen.click()
    if bid.get("loses_match"):
        question = tab.page.locator("#confirm-box")
        expect(question).to_contain_text(amount)
        question.locator("[data-action=confirm-yes]").click()


def _shown_iff(tab: Tab, selector: str, allowed: bool) -> None:
    eventually(
        tab,
        lambda: tab.visible(selector).count(),
        lambda n: min(n, 1) == int(allowed),
        f"{selector} shown exactly when it is legal ({allowed})",
    )


def click_choice(tab: Tab, match: dict[str, Any], choice: Choice) -> None:
    """Give ``choice`` by clicks: a tile (then its open place when it has several), Draw, or an
    auction button."""
    kind, argument, place = choice
    page = tab.page
    if kind == "play":
        page.locator(f'#hand .tile[data-tile="{argument}"]').click()
        places = next(p["places"] for p in match["legal"]["plays"] if p["tile"] == argument)
        if len(places) > 1:
            eventually(
                tab,
                lambda: sorted(
                    {p.get_attribute("data-place") or "" for p in tab.visible("[data-place]").all()}
                ),
                lambda shown: shown == sorted(places),
                f"selecting {argument} should show exactly its open places {sorted(places)}",
            )
            tab.visible(f'[data-place="{place}"]').first.click()
    elif kind == "draw":
        tab.visible("[data-action=draw]").first.click()
    elif kind in ("decline", "accept"):
        tab.visible(f"#auction [data-action={kind}]").first.click()
    elif kind == "bid":
        click_bid(tab, next(b for b in match["legal"]["bids"] if b["amount"] == int(argument)))
    else:
        raise AssertionError(f"unknown choice {choice!r}")


def press_start(tab: Tab) -> None:
    tab.visible("[data-action=start]").first.click()


def wait_past(tab: Tab, version: int) -> None:
    """Until the page shows a version after ``version`` (its command was applied)."""
    tab.wait_version(version + 1)


def focus_hand_tile(tab: Tab, tile: str) -> None:
    """Keyboard only: Tab into the hand, then arrows to ``tile``."""
    page = tab.page
    for _ in range(60):
        if page.evaluate(FOCUSED_TILE_JS) is not None:
            break
        page.keyboard.press("Tab")
    else:
        raise AssertionError(f"{tab.name}: Tab never reached a #hand .tile")
    for key in ("ArrowRight", "ArrowLeft"):
        for _ in range(16):
            if page.evaluate(FOCUSED_TILE_JS) == tile:
                return
            page.keyboard.press(key)
    raise AssertionError(
        f"{tab.name}: the arrow keys never focused #hand .tile[data-tile={tile}] "
        f"(focus on {page.evaluate(FOCUSED_TILE_JS)!r})"
    )


def focus_place(tab: Tab, places: list[str]) -> str:
    """Keyboard only: Tab from the selected tile to one of its open places."""
    page = tab.page
    for _ in range(80):
        focused = page.evaluate(FOCUSED_PLACE_JS)
        if focused in places:
            return str(focused)
        page.keyboard.press("Tab")
    raise AssertionError(f"{tab.name}: Tab never reached one of the open places {places}")


def expect_number(tab: Tab, selector: str, want: int, what: str = "") -> None:
    """Until the first whole number shown by ``selector`` is ``want``."""
    eventually(
        tab,
        lambda: tab.number(selector),
        lambda shown: shown == want,
        what or f"{selector} should show {want}",
    )


def shown_match_id(tab: Tab, creator: str, mode: str) -> str:
    """The match this page shows: from its URL (``/m/{id}``), else the newest live match of
    ``mode`` created by ``creator`` in the lobby; waited for, as a click that creates the match
    answers only once the server has stored it."""

    def find() -> str | None:
        found = re.search(r"/m/([A-Za-z0-9_-]+)", tab.page.url)
        if found:
            return found.group(1)
        lobby = tab.api("/api/lobby")
        for item in lobby["live"] + lobby["open_challenges"]:
            if item["first"] == creator and item["mode"] == mode:
                match_id: str = item["id"]
                return match_id
        return None

    shown = eventually(
        tab, find, lambda found: found is not None, f"no {mode} match of {creator!r} in the lobby"
    )
    assert shown is not None
    return shown


def seated(ann: Tab, bob: Tab) -> tuple[str, dict[str, Tab]]:
    """Ann's invitation taken by Bob (guests made without the lobby), both on its page; the
    match's id and the tabs by seat."""
    api_guest(ann, "Ann")
    api_guest(bob, "Bob")
    match_id: str = ann.api_post("/api/matches", {"mode": "invite"})["id"]
    bob.api_post(f"/api/matches/{match_id}/join")
    players = {"first": ann, "second": bob}
    for tab in players.values():
        tab.page.goto(f"{tab.base_url}/m/{match_id}")
        expect(tab.page.locator("#match")).to_be_attached()
    return match_id, players
