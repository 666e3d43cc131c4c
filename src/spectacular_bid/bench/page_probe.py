"""What ``specbid bench page`` measures of one visit: its requests, its bytes, when it is ready.

Network figures come from the Chrome DevTools Protocol's ``Network`` domain of the visiting
tab: a request counts when it goes to the network (one the HTTP cache answers is counted apart,
``cached``), the match socket's opening handshake counts as one request, and ``bytes`` is the
sum of the responses' ``encodedDataLength`` (headers and body as they came over the wire:
compressed when compressed; the socket's frames are not in it).

*Ready* is when the page answers input: its main control is rendered and an input event on it
is handled. The tab watches the document from its first byte (:data:`PROBE_JS`) and notes
``rendered_ms``, the moment the page's readiness test first holds (``READY_TESTS``); the bench
then moves the mouse over that control, a real input event through the browser, and the tab
notes how long the event waited for the page's main thread (its ``timeStamp`` to its handler).
``ready_ms = rendered_ms + input_delay_ms``: the harness's own time between seeing the control
and sending the event is left out, a page still busy when it is rendered is not. Times are from
navigation start (``performance.timeOrigin``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

READY_TESTS: Final = {
    "lobby": """() => {
        const button = document.querySelector('[data-action^="create-"]');
        const shown = button && button.textContent.trim() && button.getClientRects().length;
        return shown ? button : null;
    }""",
    "match": """() => {
        const table = document.querySelector('#match[data-version]');
        const online = document.querySelector('#connection[data-state="online"]');
        return table && online && table.getClientRects().length ? table : null;
    }""",
}
"""Per page, a function returning its main control once the page is ready for it, else null:
the lobby's first "create a match" button with its text (the dictionary loaded); a match's
table once a server frame is rendered (``data-version``) and its socket is open."""

_PROBE_JS: Final = """
(() => {
  const test = (%s);
  const probe = { rendered: null, inputDelay: null, control: null };
  window.__pageProbe = probe;
  const check = () => {
    if (probe.rendered !== null) return;
    const control = test();
    if (control) {
      probe.rendered = performance.now();
      probe.control = control;
      console.debug(RENDERED);
    }
  };
  new MutationObserver(check).observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true,
  });
  addEventListener("pointermove", (event) => {
    if (probe.rendered === null || probe.inputDelay !== null) return;
    probe.inputDelay = performance.now() - event.timeStamp;
    console.debug(HANDLED);
  }, { capture: true });
})();
"""
RENDERED: Final = "page-probe: rendered"
HANDLED: Final = "page-probe: input handled"
"""What the tab says on its console: the harness waits for these rather than polling the page,
which would run the harness's own scripts in the tab while it loads and slow it down."""


def probe_script(page: str) -> str:
    """The script installed in the tab before the page's own, for ``page`` (``READY_TESTS``)."""
    script = _PROBE_JS.replace("RENDERED", repr(RENDERED)).replace("HANDLED", repr(HANDLED))
    return script % READY_TESTS[page]


@dataclass
class Traffic:
    """The network events of one visit, as the DevTools Protocol reports them."""

    sent: dict[str, str] = field(default_factory=dict)
    """Request id → URL, for every HTTP request the page made."""
    cached: set[str] = field(default_factory=set)
    encoded_bytes: dict[str, int] = field(default_factory=dict)
    sockets: int = 0
    last_event_s: float = 0.0

    def on_request(self, event: dict[str, Any]) -> None:
        url = str(event.get("request", {}).get("url", ""))
        if url.startswith(("http:", "https:")):
            self.sent[str(event["requestId"])] = url

    def on_cache_hit(self, event: dict[str, Any]) -> None:
        self.cached.add(str(event["requestId"]))

    def on_response(self, event: dict[str, Any]) -> None:
        response = event.get("response", {})
        if response.get("fromDiskCache") or response.get("fromPrefetchCache"):
            self.cached.add(str(event["requestId"]))

    def on_finished(self, event: dict[str, Any]) -> None:
        self.encoded_bytes[str(event["requestId"])] = int(event.get("encodedDataLength", 0))

    def on_socket(self, _event: dict[str, Any]) -> None:
        self.sockets += 1

    def figures(self) -> dict[str, int]:
        network = [rid for rid in self.sent if rid not in self.cached]
        return {
            "requests": len(network) + self.sockets,
            "cached": len(self.sent) - len(network),
            "bytes": sum(self.encoded_bytes.get(rid, 0) for rid in network),
        }
