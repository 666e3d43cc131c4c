"""Accounts in the browser: a guest saves its name as an account, logs out and logs in
again, here and in another browser; a refused password or login is told inline, in the form;
an account changes its password, which ends its other sessions.

The server allows 10 logins a minute from one address (the tests' 127.0.0.1), so this module
logs in only a few times; the refusal past the limit is ``test_login_limit``'s.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from spectacular_bid.service.accounts import WRONG_LOGIN

from .conftest import Tabs
from .ui import (
    account_form,
    enter_name,
    expect_account,
    fill_form,
    log_in_by_form,
    session_player,
)

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"
NEW_PASSWORD = "staple of the domino"


def test_a_guest_saves_its_name_logs_out_and_logs_in_again(tabs: Tabs) -> None:
    ann = tabs.open("ann")
    enter_name(ann, "Annikki")
    guest = session_player(ann)
    assert guest is not None
    assert guest["account"] is False
    expect(ann.page.locator("[data-action=open-login]")).to_be_visible()

    ann.allow_refusal(422, "/api/account")
    ann.allow_refusal(401, "/api/login")
    claim = account_form(ann, "claim")
    expect(claim.locator("#claim-name")).to_have_value("Annikki")
    expect(claim.locator("#claim-password")).to_have_attribute("autocomplete", "new-password")
    # The server's rule, in the server's words.
    fill_form(claim, "submit-claim", {"claim-password": "short", "claim-confirm": "short"})
    expect(claim.get_by_role("alert")).to_contain_text("8 characters")
    fill_form(claim, "submit-claim", {"claim-password": PASSWORD, "claim-confirm": PASSWORD})
    expect_account(ann, "Annikki")
    expect(claim).to_be_hidden()
    account = session_player(ann)
    assert account == {**guest, "account": True}, "the guest's own player became the account"

    ann.page.locator("[data-action=log-out]").click()
    expect(ann.page.locator("[data-action=open-login]")).to_be_visible()
    expect(ann.page.locator("[data-action=log-out]")).to_be_hidden()
    expect(ann.page.locator("#name-row")).to_be_visible()
    assert session_player(ann) is None

    login = log_in_by_form(ann, "Annikki", "not the password")
    expect(login.get_by_role("alert")).to_have_text(WRONG_LOGIN)
    expect(login.locator("#login-password")).to_have_attribute("autocomplete", "current-password")
    fill_form(login, "submit-login", {"login-password": PASSWORD})
    expect_account(ann, "Annikki")
    expect(login).to_be_hidden()
    assert session_player(ann) == account

    # Another browser, which has never seen the guest.
    elsewhere = tabs.open("elsewhere")
    elsewhere.page.goto(elsewhere.base_url + "/")
    expect(elsewhere.page.locator("[data-action=open-claim]")).to_be_hidden()
    log_in_by_form(elsewhere, "annikki", PASSWORD)  # names compare without case
    expect_account(elsewhere, "Annikki")
    assert session_player(elsewhere) == account
    elsewhere.page.reload()
    expect_account(elsewhere, "Annikki")


def test_a_taken_name_cannot_be_claimed(tabs: Tabs) -> None:
    first = tabs.open("first")
    enter_name(first, "Bohdana")
    first.api_post("/api/account", {"password": PASSWORD})
    second = tabs.open("second")
    second.allow_refusal(409, "/api/account")
    enter_name(second, "Bohdana")  # a guest's name need not be unique
    claim = account_form(second, "claim")
    fill_form(claim, "submit-claim", {"claim-password": PASSWORD, "claim-confirm": PASSWORD})
    expect(claim.get_by_role("alert")).to_contain_text("taken")
    player = session_player(second)
    assert player is not None
    assert player["account"] is False


def test_an_account_changes_its_password_and_its_other_sessions_end(tabs: Tabs) -> None:
    ann = tabs.open("ann")
    ann.allow_refusal(401, "/api/account/password")
    enter_name(ann, "Oksana")
    ann.api_post("/api/account", {"password": PASSWORD})
    ann.page.reload()
    expect_account(ann, "Oksana")
    other = tabs.open("other")
    other.api_post("/api/login", {"name": "Oksana", "password": PASSWORD})
    assert session_player(other) is not None

    form = account_form(ann, "password")
    expect(form.locator("#password-name")).to_have_value("Oksana")
    fields = {"password-current": PASSWORD, "password-new": NEW_PASSWORD}
    fill_form(form, "submit-password", {**fields, "password-confirm": NEW_PASSWORD + "!"})
    alert = form.get_by_role("alert")
    expect(alert).to_have_text("The two new passwords differ.")
    expect(form.locator("#password-confirm")).to_have_attribute("aria-invalid", "true")
    fill_form(
        form,
        "submit-password",
        {**fields, "password-current": "not the password", "password-confirm": NEW_PASSWORD},
    )
    expect(alert).to_contain_text("current password is wrong")
    assert session_player(other) is not None, "a refused change ends no session"

    fill_form(form, "submit-password", {**fields, "password-confirm": NEW_PASSWORD})
    expect(form).to_be_hidden()
    expect_account(ann, "Oksana")
    assert session_player(ann) is not None, "this browser's session goes on"
    assert session_player(other) is None, "the other browser's session ended"
    old = other.page.request.post(
        other.base_url + "/api/login", data={"name": "Oksana", "password": PASSWORD}
    )
    assert old.status == 401
    other.api_post("/api/login", {"name": "Oksana", "password": NEW_PASSWORD})
