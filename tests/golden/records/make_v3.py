# mypy: ignore-errors
"""How the ``v3_*.json`` golden records were made: run once, with release ``6fbafbc``'s own code.

Record format 3 was written by the releases from ``fae858c`` up to ``6fbafbc``, the last before
format 4 (D7). This script is that release's server, not this tree's: it is run from a checkout
of ``6fbafbc`` with that checkout's ``src`` installed (see ``README.md``), so it is written
against that release's API and is neither type-checked against this tree nor collected by pytest.
Never run it to replace the kept files: they are users' data as that release wrote it.

Every match is played through the release's own app (``create_app`` on an
``InMemoryStore``, its lifespan started, so the lag monitor and every timer run): players are
made over HTTP (``POST /api/session``, ``POST /api/account``), matches are created and joined
over HTTP, each command goes to the match's actor as its socket hands it over
(``MatchActor.submit`` with the version it answers and the time it arrived), and the record is
the body of ``GET /api/matches/{id}/record`` written in the compact form of ``specbid replay
--export``. Time is virtual: one clock, read by the event loop, ``time.monotonic_ns`` and
``time.time_ns`` (the service's monotonic and wall sources), that jumps to the loop's next timer
when nothing is ready; while a worker thread or process computes (a password's hash, the
computer's search) the loop waits for it in real time and the clock stands.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import selectors
import sys
import tempfile
import time
from pathlib import Path

import httpx

from spectacular_bid.rules.phase import Phase
from spectacular_bid.rules.seats import SEATS, Seat
from spectacular_bid.service.commands import ResignMatch, Reveal, Start, move_of
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.web.app import create_app
from spectacular_bid.web.settings import WebSettings

WALL_START_NS = time.time_ns()
MONO_START_NS = time.monotonic_ns()


class VirtualClock:
    """One clock in nanoseconds for the loop, the monotonic source and the wall source."""

    def __init__(self) -> None:
        self.elapsed_ns = 0

    def monotonic_ns(self) -> int:
        return MONO_START_NS + self.elapsed_ns

    def time_ns(self) -> int:
        return WALL_START_NS + self.elapsed_ns

    def advance(self, seconds: float) -> None:
        self.elapsed_ns += max(1, math.ceil(seconds * 1e9))

    def install(self) -> None:
        self.real = (time.monotonic_ns, time.time_ns)
        """The service's sources read these two (``service.timesource``); the float ones stay
        real, for the standard library's waits in threads (a process pool's, for one)."""
        time.monotonic_ns = self.monotonic_ns
        time.time_ns = self.time_ns

    def uninstall(self) -> None:
        time.monotonic_ns, time.time_ns = self.real


class VirtualSelector(selectors.DefaultSelector):
    """Ready I/O first; else, while no worker computes, jump the clock by the loop's timeout."""

    def __init__(self, clock: VirtualClock) -> None:
        super().__init__()
        self.clock = clock
        self.in_flight = 0

    def select(self, timeout=None):
        ready = super().select(0)
        if ready or timeout == 0:
            return ready
        if self.in_flight:
            return super().select(0.05 if timeout is None else min(timeout, 0.05))
        if timeout is None:
            return super().select(None)
        self.clock.advance(timeout)
        return []


class VirtualLoop(asyncio.SelectorEventLoop):
    def __init__(self, clock: VirtualClock) -> None:
        self._virtual = VirtualSelector(clock)
        super().__init__(self._virtual)
        self._clock = clock

    def time(self) -> float:
        return self._clock.monotonic_ns() / 1e9

    def run_in_executor(self, executor, func, *args):
        future = super().run_in_executor(executor, func, *args)
        self._virtual.in_flight += 1

        def done(_future: object) -> None:
            self._virtual.in_flight -= 1

        future.add_done_callback(done)
        return future


CLOCK = VirtualClock()
"""Installed by :func:`main` only: the computer's worker processes import this module too, and
keep real time."""

PASSWORD = "correct horse battery"


def export(record: dict, path: Path) -> None:
    """As ``specbid replay --export`` writes a record."""
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
    path.write_text(text, encoding="utf-8")
    print(
        f"{path.name}: {len(record['versions'])} versions, {len(record['rounds'])} rounds, "
        f"{record['match']['status']} {record['match']['winner']} {record['match']['reason']} "
        f"rated={record['match']['rated']}"
    )


class Server:
    """The release's app, its service and an HTTP client for it."""

    def __init__(self, **settings: object) -> None:
        self.app = create_app(
            WebSettings(static_dir=Path("/nonexistent"), **settings), store=InMemoryStore()
        )
        self.service = self.app.state.service
        self._http: httpx.AsyncClient | None = None

    async def __aenter__(self) -> Server:
        self._lifespan = self.app.router.lifespan_context(self.app)
        await self._lifespan.__aenter__()
        transport = httpx.ASGITransport(app=self.app)
        self._http = httpx.AsyncClient(transport=transport, base_url="http://testserver")
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._http.aclose()
        await self._lifespan.__aexit__(*exc)

    async def call(self, method: str, url: str, token: str | None = None, **kw: object) -> dict:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = await self._http.request(method, url, headers=headers, **kw)
        assert response.status_code in (200, 201), (url, response.status_code, response.text)
        return response.json()

    async def person(self, name: str, *, account: bool) -> tuple[str, str]:
        """A guest (``POST /api/session``), made an account when asked; its id and token."""
        made = await self.call("POST", "/api/session", json={"name": name})
        token = made["token"]
        if account:
            token = (await self.call("POST", "/api/account", token, json={"password": PASSWORD}))[
                "token"
            ]
        return made["player"]["id"], token

    async def match(self, token: str, **body: object) -> str:
        return (await self.call("POST", "/api/matches", token, json=body))["id"]

    async def join(self, match_id: str, token: str) -> None:
        await self.call("POST", f"/api/matches/{match_id}/join", token)

    async def record(self, match_id: str) -> dict:
        return await self.call("GET", f"/api/matches/{match_id}/record")


def pause(rng: random.Random, slow_every: int = 0, scale: float = 1.0) -> float:
    """A player's thinking: 0.3 to 4 s, or now and then 10.5 to 14 s (beyond the delay);
    times ``scale``."""
    if slow_every and rng.randrange(slow_every) == 0:
        return rng.uniform(10.5, 14.0) * scale
    return rng.uniform(0.3, 4.0) * scale


async def play(
    service,
    match_id: str,
    players: dict[Seat, str],
    rng: random.Random,
    until=lambda state: False,
    slow_every: int = 0,
    shared: bool = False,
    scale: float = 1.0,
) -> None:
    """Random legal moves by the people in ``players`` (Start between rounds, Reveal at a
    hand-over), each after a pause, until ``until(state)`` or the match ends; a seat not in
    ``players`` (the computer) acts on its own."""
    actor = service.get(match_id)
    while actor.is_live and not until(actor.state):
        state = actor.state
        if state.match.phase is Phase.AWAITING_DEAL:
            pressing = [s for s in SEATS if s not in state.ready and s in players]
            if not pressing:
                await asyncio.sleep(0.05)
                continue
            seat, command = pressing[0], Start()
        elif state.handover is not None:
            seat, command = state.handover, Reveal()
        else:
            mine = [a for a in state.match.legal_actions() if a.seat in players]
            if not mine:
                await asyncio.sleep(0.05)
                continue
            action = rng.choice(mine)
            seat, command = action.seat, move_of(action)
        await asyncio.sleep(pause(rng, slow_every, scale))
        if actor.state.version != state.version or not actor.is_live:
            continue  # something happened meanwhile: look again
        await actor.submit(
            players[seat], command, state.version, service.now_ms(), seat if shared else None
        )


def seated(service, match_id: str) -> dict[Seat, str]:
    """Each seat's player id, as the match's actor has it."""
    seats = service.get(match_id).state.seats
    return {seat: seats[seat].id for seat in SEATS if seats[seat] is not None}


async def resign_not_on_move(service, match_id: str, players: dict[Seat, str]) -> None:
    actor = service.get(match_id)
    running = actor.state.clock.running
    seat = running.other if running is not None else Seat.FIRST
    await actor.submit(players[seat], ResignMatch(), actor.state.version, service.now_ms())


async def wait_until_over(service, match_id: str) -> None:
    actor = service.get(match_id)
    while actor.is_live:
        await asyncio.sleep(1.0)


def too_long(state) -> bool:
    return state.version > 250


# -- the matches ------------------------------------------------------------------------------


async def rated_resign(out: Path) -> None:
    """An open challenge between two accounts on the rules' clock, random legal moves into
    round 3, resigned by the seat not on move: rated. Random matches often end sooner (R1.5):
    seeds are tried in turn until one is still going in round 3."""
    for seed in range(3, 100):
        rng = random.Random(seed)
        async with Server(fixed_deck_seed=seed) as server:
            _ann, ann_token = await server.person("Ann", account=True)
            _bo, bo_token = await server.person("Bo", account=True)
            match_id = await server.match(ann_token, mode="open")
            await asyncio.sleep(2.5)
            await server.join(match_id, bo_token)
            players = seated(server.service, match_id)

            def in_round_3(state) -> bool:
                return state.match.round_number >= 3 and state.match.phase is Phase.PLAYING

            await play(server.service, match_id, players, rng, in_round_3, slow_every=6)
            if not server.service.get(match_id).is_live:
                continue
            await asyncio.sleep(1.7)
            await resign_not_on_move(server.service, match_id, players)
            print(f"seed {seed}")
            export(await server.record(match_id), out / "v3_rated_resign.json")
            return
    raise AssertionError("no seed played into round 3")


async def flag_never_decided(out: Path) -> None:
    """Two accounts, an invitation on the rules' clock: the first seat decides, the second
    never does and is flagged at its delay plus its whole bank (R7.7), as format 3 did before
    D7 existed: a loss on time, rated. Deck seeds are tried in turn until the first seat is
    the first to act."""
    for seed in range(71, 200):
        rng = random.Random(seed)
        async with Server(fixed_deck_seed=seed) as server:
            _ann, ann_token = await server.person("Ann", account=True)
            _bo, bo_token = await server.person("Bo", account=True)
            match_id = await server.match(ann_token, mode="invite")
            await asyncio.sleep(4.0)
            await server.join(match_id, bo_token)
            players = seated(server.service, match_id)
            actor = server.service.get(match_id)
            for seat in SEATS:  # both press Start (D3)
                await asyncio.sleep(1.2)
                now = server.service.now_ms()
                await actor.submit(players[seat], Start(), actor.state.version, now)
            if actor.state.clock.running is not Seat.FIRST:
                continue

            def second_to_decide(state) -> bool:
                return state.clock.running is Seat.SECOND

            await play(
                server.service, match_id, {Seat.FIRST: players[Seat.FIRST]}, rng, second_to_decide
            )
            await wait_until_over(server.service, match_id)
            print(f"seed {seed}")
            export(await server.record(match_id), out / "v3_flag_never_decided.json")
            return
    raise AssertionError("no seed had the first seat act first")


async def custom_clock_flag(out: Path) -> None:
    """An account against a guest on a casual clock (bank 2000 ms, delay 1000 ms): a few
    moves, then the seat on move sends nothing and is flagged at the deadline (R7.7);
    unrated (a guest, and not the rules' clock)."""
    rng = random.Random(11)
    async with Server(fixed_deck_seed=111) as server:
        ann, ann_token = await server.person("Ann", account=True)
        bo, bo_token = await server.person("Bo", account=False)
        match_id = await server.match(ann_token, mode="invite", bank_ms=2000, delay_ms=1000)
        await asyncio.sleep(3.0)
        await server.join(match_id, bo_token)
        players = {Seat.FIRST: ann, Seat.SECOND: bo}
        fast = random.Random(12)

        actor = server.service.get(match_id)
        sent = 0
        while actor.is_live and sent < 6:
            state = actor.state
            if state.match.phase is Phase.AWAITING_DEAL:
                seat = next(s for s in SEATS if s not in state.ready)
                command = Start()
            else:
                action = rng.choice(state.match.legal_actions())
                seat, command = action.seat, move_of(action)
            await asyncio.sleep(fast.uniform(0.2, 1.4))
            if actor.state.version != state.version:
                continue
            await actor.submit(players[seat], command, state.version, server.service.now_ms())
            sent += 1
        await wait_until_over(server.service, match_id)
        export(await server.record(match_id), out / "v3_custom_clock_flag.json")


async def guests_zero_balance(out: Path) -> None:
    """Two guests, an invitation on the rules' clock, random legal moves to the end by score:
    unrated, since format 3 rates a match only between two accounts. Seeds are tried in turn
    until a match ends so within 250 versions (a record of a size a test replays quickly)."""
    for seed in range(5, 200):
        rng = random.Random(seed)
        async with Server(fixed_deck_seed=seed) as server:
            _ann, ann_token = await server.person("Ann", account=False)
            _bo, bo_token = await server.person("Bo", account=False)
            match_id = await server.match(ann_token, mode="invite")
            await asyncio.sleep(6.0)
            await server.join(match_id, bo_token)
            players = seated(server.service, match_id)
            await play(server.service, match_id, players, rng, too_long, slow_every=8)
            if server.service.get(match_id).is_live:
                continue
            print(f"seed {seed}")
            export(await server.record(match_id), out / "v3_guests_zero_balance.json")
            return
    raise AssertionError("no seed ended in time")


async def shared(out: Path) -> None:
    """An account's shared device, both seats one player, random legal moves with a Reveal at
    every hand-over (R7.5) to the end by score: unrated. Seeds are tried in turn as above."""
    for seed in range(9, 200):
        rng = random.Random(seed)
        async with Server(fixed_deck_seed=seed) as server:
            _ann, ann_token = await server.person("Ann", account=True)
            match_id = await server.match(ann_token, mode="shared")
            players = seated(server.service, match_id)
            await play(server.service, match_id, players, rng, too_long, shared=True)
            if server.service.get(match_id).is_live:
                continue
            print(f"seed {seed}")
            export(await server.record(match_id), out / "v3_shared.json")
            return
    raise AssertionError("no seed ended in time")


async def join_timeout(out: Path) -> None:
    """An account's invitation that nobody joins: aborted at the release's join timeout (D3)."""
    async with Server() as server:
        _ann, ann_token = await server.person("Ann", account=True)
        match_id = await server.match(ann_token, mode="invite")
        await wait_until_over(server.service, match_id)
        export(await server.record(match_id), out / "v3_join_timeout.json")


async def bot(out: Path) -> None:
    """A guest against the computer at level 3 (format 3's bot matches): random legal moves of
    the person, the computer's own searched answers, into round 2, then the person resigns."""
    rng = random.Random(13)
    async with Server(fixed_deck_seed=131, bot_workers=1) as server:
        ann, ann_token = await server.person("Ann", account=False)
        match_id = await server.match(ann_token, mode="bot", level=3)
        players = {Seat.FIRST: ann}

        def in_round_2(state) -> bool:
            return state.match.round_number >= 2 and state.match.phase is Phase.PLAYING

        await play(server.service, match_id, players, rng, in_round_2)
        actor = server.service.get(match_id)
        if actor.is_live:
            await asyncio.sleep(2.2)
            await actor.submit(ann, ResignMatch(), actor.state.version, server.service.now_ms())
        export(await server.record(match_id), out / "v3_bot.json")


async def handed_over(out: Path) -> None:
    """Two accounts' invitation on server A, random legal moves for 15 versions; mid-decision A
    leaves as on a SIGTERM with a peer alive (``Handover.leave``: a hand-over version stands the
    clocks and the match's owner row moves to B), B resumes it from the store
    (``Handover.adopt_owned``: a resume version with the pause), and the match goes on at B
    for eight more versions, until the seat not on move resigns: rated. Seeds are tried in
    turn until the random play is still going then. Real time, on one SQLite database."""
    for seed in range(17, 100):
        if await handed_over_with(seed, out):
            print(f"seed {seed}")
            return
    raise AssertionError("no seed was still going at B")


async def handed_over_with(seed: int, out: Path) -> bool:
    """One try of :func:`handed_over`: whether its match was still going when resigned."""
    from spectacular_bid.service.accounts import Accounts
    from spectacular_bid.service.handover import Handover
    from spectacular_bid.service.matches import MatchService
    from spectacular_bid.service.passwords import Passwords
    from spectacular_bid.service.ports import MatchMode
    from spectacular_bid.store.leases import Lease
    from spectacular_bid.store.migrate import upgrade_to_head
    from spectacular_bid.store.repository import SqlStore

    settings = WebSettings(static_dir=Path("/nonexistent"), fixed_deck_seed=seed)
    settings = settings.service_settings()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{folder}/specbid.sqlite3"
        await upgrade_to_head(url)
        async with (
            SqlStore.open(url, lease=Lease.new()) as store_a,
            SqlStore.open(url, lease=Lease.new()) as store_b,
        ):
            a, b = MatchService(store_a, settings), MatchService(store_b, settings)
            await a.start()
            await b.start()
            try:
                logins = Accounts(store_a, a.guests, Passwords(), a.wall_ms)
                people = []
                for name in ("Ann", "Bo"):
                    guest, token = await a.guests.create(name, a.wall_ms())
                    person = await logins.resolve(await logins.claim(guest, token, PASSWORD))
                    people.append(person)
                ann, bo = people
                actor = await a.create_match(ann, MatchMode.INVITE)
                await asyncio.sleep(1.5)
                assert await a.join(actor.id, bo) is Seat.SECOND
                players = {Seat.FIRST: ann.id, Seat.SECOND: bo.id}
                rng = random.Random(seed)

                def mid_decision(state) -> bool:
                    return state.version >= 15 and state.clock.running is not None

                await play(a, actor.id, players, rng, mid_decision, scale=0.25)
                if not a.get(actor.id).is_live:
                    return False
                await asyncio.sleep(0.8)
                handed = await Handover(a).leave()
                assert handed is not None
                assert handed.match_ids == [actor.id], handed
                await a.let_go(handed.match_ids)
                await asyncio.sleep(0.4)  # the peer is told, or finds it at its next scan
                assert await Handover(b).adopt_owned() == [actor.id]

                resumed = b.get(actor.id).state.version

                def more(state) -> bool:
                    return state.version >= resumed + 8 and state.clock.running is not None

                await play(b, actor.id, players, rng, more, scale=0.25)
                if not b.get(actor.id).is_live:
                    return False
                await asyncio.sleep(0.6)
                await resign_not_on_move(b, actor.id, players)
                export(await b.record(actor.id), out / "v3_handed_over.json")
                return True
            finally:
                await a.stop()
                await b.stop()


MATCHES = {
    "rated_resign": rated_resign,
    "flag_never_decided": flag_never_decided,
    "custom_clock_flag": custom_clock_flag,
    "guests_zero_balance": guests_zero_balance,
    "shared": shared,
    "join_timeout": join_timeout,
    "bot": bot,
    "handed_over": handed_over,
}
REAL_TIME = frozenset({"handed_over"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("only", nargs="*", help=f"some of {', '.join(MATCHES)}")
    args = parser.parse_args()
    unknown = [name for name in args.only if name not in MATCHES]
    if unknown:
        parser.error(f"no such match: {unknown}")
    for name in args.only or MATCHES:
        if name in REAL_TIME:
            asyncio.run(MATCHES[name](args.out))
            continue
        CLOCK.install()
        loop = VirtualLoop(CLOCK)
        try:
            loop.run_until_complete(MATCHES[name](args.out))
        finally:
            loop.close()
            CLOCK.uninstall()
    sys.exit(0)


if __name__ == "__main__":
    main()
