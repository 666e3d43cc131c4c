"""A toast belongs to the page it was shown on: an error in the lobby is not carried into the
match one opens next (the client's router changes pages without reloading)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import Tabs

pytestmark = pytest.mark.browser


def test_a_lobby_error_is_not_carried_into_the_match(tabs: Tabs) -> None:
    ann = tabs.open("ann")
    page = ann.page
    page.goto(ann.base_url + "/")
    expect(page.locator("#name-input")).to_be_visible()
    # No name yet: making a match is refused in the lobby with an error toast.
    page.locator("[data-action=create-shared]").click()
    page.locator("[data-action=start-shared]").click()
    error = page.locator("#toasts .toast-error")
    expect(error).to_have_count(1)
    page.locator("#name-input").fill("Ann")
    page.locator("[data-action=start-shared]").click()
    expect(page.locator("#match")).to_be_attached()  # the lobby saved the name, a toast too
    assert "/m/" in page.url
    # The toast would have stayed seconds more; on the match's page it is gone at once.
    assert page.locator("#toasts .toast").count() == 0
    # Nor does one go back with the browser's Back button.
    page.evaluate("() => history.back()")
    expect(page.locator("#name-input")).to_be_visible()
    assert page.locator("#toasts .toast").count() == 0
