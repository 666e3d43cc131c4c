"""The browser client's modules (``static/js``): small and by role, imports one way, and no copy
of a number the server owns.

- No module is longer than :data:`MAX_LINES`: the match page is split by role (its state and life,
  input, dispatch, rendering, cues, auto-draw) as ``socket.js`` and ``store.js`` already were.
- The modules import one another without a cycle, so a role never reaches back into the one
  that drives it (rendering never imports input; input may import rendering).
- The client keeps no copy of the server's time controls, clock limits or jockey discount
  (R6.4, R7.1, R7.2): it reads them from the server (docs/PROTOCOL.md "GET /api/lobby",
  ``time_controls``; a bid's ``cost``). ``tests/browser/test_server_time_control.py`` shows a
  server started with another control is shown as it is.
"""

from __future__ import annotations

import re
from pathlib import Path

from spectacular_bid.clock import DEFAULT_SETTINGS
from spectacular_bid.rules.auction import JOCKEY_DISCOUNT
from spectacular_bid.service.record_document import BANK_MS_MAX, DELAY_MS_MAX
from spectacular_bid.web.time_controls import CASUAL

JS = Path(__file__).resolve().parent.parent / "static" / "js"
MAX_LINES = 400
_IMPORT = re.compile(
    r"""(?:\bimport\b|\bexport\b)[^;'"`]*?\bfrom\s*["'](\.[^"']+)["']|\bimport\s*["'](\.[^"']+)["']"""
)
_NUMBER = re.compile(r"(?<![\w.])(\d[\d_]*)(?![\w.])")


def modules(root: Path = JS) -> dict[str, str]:
    """Every module under ``root`` by its path there (``match/page.js``), with its text."""
    return {
        path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*.js"))
    }


def too_long(found: dict[str, str]) -> dict[str, int]:
    return {name: n for name, text in found.items() if (n := len(text.splitlines())) > MAX_LINES}


def imports(name: str, text: str) -> set[str]:
    """The modules ``name`` imports, as paths under the client's folder."""
    found = set()
    for from_, bare in _IMPORT.findall(text):
        specifier = from_ or bare
        parts = list(Path(name).parent.parts)
        for part in specifier.split("/"):
            if part == "..":
                parts.pop()
            elif part != ".":
                parts.append(part)
        found.add("/".join(parts))
    return found


def cycle(found: dict[str, str]) -> list[str]:
    """One import cycle among ``found`` (the modules on it, the first again at its end), or []."""
    graph = {name: sorted(imports(name, text) & found.keys()) for name, text in found.items()}
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> list[str]:
        if name in path:
            return [*path[path.index(name) :], name]
        if name in done:
            return []
        for target in graph[name]:
            if looped := visit(target, [*path, name]):
                return looped
        done.add(name)
        return []

    for name in graph:
        if looped := visit(name, []):
            return looped
    return []


def server_numbers() -> set[int]:
    """The server's clock numbers a copy would spell out: the rules' control, the custom bounds,
    the casual presets' banks (in ms: a minute alone is a unit, not a copy)."""
    banks = {clock.bank_ms for clock in CASUAL if clock.bank_ms > 60_000}
    return {DEFAULT_SETTINGS.bank_ms, BANK_MS_MAX, DELAY_MS_MAX, *banks}


def copies(found: dict[str, str]) -> list[str]:
    """Each place a module spells out one of :func:`server_numbers`, or the discount as the bid
    buttons show it ("−15", U+2212)."""
    numbers = server_numbers()
    discount = f"\u2212{JOCKEY_DISCOUNT}"
    seen = []
    for name, text in found.items():
        for number in _NUMBER.findall(text):
            if int(number.replace("_", "")) in numbers:
                seen.append(f"{name}: {number}")
        if re.search(rf"{discount}(?!\d)", text):
            seen.append(f"{name}: {discount}")
    return seen


def test_no_client_module_is_over_the_limit() -> None:
    found = modules()
    assert "match/page.js" in found
    assert too_long(found) == {}


def test_the_limit_catches_a_long_module(tmp_path: Path) -> None:
    (tmp_path / "long.js").write_text("x;\n" * (MAX_LINES + 1))
    (tmp_path / "short.js").write_text("x;\n" * MAX_LINES)
    assert too_long(modules(tmp_path)) == {"long.js": MAX_LINES + 1}


def test_the_client_modules_import_no_cycle() -> None:
    found = modules()
    assert imports("match/input.js", found["match/input.js"]) >= {"match/render.js", "dom.js"}
    assert cycle(found) == []


def test_the_cycle_check_catches_one(tmp_path: Path) -> None:
    (tmp_path / "match").mkdir()
    (tmp_path / "match" / "render.js").write_text('import { send } from "./input.js";\n')
    (tmp_path / "match" / "input.js").write_text(
        'import { h } from "../dom.js";\nimport "./render.js";\n'
    )
    (tmp_path / "dom.js").write_text("export const h = 1;\n")
    looped = cycle(modules(tmp_path))
    assert looped in (
        ["match/input.js", "match/render.js", "match/input.js"],
        ["match/render.js", "match/input.js", "match/render.js"],
    )


def test_the_client_keeps_no_copy_of_the_servers_numbers() -> None:
    assert copies(modules()) == []


def test_the_copy_check_catches_a_copy(tmp_path: Path) -> None:
    (tmp_path / "timecontrol.js").write_text(
        f"const STANDARD = {{ bank_ms: {DEFAULT_SETTINGS.bank_ms}, delay_ms: 10000 }};\n"
        f"const BANK_MAX = 3_600_000;\n"
    )
    (tmp_path / "panels.js").write_text("tag(`\u221215 ${t('auction.discount_short')}`);\n")
    assert copies(modules(tmp_path)) == [
        f"panels.js: \u2212{JOCKEY_DISCOUNT}",
        f"timecontrol.js: {DEFAULT_SETTINGS.bank_ms}",
        "timecontrol.js: 3_600_000",
    ]
