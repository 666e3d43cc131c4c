"""Security headers on pages and API responses (PROTOCOL.md "Security headers"), and a client they
let work."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest
from starlette.types import Message, Receive, Scope, Send

from spectacular_bid.web.security_headers import DOCS_POLICY, SecurityHeaders, client_policy
from spectacular_bid.web.settings import REPO_STATIC, WebSettings

from .guests import bearer, guest

FIXED = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}


@pytest.fixture
def settings(tmp_path: Path) -> WebSettings:
    # The real browser client, so its pages are checked with the policy they get.
    return WebSettings(static_dir=REPO_STATIC, fixed_deck_seed=7, data_dir=tmp_path, guests_burst=1)


def policy(response: httpx.Response) -> dict[str, list[str]]:
    directives = {}
    for part in response.headers["content-security-policy"].split(";"):
        name, *values = part.split()
        directives[name] = values
    return directives


def assert_guarded(response: httpx.Response) -> None:
    for name, value in FIXED.items():
        assert response.headers.get_list(name) == [value], name
    csp = policy(response)
    assert csp["default-src"] == ["'self'"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["base-uri"] == ["'none'"]
    assert csp["object-src"] == ["'none'"]


@pytest.mark.parametrize(
    "path", ["/", "/m/abc123", "/replay/abc123", "/js/main.js", "/css/base.css", "/nothing.js"]
)
async def test_the_client_s_files_are_guarded(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path)
    assert_guarded(response)
    assert policy(response)["connect-src"] == ["'self'", "ws://testserver", "wss://testserver"]
    assert "script-src" not in policy(response)  # only this origin's scripts (default-src)


async def test_api_responses_and_refusals_are_guarded(client: httpx.AsyncClient) -> None:
    assert_guarded(await client.get("/api/lobby"))
    assert_guarded(await client.get("/openapi.json"))
    assert_guarded(await client.get("/api/session"))  # 401
    token = await guest(client, "Ann")
    assert_guarded(await client.post("/api/matches", json={"mode": "x"}, headers=bearer(token)))
    refused = await client.post("/api/session", json={"name": "Bob"})  # guests_burst is 1
    assert refused.status_code == 429
    assert_guarded(refused)


async def test_the_client_s_socket_host_is_named_only_when_it_is_a_host(
    client: httpx.AsyncClient,
) -> None:
    named = await client.get("/", headers={"host": "play.example.com:8443"})
    assert "wss://play.example.com:8443" in policy(named)["connect-src"]
    odd = await client.get("/", headers={"host": "evil; script-src *"})
    assert policy(odd)["connect-src"] == ["'self'"]
    assert client_policy("[::1]:8000").endswith(
        "connect-src 'self' ws://[::1]:8000 wss://[::1]:8000"
    )


class _Resources(HTMLParser):
    """What a page loads, and anything on it that a strict policy would block."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.inline: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        for name, value in attrs:
            if name == "style" or name.startswith("on"):
                self.inline.append(f"<{tag} {name}={value!r}>")
        if tag == "style":
            self.inline.append("<style>")
        if tag == "script":
            # A JSON block (the page's hashed file names) is data the policy never runs.
            self._in_script = "src" not in found and found.get("type") != "application/json"
        url = found.get("src") or (found.get("href") if tag == "link" else None)
        if url:
            self.urls.append(url)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.inline.append(f"<script>{data.strip()[:40]}")


async def test_the_policy_lets_the_real_client_work(client: httpx.AsyncClient) -> None:
    """The client must need nothing the policy refuses: no inline script, style or handler, and
    everything from this origin. (Scripts that set ``el.style`` use the CSSOM: allowed.)"""
    pages = [(await client.get("/")).text]
    pages += [path.read_text(encoding="utf-8") for path in (REPO_STATIC / "rules").glob("*.html")]
    for page in pages:
        parser = _Resources()
        parser.feed(page)
        assert parser.inline == []
        assert all(url.startswith("/") and not url.startswith("//") for url in parser.urls)
    for script in (REPO_STATIC / "js").glob("*.js"):
        text = script.read_text(encoding="utf-8")
        blocked = re.findall(r"\beval\(|new Function\(|setAttribute\(\"style\"|\.innerHTML\b", text)
        assert blocked == [], script.name
        for url in re.findall(r"""["'`](https?://[^"'`]+)""", text):
            assert url.startswith("http://www.w3.org/"), (script.name, url)  # namespaces only


async def test_the_docs_page_gets_a_policy_that_loads_swagger_ui(client: httpx.AsyncClient) -> None:
    docs = await client.get("/docs")
    assert docs.headers["content-security-policy"] == DOCS_POLICY
    csp = policy(docs)
    assert csp["frame-ancestors"] == ["'none'"]
    parser = _Resources()
    parser.feed(docs.text)
    for url in parser.urls:
        origin = "/".join(url.split("/")[:3])
        assert origin in csp["script-src"] + csp["style-src"] + csp["img-src"], url
    assert "'unsafe-inline'" in csp["script-src"]  # Swagger UI starts with an inline script
    redoc = await client.get("/redoc")
    assert redoc.headers["content-security-policy"] == DOCS_POLICY
    # Only the docs: the client's own pages never allow inline scripts.
    assert "unsafe-inline" not in (await client.get("/")).headers["content-security-policy"]


# -- the middleware itself ---------------------------------------------------------------------


async def _sent(app: SecurityHeaders, scope: Scope) -> list[Message]:
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b""}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent


async def test_a_header_the_response_sets_is_kept() -> None:
    async def inner(scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(b"x-frame-options", b"SAMEORIGIN")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"ok"})

    scope: Scope = {"type": "http", "path": "/", "headers": []}
    start, body = await _sent(SecurityHeaders(inner), scope)
    names = [name for name, _ in start["headers"]]
    assert names.count(b"x-frame-options") == 1
    assert (b"x-frame-options", b"SAMEORIGIN") in start["headers"]
    assert b"content-security-policy" in names
    assert body == {"type": "http.response.body", "body": b"ok"}


async def test_websockets_pass_untouched() -> None:
    seen: list[Message] = []

    async def inner(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "websocket.accept", "headers": []})

    async def send(message: Message) -> None:
        seen.append(message)

    async def receive() -> Message:
        return {"type": "websocket.connect"}

    await SecurityHeaders(inner)({"type": "websocket", "path": "/ws", "headers": []}, receive, send)
    assert seen == [{"type": "websocket.accept", "headers": []}]
