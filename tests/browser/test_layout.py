"""The whole table on one screen (README "Play", docs/RULES.md R2.2 for what each view holds): every
phase of a match, measured by the layout checker (:mod:`.layoutcheck`) on the laptop sizes
1366×768, 1280×720, 1440×900 and 1920×1080 and the phone sizes 360×740, 390×844 and 412×915,
in English, Ukrainian and Finnish.

One match is played by commands over the protocol (:mod:`.scripted`) from the server's fixed deck
and a seeded choice policy, and stops at each phase: a tile chosen with its places on an early
board, a draw, a long board whose lines have turned, the settlement, an auction with the amount
stepper, the end with its result and rematch, a spectator, the replay. Each seat is shown by two
pages, a laptop's and a phone's (a phone is a context of its own: touch, mobile viewport); each
page is measured in each language at each of its sizes by resizing it, so no phase is played
more than once. Every case's screenshot is saved under ``test-artifacts/screenshots/layout/``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from .conftest import Tabs
from .layoutcheck import FRAMES_JS, check
from .policy import Choice, branch_first, choices
from .scripted import ScriptedSeat, command_of, new_guest, open_seat, sign_in
from .server import BrowserServer, serve

pytestmark = pytest.mark.browser

LAPTOPS = ((1366, 768), (1280, 720), (1440, 900), (1920, 1080))
PHONES = ((360, 740), (390, 844), (412, 915))
LANGUAGES = ("en", "uk", "fi")
MOVE_SEED = 193
"""With the server's fixed deck (:data:`.server.DECK_SEED`) and :func:`branch_first`, round 1
lays 27 tiles with both branches of its spinner in 41 decisions, a draw on the way, and round 2
opens with an auction."""
NAMES = {"first": "Annabella-Maria Virtanen", "second": "Богдана Коваленко"}
"""Long names (24 is the most a name may have), one in Cyrillic."""
CLOCK = {"bank_ms": 900_000, "delay_ms": 120_000}
"""Long enough that no clock runs out while the pages are measured."""
LONG_BOARD = 18
"""The long board's case: this many tiles laid, both branches of the spinner open."""
PHONE_CONTEXT: dict[str, Any] = {"is_mobile": True, "has_touch": True}
EARLY_TILE_PX = {"laptop": 40, "phone": 28}
"""How wide a tile of an early board is drawn at the least: near the comfortable largest size
(static/js/board.js, TILE_PX), not ~30 px in an 880 px table."""

NOTICE_JS = """(text) => {
  const notices = document.querySelector('.notices');
  const p = document.createElement('p');
  p.className = 'notice notice-warn';
  p.dataset.test = 'notice';
  p.textContent = text;
  notices.append(p);
}"""
RATINGS_JS = """(ratings) => {
  document.querySelectorAll('.seat').forEach((seat, i) => {
    const who = seat.querySelector('.seat-who');
    if (who.querySelector('.seat-rating')) return;
    const span = document.createElement('span');
    span.className = 'seat-rating';
    span.dataset.test = 'rating';
    span.textContent = ratings[i % ratings.length];
    who.querySelector('.seat-name').after(span);
  });
}"""
UNDO_JS = "() => document.querySelectorAll('[data-test]').forEach((el) => el.remove())"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserServer]:
    # No round deals by itself while a settlement is measured (D3's grace).
    yield from serve(tmp_path_factory.mktemp("layout-server"), "--grace-ms", "900000")


@dataclass
class Screen:
    """One page showing the match: whose view, on which kind of device."""

    role: str
    kind: str
    page: Page

    @property
    def sizes(self) -> Sequence[tuple[int, int]]:
        return PHONES if self.kind == "phone" else LAPTOPS


@dataclass
class Table:
    server: BrowserServer
    tabs: Tabs
    match_id: str
    seats: dict[str, ScriptedSeat]
    screens: list[Screen] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    cases: int = 0

    def open(self, role: str, token: str | None) -> None:
        for kind in ("laptop", "phone"):
            extra = PHONE_CONTEXT if kind == "phone" else {}
            size = (PHONES if kind == "phone" else LAPTOPS)[0]
            tab = self.tabs.open(
                f"{role}-{kind}",
                viewport={"width": size[0], "height": size[1]},
                reduced_motion="reduce",
                **extra,
            )
            if token is not None:
                sign_in(tab.context, self.server.url, token)
            self.screens.append(Screen(role, kind, tab.page))

    def shown(self, roles: Sequence[str]) -> list[Screen]:
        return [screen for screen in self.screens if screen.role in roles]

    def goto(self, path: str, roles: Sequence[str]) -> None:
        for screen in self.shown(roles):
            screen.page.goto(self.server.url + path)

    def wait(self) -> None:
        """Every match page shows the match's current version."""
        version = self.seats["first"].read()["version"]
        for screen in self.screens:
            if "/m/" in screen.page.url:
                screen.page.wait_for_function(
                    "(v) => Number(document.querySelector('#match')?.dataset.version) >= v",
                    arg=version,
                )

    def measure(
        self, phase: str, roles: Sequence[str], required: Sequence[str] = (), **how: Any
    ) -> None:
        for screen in self.shown(roles):
            self.measure_screen(screen, phase, required, **how)

    def measure_screen(
        self,
        screen: Screen,
        phase: str,
        required: Sequence[str] = (),
        sizes: Sequence[tuple[int, int]] | None = None,
        languages: Sequence[str] = LANGUAGES,
        tiles_fill: bool = False,
    ) -> None:
        page = screen.page
        for lang in languages:
            if page.evaluate("() => document.documentElement.lang") != lang:
                page.locator("#lang").select_option(lang)
                expect(page.locator("html")).to_have_attribute("lang", lang)
                page.evaluate(FRAMES_JS)
            for width, height in sizes or screen.sizes:
                page.set_viewport_size({"width": width, "height": height})
                case = f"{width}×{height} {lang} {phase} {screen.role}"
                least = EARLY_TILE_PX[screen.kind] if tiles_fill else 0
                self.failures += check(page, case, required, least)
                self.cases += 1


def play_until(table: Table, rng: random.Random, stop: Any) -> dict[str, Any]:
    """Decide by the policy until ``stop(view)`` holds for the view of the seat to act (or of
    the first seat between rounds); that view."""
    for _ in range(200):
        first = table.seats["first"].read()["match"]
        seat = first["to_act"] or "first"
        view: dict[str, Any] = table.seats[seat].read()["match"]
        if stop(view):
            table.wait()
            return view
        if view["phase"] == "awaiting_deal":
            for name, scripted in table.seats.items():
                if not view["ready"][name]:
                    scripted.send({"type": "start"})
            continue
        choice: Choice = branch_first(choices(view["legal"]), rng)
        table.seats[seat].send(command_of(choice))
    raise AssertionError("the phase was never reached")


def several_places(view: dict[str, Any]) -> str | None:
    legal = view.get("legal") or {}
    for play in legal.get("plays") or []:
        if len(play["places"]) > 1 and view["phase"] == "playing":
            tile: str = play["tile"]
            return tile
    return None


def long_board(view: dict[str, Any]) -> bool:
    board = view.get("board") or {}
    tiles = board.get("tiles") or []
    joints = board.get("joints") or []
    branches = {j["old"].split(":")[1] for j in joints} & {"branchA", "branchB"}
    return view["phase"] == "playing" and len(tiles) >= LONG_BOARD and len(branches) == 2


def auction_bids(view: dict[str, Any]) -> list[str]:
    legal = view["legal"]
    needed = ["#auction .bid-quick [data-action=bid]", "#auction .bid-slider"]
    needed += [f"#auction [data-action={a}]" for a in ("decline", "accept") if legal[f"can_{a}"]]
    return needed


def test_every_phase_fits_every_screen_in_every_language(tabs: Tabs, server: BrowserServer) -> None:
    tokens = {seat: new_guest(server.url, name) for seat, name in NAMES.items()}
    created = httpx.post(
        f"{server.url}/api/matches",
        json={"mode": "invite", **CLOCK},
        headers={"Authorization": f"Bearer {tokens['first']}"},
    )
    match_id = created.json()["id"]
    joined = httpx.post(
        f"{server.url}/api/matches/{match_id}/join",
        headers={"Authorization": f"Bearer {tokens['second']}"},
    )
    assert joined.status_code == 200, joined.text
    with ExitStack() as stack:
        seats = {seat: open_seat(stack, server.url, match_id, t) for seat, t in tokens.items()}
        table = Table(server, tabs, match_id, seats)
        run_phases(table, tokens)
    assert not table.failures, (
        f"{len(table.failures)} layout failures in {table.cases} cases:\n"
        + "\n".join(table.failures)
    )


def run_phases(table: Table, tokens: dict[str, str]) -> None:
    for seat, token in tokens.items():
        table.open(seat, token)
    table.open("spectator", None)
    everyone = ("first", "second", "spectator")
    table.goto(f"/m/{table.match_id}", everyone)
    for scripted in table.seats.values():
        scripted.send({"type": "start"})
    rng = random.Random(MOVE_SEED)

    view = play_until(table, rng, lambda v: several_places(v) is not None)
    actor, other = view["viewer"], "second" if view["viewer"] == "first" else "first"
    tile = several_places(view)
    for screen in table.shown([actor]):
        screen.page.locator(f'#hand .tile[data-tile="{tile}"]').click()
        expect(screen.page.locator("#board [data-place]").first).to_be_attached()
    places = ["#board [data-place]", '#hand .tile[data-legal="true"]']
    table.measure("play", [actor], places, tiles_fill=True)
    table.measure("play", [other], tiles_fill=True)
    for screen in table.shown([actor]):
        # What other helpers add: a notice above the table and the ratings by the names.
        screen.page.evaluate(NOTICE_JS, "Make your first move within 25 s, or the match ends.")
        screen.page.evaluate(RATINGS_JS, ["1512", "1500?"])
        size = screen.sizes[:2]
        table.measure_screen(screen, "play+notice+ratings", places, sizes=size)
        screen.page.evaluate(UNDO_JS)

    view = play_until(table, rng, lambda v: bool(v.get("legal") and v["legal"]["can_draw"]))
    table.measure("draw", [view["viewer"]], ["[data-action=draw]"])

    view = play_until(table, rng, long_board)
    long_version = table.seats["first"].read()["version"]
    table.measure("long-board", [view["viewer"], "spectator"])

    play_until(table, rng, lambda v: v["phase"] == "awaiting_deal")
    table.measure("settlement", ["first"], ["[data-action=start]"])

    view = play_until(table, rng, lambda v: v["phase"] == "auction" and bool(v["legal"]))
    actor = view["viewer"]
    table.measure("auction", [actor], auction_bids(view))
    table.measure("auction", ["second" if actor == "first" else "first"])

    table.seats["first"].send({"type": "resign"})
    table.wait()
    ended = ["#result .result-actions a", "#rematch [data-action]"]
    table.measure("match-end", ["first", "second"], ended)

    table.goto(f"/replay/{table.match_id}#v={long_version}", ["spectator"])
    for screen in table.shown(["spectator"]):
        expect(screen.page.locator("#replay .board-tile").first).to_be_attached()
    table.measure("replay", ["spectator"], [".replay-controls [data-action=play]"])
