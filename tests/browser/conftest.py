"""Real-browser fixtures: Debian's Chromium driven by Playwright, a real server per module.

- ``browser`` (one per package): headless ``/usr/bin/chromium``. Where it is missing the tests are
  skipped with the reason, except on CI (``CI=true``), where a missing browser is a failure.
- ``server`` (one per module): ``specbid serve`` on a free port with the fixed deck seed.
- ``tabs`` (one per test): opens browser contexts (one guest each) on the server. When the test
  ends it fails the test if any page logged a console error or threw ("no console
  errors on any page"), or if the server logged a traceback.

The tests use Playwright's sync API; they are plain (non-async) tests, so no asyncio loop runs
while they do.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect, sync_playwright

from .server import BrowserServer, serve
from .ui import SIGHTINGS_JS, Tab

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
TIMEOUT_MS = 10_000

expect.set_options(timeout=TIMEOUT_MS)


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} is missing (Debian: apt-get install chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI must run the browser tests")
        pytest.skip(reason)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserServer]:
    yield from serve(tmp_path_factory.mktemp("browser-server"))


class Tabs:
    """Opens tabs (a context and a page each) and checks them all at the end."""

    def __init__(self, browser: Browser, server: BrowserServer) -> None:
        self.browser = browser
        self.server = server
        self.opened: list[Tab] = []

    def open(self, name: str, **context_options: Any) -> Tab:
        options: dict[str, Any] = {"locale": "en-US", "viewport": {"width": 1280, "height": 900}}
        options.update(context_options)
        context = self.browser.new_context(**options)
        context.set_default_timeout(TIMEOUT_MS)
        context.add_init_script(SIGHTINGS_JS)
        tab = Tab(name, context, context.new_page(), self.server.url)
        self.opened.append(tab)
        return tab

    def errors(self) -> list[str]:
        return [error for tab in self.opened for error in tab.errors]

    def close(self) -> None:
        for tab in self.opened:
            tab.context.close()


@pytest.fixture
def tabs(browser: Browser, server: BrowserServer) -> Iterator[Tabs]:
    log_start = server.log_size()
    opened = Tabs(browser, server)
    try:
        yield opened
        errors = opened.errors()
    finally:
        opened.close()
    log = server.log_text(log_start)
    problems = []
    if errors:
        problems.append("console errors or page errors:\n  " + "\n  ".join(errors))
    if "Traceback" in log or "ERROR" in log:
        problems.append(f"the server logged an error:\n{log[-3000:]}")
    if problems:
        pytest.fail("\n".join(problems))
