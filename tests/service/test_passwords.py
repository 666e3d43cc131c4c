"""Account passwords (PROTOCOL.md "Identity"): argon2id off the event loop, a bounded number at
once, weaker hashes replaced at login, and an unknown name indistinguishable from a wrong
password."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from argon2 import PasswordHasher

from spectacular_bid.service.passwords import (
    PASSWORD_MAX,
    PASSWORD_MIN,
    PasswordRuleError,
    Passwords,
    checked_password,
)
from spectacular_bid.service.refusals import ErrorCode, Rejection

QUICK = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
"""Weaker than the server's parameters: quick for tests, and a hash that needs rehashing."""


class Counting:
    """A hasher that takes 50 ms and counts how many of its calls overlap, and on which thread."""

    def __init__(self) -> None:
        self.inner = QUICK
        self.now = 0
        self.most = 0
        self.threads: set[int] = set()
        self.lock = threading.Lock()

    def _slow(self) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
            self.threads.add(threading.get_ident())
        time.sleep(0.05)  # a slow hash, simulated: the work whose concurrency is counted
        with self.lock:
            self.now -= 1

    def hash(self, password: str) -> str:
        self._slow()
        return self.inner.hash(password)

    def verify(self, hash: str, password: str) -> bool:
        self._slow()
        return self.inner.verify(hash, password)

    def check_needs_rehash(self, hash: str) -> bool:
        return False


async def test_the_server_hashes_with_argon2id_at_owasp_strength_or_more() -> None:
    stored = await Passwords().hash("correct horse")
    params = dict(p.split("=") for p in stored.split("$")[3].split(","))
    assert stored.startswith("$argon2id$")
    assert int(params["m"]) >= 19 * 1024
    assert int(params["t"]) >= 2
    assert int(params["p"]) >= 1


async def test_the_right_password_matches_and_a_wrong_one_does_not() -> None:
    passwords = Passwords(QUICK)
    stored = await passwords.hash("correct horse")
    assert "correct horse" not in stored
    assert (await passwords.check(stored, "correct horse")).matches
    assert not (await passwords.check(stored, "Correct horse")).matches
    assert not (await passwords.check("not a hash", "correct horse")).matches


async def test_a_name_without_account_costs_a_hash_and_never_matches() -> None:
    hasher = Counting()
    passwords = Passwords(hasher)
    assert not (await passwords.check(None, "correct horse")).matches
    assert not (await passwords.check(None, "not anyone's password")).matches
    assert hasher.threads  # it was checked, as a real account's password would be


async def test_a_weaker_hash_is_replaced_at_a_successful_login() -> None:
    old = await Passwords(QUICK).hash("correct horse")
    server = Passwords()
    checked = await server.check(old, "correct horse")
    assert checked.matches
    assert checked.rehashed is not None
    assert checked.rehashed != old
    assert (await server.check(checked.rehashed, "correct horse")).rehashed is None
    assert (await server.check(old, "wrong horse")).rehashed is None


async def test_hashes_run_off_the_loop_a_bounded_number_at_once() -> None:
    hasher = Counting()
    passwords = Passwords(hasher, concurrent=2, waiting=100)
    loop_thread = threading.get_ident()
    ticks = 0

    async def ticking() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.005)  # the loop's own pace, counted: the thing measured
            ticks += 1

    ticker = asyncio.create_task(ticking())
    await asyncio.gather(*(passwords.hash(f"password {i}") for i in range(6)))
    ticker.cancel()
    assert hasher.most == 2
    assert loop_thread not in hasher.threads
    assert ticks >= 20  # the loop ran on through 150 ms of hashing


async def test_past_its_line_the_server_is_busy_rather_than_queueing() -> None:
    passwords = Passwords(Counting(), concurrent=1, waiting=3)
    results = await asyncio.gather(
        *(passwords.hash(f"password {i}") for i in range(5)), return_exceptions=True
    )
    refused = [r for r in results if isinstance(r, Rejection)]
    assert len(refused) == 2
    assert {r.code for r in refused} == {ErrorCode.SERVER_BUSY}
    assert all(r.retry_after_s for r in refused)


@pytest.mark.parametrize(
    ("password", "reason"),
    [
        ("x" * (PASSWORD_MIN - 1), "at least"),
        ("x" * (PASSWORD_MAX + 1), "at most"),
        ("tab\there!", "control characters"),
    ],
)
def test_a_new_password_breaking_a_rule_is_refused_with_the_reason(
    password: str, reason: str
) -> None:
    with pytest.raises(PasswordRuleError, match=reason):
        checked_password(password)


def test_a_password_is_hashed_in_its_composed_form() -> None:
    assert checked_password("cafe\u0301 au lait") == "caf\u00e9 au lait"
