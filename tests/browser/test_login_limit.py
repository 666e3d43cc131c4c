"""Past the login limit (PROTOCOL.md "Rate limits") the form says when to try again, in seconds from
the server's ``Retry-After``. A module of its own, so its server's per-address budget of logins is
this test's alone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from spectacular_bid.service.accounts import WRONG_LOGIN

from .conftest import Tabs
from .ui import account_form, fill_form

pytestmark = pytest.mark.browser

TRY_AGAIN = re.compile(r"^Too many tries\. Try again in (\d+) s\.$")
TRIES_PER_NAME = 5
"""``web.http_limits.LOGINS_PER_MINUTE_PER_NAME_AND_ADDRESS``: the browser is one address."""


def test_too_many_logins_say_when_to_try_again(tabs: Tabs) -> None:
    tab = tabs.open("guesser")
    tab.allow_refusal(401, "/api/login")
    tab.allow_refusal(429, "/api/login")
    tab.page.goto(tab.base_url + "/")
    form = account_form(tab, "login")
    alert = form.get_by_role("alert")
    fields = {"login-name": "Nobody", "login-password": "a guess"}
    for _ in range(TRIES_PER_NAME):
        fill_form(form, "submit-login", fields)
        expect(alert).to_have_text(WRONG_LOGIN)
    with tab.page.expect_response(lambda r: r.url.endswith("/api/login")) as answered:
        fill_form(form, "submit-login", fields)
    assert answered.value.status == 429
    expect(alert).to_have_text(TRY_AGAIN)
    found = TRY_AGAIN.match(alert.text_content() or "")
    assert found is not None
    assert found.group(1) == answered.value.headers["retry-after"]
    expect(form).to_be_visible()
