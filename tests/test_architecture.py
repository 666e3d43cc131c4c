"""Imports flow one way (ARCHITECTURE.md "Code map"): rules ← clock ← service ← web, and rules ←
bots ← service (the service seats a computer opponent, PROTOCOL.md "POST /api/matches").

Every module under ``src/spectacular_bid`` is parsed with :mod:`ast` (nothing is imported) and each
of its imports is checked against :data:`LAYERS`, a table with one row per top-level part of the
package. A new package or module needs a row before this test passes, so it slots in on purpose.

The rules engine is pure: standard library only, and within it none of :data:`IMPURE_STDLIB`
(no I/O, no clock reads, no global randomness, no concurrency), so that every match replays from
its record (R2.1, PROTOCOL.md "Replays and ended matches").
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = "spectacular_bid"
SRC = Path(__file__).resolve().parent.parent / "src" / PACKAGE

IMPURE_STDLIB = frozenset(
    {
        # named in the brief for the engine
        "asyncio",
        "time",
        "random",
        "secrets",
        "socket",
        "os",
        "io",
        "threading",
        "datetime",
        "subprocess",
        # the same kinds of thing under other names
        "_thread",
        "concurrent",
        "multiprocessing",
        "selectors",
        "select",
        "signal",
        "pathlib",
        "shutil",
        "tempfile",
        "sqlite3",
        "http",
        "urllib",
        "logging",
        "uuid",
        "importlib",
    }
)


@dataclass(frozen=True)
class Layer:
    """What the modules of one part of the package may import besides the standard library."""

    internal: frozenset[str]
    """Parts of ``spectacular_bid`` it may import (its own part included)."""
    third_party: bool = False
    banned_stdlib: frozenset[str] = frozenset()
    banned_third_party: frozenset[str] = frozenset()


def _layer(
    *internal: str, third_party: bool = False, pure: bool = False, measures: bool = True
) -> Layer:
    return Layer(
        frozenset(internal),
        third_party=third_party,
        banned_stdlib=IMPURE_STDLIB if pure else frozenset(),
        banned_third_party=frozenset() if measures else METRICS_LIBRARIES,
    )


METRICS_LIBRARIES = frozenset({"prometheus_client"})
"""The service and the store report what they measure through ``service/telemetry.py``, a plain
interface; the metrics library is the web layer's (PROTOCOL.md "Probes and metrics")."""


ROOT = "(package root)"
"""``spectacular_bid/__init__.py``: a docstring and metadata, importable by every part."""

LAYERS: dict[str, Layer] = {
    ROOT: _layer(ROOT),
    "rules": _layer(ROOT, "rules", pure=True),
    "clock": _layer(ROOT, "rules", "clock", pure=True),
    "bots": Layer(frozenset({ROOT, "rules", "bots"}), banned_stdlib=IMPURE_STDLIB - {"random"}),
    "service": _layer(ROOT, "rules", "clock", "bots", "service", third_party=True, measures=False),
    "store": _layer(ROOT, "rules", "clock", "service", "store", third_party=True, measures=False),
    "bus": _layer(ROOT, "service", "bus", third_party=True, measures=False),
    "web": _layer(ROOT, "rules", "clock", "service", "store", "bus", "web", third_party=True),
    "bench": _layer(
        ROOT, "rules", "clock", "bots", "service", "store", "bus", "web", "bench", third_party=True
    ),
    "cli": _layer(
        ROOT,
        "rules",
        "clock",
        "bots",
        "service",
        "store",
        "bus",
        "web",
        "bench",
        "cli",
        third_party=True,
    ),
    "__main__": _layer(ROOT, "cli"),
}

COMPOSITION_ROOTS = ("spectacular_bid.web.app", "spectacular_bid.cli", "spectacular_bid.bench")
"""The only modules (or packages, with every module under them) outside store and service that
may import both together."""


def layer_of(module: str) -> str:
    """The part of the package a dotted module name belongs to: ``rules``, ``clock``…"""
    parts = module.split(".")
    assert parts[0] == PACKAGE, module
    return parts[1] if len(parts) > 1 else ROOT


def _is_within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def imported_modules(
    module: str, tree: ast.Module, *, is_package: bool, known: frozenset[str]
) -> list[tuple[int, str]]:
    """(line, absolute module name) for every import in ``tree``, relative ones resolved.

    ``from P import N`` counts as ``P.N`` when that is a module of the package or a part of
    :data:`LAYERS` (``from spectacular_bid import web``), else as ``P``.
    """
    here = module if is_package else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = here.split(".")
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join([*base_parts, node.module] if node.module else base_parts)
            else:
                base = node.module or ""
            for alias in node.names:
                full = f"{base}.{alias.name}"
                is_module = full in known or (base == PACKAGE and alias.name in LAYERS)
                found.append((node.lineno, full if is_module else base))
    return found


def check_source(
    module: str, source: str, *, is_package: bool = False, known: frozenset[str] = frozenset()
) -> list[str]:
    """Every import of ``module`` (given as source text) that breaks the table; [] when clean."""
    layer_name = layer_of(module)
    layer = LAYERS.get(layer_name)
    if layer is None:
        return [f"{module}: part {layer_name!r} has no row in LAYERS: add one"]
    tree = ast.parse(source, filename=module)
    problems: list[str] = []
    parts_used: set[str] = set()
    for line, name in imported_modules(module, tree, is_package=is_package, known=known):
        where = f"{module}:{line} imports {name}"
        top = name.split(".")[0]
        if top == PACKAGE:
            used = layer_of(name)
            parts_used.add(used)
            if used not in layer.internal:
                problems.append(f"{where}: {layer_name} may not import {used}")
        elif top in sys.stdlib_module_names:
            if top in layer.banned_stdlib:
                problems.append(f"{where}: {layer_name} must stay pure (no {top})")
        elif not layer.third_party:
            problems.append(f"{where}: {layer_name} may import only the standard library")
        elif top in layer.banned_third_party:
            problems.append(f"{where}: {layer_name} reports through service/telemetry.py")
    composes = layer_name not in ("store", "service") and {"store", "service"} <= parts_used
    if composes and not any(_is_within(module, root) for root in COMPOSITION_ROOTS):
        problems.append(
            f"{module}: imports both store and service; only web/app.py, cli/ and "
            "bench/ compose them"
        )
    return problems


def module_name(path: Path, src: Path = SRC) -> tuple[str, bool]:
    """The dotted name of a source file under ``src`` and whether it is a package's
    ``__init__``."""
    relative = path.relative_to(src.parent).with_suffix("")
    parts = list(relative.parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return ".".join(parts), is_package


def source_modules(src: Path = SRC) -> list[tuple[str, bool, Path]]:
    return sorted((*module_name(path, src), path) for path in src.rglob("*.py"))


def check_tree(src: Path = SRC) -> list[str]:
    """Every broken import in the package whose directory is ``src``."""
    modules = source_modules(src)
    known = frozenset(name for name, _, _ in modules)
    problems: list[str] = []
    for name, is_package, path in modules:
        source = path.read_text(encoding="utf-8")
        problems += check_source(name, source, is_package=is_package, known=known)
    return problems


# -- the real tree ----------------------------------------------------------------------------


def test_walk_finds_the_package() -> None:
    names = {name for name, _, _ in source_modules()}
    # If the walk found nothing, every other check here would pass vacuously.
    assert {
        "spectacular_bid",
        "spectacular_bid.cli",
        "spectacular_bid.clock",
        "spectacular_bid.rules.board",
        "spectacular_bid.bench.rules",
    } <= names


def test_imports_follow_the_table() -> None:
    assert check_tree() == []


def test_every_part_has_a_row() -> None:
    parts = {layer_of(name) for name, _, _ in source_modules()}
    assert parts <= set(LAYERS)


# -- the checker catches what it should -------------------------------------------------------


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        pytest.param(
            "spectacular_bid.rules.board",
            "import time\n",
            ["spectacular_bid.rules.board:1 imports time: rules must stay pure (no time)"],
            id="rules-time",
        ),
        pytest.param(
            "spectacular_bid.rules.round",
            "from __future__ import annotations\n\nfrom random import shuffle\n",
            ["spectacular_bid.rules.round:3 imports random: rules must stay pure (no random)"],
            id="rules-from-random",
        ),
        pytest.param(
            "spectacular_bid.rules.match",
            "import os.path\n",
            ["spectacular_bid.rules.match:1 imports os.path: rules must stay pure (no os)"],
            id="rules-os-path",
        ),
        pytest.param(
            "spectacular_bid.rules.match",
            "def f() -> None:\n    import asyncio\n",
            ["spectacular_bid.rules.match:2 imports asyncio: rules must stay pure (no asyncio)"],
            id="rules-nested-asyncio",
        ),
        pytest.param(
            "spectacular_bid.rules.tiles",
            "import numpy\n",
            [
                "spectacular_bid.rules.tiles:1 imports numpy: rules may import only the standard "
                "library"
            ],
            id="rules-third-party",
        ),
        pytest.param(
            "spectacular_bid.rules.tiles",
            "from spectacular_bid.clock import MatchClock\n",
            [
                "spectacular_bid.rules.tiles:1 imports spectacular_bid.clock: rules may not "
                "import clock"
            ],
            id="rules-clock",
        ),
        pytest.param(
            "spectacular_bid.rules.tiles",
            "from .. import clock\n",
            [
                "spectacular_bid.rules.tiles:1 imports spectacular_bid.clock: rules may not "
                "import clock"
            ],
            id="rules-relative-clock",
        ),
        pytest.param(
            "spectacular_bid.clock",
            "from spectacular_bid.service import actor\n",
            [
                "spectacular_bid.clock:1 imports spectacular_bid.service: clock may not import "
                "service"
            ],
            id="clock-service",
        ),
        pytest.param(
            "spectacular_bid.clock",
            "import pydantic\n",
            [
                "spectacular_bid.clock:1 imports pydantic: clock may import only the standard "
                "library"
            ],
            id="clock-third-party",
        ),
        pytest.param(
            "spectacular_bid.service.actor",
            "from spectacular_bid.web import messages\n",
            [
                "spectacular_bid.service.actor:1 imports spectacular_bid.web: service may not "
                "import web"
            ],
            id="service-web",
        ),
        pytest.param(
            "spectacular_bid.service.actor",
            "import spectacular_bid.store.models\n",
            [
                "spectacular_bid.service.actor:1 imports spectacular_bid.store.models: service "
                "may not import store"
            ],
            id="service-store",
        ),
        pytest.param(
            "spectacular_bid.service.actor",
            "from prometheus_client import Histogram\n",
            [
                "spectacular_bid.service.actor:1 imports prometheus_client: service reports "
                "through service/telemetry.py"
            ],
            id="service-metrics-library",
        ),
        pytest.param(
            "spectacular_bid.store.writer",
            "import prometheus_client\n",
            [
                "spectacular_bid.store.writer:1 imports prometheus_client: store reports "
                "through service/telemetry.py"
            ],
            id="store-metrics-library",
        ),
        pytest.param(
            "spectacular_bid.store.repository",
            "from spectacular_bid import web\n",
            [
                "spectacular_bid.store.repository:1 imports spectacular_bid.web: store may not "
                "import web"
            ],
            id="store-web",
        ),
        pytest.param(
            "spectacular_bid.web.routes",
            "from spectacular_bid.service import actor\nfrom spectacular_bid.store import db\n",
            [
                "spectacular_bid.web.routes: imports both store and service; only web/app.py, "
                "cli/ and bench/ compose them"
            ],
            id="web-routes-compose",
        ),
        pytest.param(
            "spectacular_bid.replay",
            "import json\n",
            ["spectacular_bid.replay: part 'replay' has no row in LAYERS: add one"],
            id="unknown-part",
        ),
    ],
)
def test_checker_catches(module: str, source: str, expected: list[str]) -> None:
    assert check_source(module, source) == expected


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("spectacular_bid.rules.board", "import enum\nfrom .tiles import Tile\n"),
        ("spectacular_bid.clock", "from dataclasses import dataclass\nimport enum\n"),
        ("spectacular_bid.service.actor", "import asyncio\nimport pydantic\n"),
        ("spectacular_bid.store.repository", "import sqlalchemy\nfrom ..service import ports\n"),
        ("spectacular_bid.web.app", "from spectacular_bid import service, store\n"),
        (
            "spectacular_bid.cli",
            "from spectacular_bid.store import db\nimport spectacular_bid.service\n",
        ),
        (
            "spectacular_bid.cli.replay",
            "from spectacular_bid.store import engine\n"
            "from spectacular_bid.service import records\n",
        ),
        (
            "spectacular_bid.bench.server",
            "from spectacular_bid import store\nfrom spectacular_bid import service\n",
        ),
    ],
)
def test_checker_allows(module: str, source: str) -> None:
    assert check_source(module, source) == []


def test_checker_resolves_package_relative_imports() -> None:
    # In rules/__init__.py, "from . import x" is rules.x and ".." is the package root.
    assert check_source("spectacular_bid.rules", "from . import board\n", is_package=True) == []
    assert check_source("spectacular_bid.rules", "from ..web import app\n", is_package=True) == [
        "spectacular_bid.rules:1 imports spectacular_bid.web: rules may not import web"
    ]


def test_checker_on_a_tree_with_a_bad_file(tmp_path: Path) -> None:
    # The walk itself, not only check_source: a violating file in a package tree is reported.
    src = tmp_path / PACKAGE
    (src / "rules").mkdir(parents=True)
    (src / "__init__.py").write_text('"""Root."""\n', encoding="utf-8")
    (src / "rules" / "tiles.py").write_text("import enum\n", encoding="utf-8")
    (src / "rules" / "bad.py").write_text("from . import tiles\nimport secrets\n", encoding="utf-8")
    assert check_tree(src) == [
        "spectacular_bid.rules.bad:2 imports secrets: rules must stay pure (no secrets)"
    ]


# -- the match machine is pure too (ARCHITECTURE.md "Code map") ---------------------------------

PURE_SERVICE = frozenset(
    f"{PACKAGE}.service.{name}"
    for name in (
        "machine",
        "state",
        "commands",
        "events",
        "audience",
        "codec",
        "fairness",
        "rated",
        "refusals",
        "settings",
        "ports",
        "history",
        "ratings",
        "suspension",
        "pairing",
    )
)
"""The match machine and every module it stands on: like the rules, no asyncio, no clock reads,
no randomness, no I/O, so that live play and every replay run the same deterministic step."""


def check_pure_service(module: str, source: str, known: frozenset[str]) -> list[str]:
    """Every import of the pure service module ``module`` that could make it impure."""
    tree = ast.parse(source, filename=module)
    problems = []
    for line, name in imported_modules(module, tree, is_package=False, known=known):
        where = f"{module}:{line} imports {name}"
        top = name.split(".")[0]
        if top == PACKAGE:
            if layer_of(name) not in ("rules", "clock") and name not in PURE_SERVICE:
                problems.append(f"{where}: the match machine may import only pure modules")
        elif top not in sys.stdlib_module_names:
            problems.append(f"{where}: the match machine may import only the standard library")
        elif top in IMPURE_STDLIB:
            problems.append(f"{where}: the match machine must stay pure (no {top})")
    return problems


def test_the_match_machine_is_pure() -> None:
    modules = {name: path for name, _, path in source_modules()}
    assert modules.keys() >= PURE_SERVICE  # every listed module exists: no vacuous pass
    known = frozenset(modules)
    problems = [
        problem
        for name in sorted(PURE_SERVICE)
        for problem in check_pure_service(name, modules[name].read_text("utf-8"), known)
    ]
    assert problems == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import asyncio\n", "must stay pure (no asyncio)"),
        ("from time import monotonic\n", "must stay pure (no time)"),
        ("import pydantic\n", "may import only the standard library"),
        ("from spectacular_bid.service.actor import MatchActor\n", "only pure modules"),
        ("from spectacular_bid.service.guests import Guests\n", "only pure modules"),
    ],
)
def test_the_purity_check_catches(source: str, expected: str) -> None:
    known = frozenset(name for name, _, _ in source_modules())
    problems = check_pure_service(f"{PACKAGE}.service.machine", source, known)
    assert len(problems) == 1
    assert expected in problems[0]


# -- the bots are pure too, and reach no live match (PROTOCOL.md "POST /api/matches")
# ------------------------------------

BOTS_RANDOM_USE = frozenset({"Random"})
"""A bot may name ``random.Random`` (the generator it is given, or one seeded from it), and
nothing else of the module: no global generator, so a decision replays from its inputs."""


def check_bots_randomness(module: str, source: str) -> list[str]:
    """Every use in a bots module of :mod:`random` other than :class:`random.Random`."""
    tree = ast.parse(source, filename=module)
    problems: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "random":
            problems.extend(
                f"{module}:{node.lineno} imports random.{alias.name}"
                for alias in node.names
                if alias.name not in BOTS_RANDOM_USE
            )
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
            and node.attr not in BOTS_RANDOM_USE
        ):
            problems.append(f"{module}:{node.lineno} uses random.{node.attr}")
    return problems


def test_bots_draw_randomness_only_from_a_given_generator() -> None:
    modules = [(name, path) for name, _, path in source_modules() if layer_of(name) == "bots"]
    assert len(modules) >= 5  # the package exists: no vacuous pass
    problems = [p for name, path in modules for p in check_bots_randomness(name, path.read_text())]
    assert problems == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import random\nx = random.random()\n", "uses random.random"),
        ("import random\nrandom.shuffle([])\n", "uses random.shuffle"),
        ("from random import choice\n", "imports random.choice"),
    ],
)
def test_the_bots_randomness_check_catches(source: str, expected: str) -> None:
    problems = check_bots_randomness(f"{PACKAGE}.bots.levels", source)
    assert len(problems) == 1
    assert expected in problems[0]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import time\n", "bots must stay pure (no time)"),
        ("import asyncio\n", "bots must stay pure (no asyncio)"),
        ("from spectacular_bid.service import machine\n", "bots may not import service"),
        ("from spectacular_bid.clock import MatchClock\n", "bots may not import clock"),
        ("import numpy\n", "bots may import only the standard library"),
    ],
)
def test_the_bots_row_catches(source: str, expected: str) -> None:
    problems = check_source(f"{PACKAGE}.bots.search", source)
    assert len(problems) == 1
    assert expected in problems[0]


def test_rules_never_import_bots() -> None:
    assert check_source(f"{PACKAGE}.rules.match", "from spectacular_bid.bots import decide\n") == [
        f"{PACKAGE}.rules.match:1 imports {PACKAGE}.bots: rules may not import bots"
    ]


# -- no import cycle ---------------------------------------------------------------------------


def import_graph(src: Path = SRC) -> dict[str, set[str]]:
    """Each module of the package under ``src`` and the package's modules it imports.

    Every import counts, wherever it is written: one under ``if TYPE_CHECKING:`` or inside a
    function is still a dependency a reader has to hold in mind, and a deferred import is how a
    cycle hides. An import of a name is an edge to the module that defines it (the longest known
    prefix of its dotted name).
    """
    modules = source_modules(src)
    known = frozenset(name for name, _, _ in modules)
    graph: dict[str, set[str]] = {}
    for name, is_package, path in modules:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=name)
        edges: set[str] = set()
        for _, imported in imported_modules(name, tree, is_package=is_package, known=known):
            while imported and imported not in known:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                edges.add(imported)
        graph[name] = edges
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The cycles of ``graph``: its strongly connected parts of more than one module, each
    sorted, found by Tarjan's algorithm (iteratively, so a long chain cannot exhaust the stack)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    cycles.append(sorted(part))
    return sorted(cycles)


def cycles_within(part: str, graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles among the modules of one part of the package (``rules``, ``service``…)."""
    inside = {name for name in graph if layer_of(name) == part}
    return import_cycles({name: graph[name] & inside for name in inside})


KNOWN_CYCLES: dict[str, str] = {
    "service": "service.matches and service.rematches import each other: MatchService reaches "
    "the rematches and they reach it back. Remove this entry when the routes get the services "
    "they need by dependency instead of through MatchService.",
}
"""Parts of the package with an import cycle today, each with what it is. Each is a strict xfail:
the day its cycle is gone the test passes, the xfail fails, and the entry must be deleted."""

PARTS = sorted({layer_of(name) for name, _, _ in source_modules()} - {ROOT, "clock", "__main__"})
"""Every package under ``src/spectacular_bid`` (a lone module cannot hold a cycle by itself)."""


@pytest.mark.parametrize(
    "part",
    [
        pytest.param(part, marks=pytest.mark.xfail(reason=KNOWN_CYCLES[part], strict=True))
        if part in KNOWN_CYCLES
        else part
        for part in PARTS
    ],
)
def test_no_import_cycle_within(part: str) -> None:
    graph = import_graph()
    assert any(layer_of(name) == part for name in graph)  # the part exists: no vacuous pass
    assert cycles_within(part, graph) == []


def test_the_parts_import_one_way() -> None:
    # A cycle between parts would need one in LAYERS: it is a one-way table (each row may name
    # itself, which is the part's own modules, checked above).
    between = {part: set(layer.internal) - {part} for part, layer in LAYERS.items()}
    assert import_cycles(between) == []
    assert set(PARTS) >= {"rules", "bots", "service", "web"}


def test_the_cycle_finder_sees_every_kind_of_import(tmp_path: Path) -> None:
    # A TYPE_CHECKING import and one inside a function count: both closed cycles in the rules.
    src = tmp_path / PACKAGE
    (src / "rules").mkdir(parents=True)
    (src / "__init__.py").write_text("", encoding="utf-8")
    (src / "rules" / "__init__.py").write_text("", encoding="utf-8")
    files = {
        "match": "from .turns import play\n",
        "turns": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .match import M\n",
        "board": "def show() -> None:\n    from .notation import text\n",
        "notation": "from spectacular_bid.rules.board import Board\n",
        "tiles": "import enum\n",
        "round": "from . import tiles, board\n",
    }
    for name, text in files.items():
        (src / "rules" / f"{name}.py").write_text(text, encoding="utf-8")
    rules = f"{PACKAGE}.rules"
    assert cycles_within("rules", import_graph(src)) == [
        [f"{rules}.board", f"{rules}.notation"],
        [f"{rules}.match", f"{rules}.turns"],
    ]


def test_the_cycle_finder_on_a_longer_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e", "d"}}
    assert import_cycles(graph) == [["a", "b", "c"]]


# -- one definition of the award (R3.5) -------------------------------------------------------

AWARD_HOME = f"{PACKAGE}.rules.board"
"""The one module that says when an ends sum scores (R3.5): every other module, the bots' ranking
included, asks :func:`~spectacular_bid.rules.board.award_for`, so the rule cannot drift."""


def multiple_of_five_tests(source: str) -> list[int]:
    """The lines of ``source`` that test ``x % 5 == 0`` (or ``!=``), R3.5's own test."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.BinOp)
            and isinstance(node.left.op, ast.Mod)
            and isinstance(node.left.right, ast.Constant)
            and node.left.right.value == 5
            and all(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops)
        ):
            lines.append(node.lineno)
    return lines


def test_the_award_test_is_written_once() -> None:
    found = {
        name: lines
        for name, _, path in source_modules()
        if (lines := multiple_of_five_tests(path.read_text(encoding="utf-8")))
    }
    assert list(found) == [AWARD_HOME]
    assert len(found[AWARD_HOME]) == 1


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("award = s if s > 0 and s % 5 == 0 else 0\n", [1]),
        ("x = 1\nok = total % 5 != 0\n", [2]),
        ("if amount % 5:\n    pass\n", []),
        ("ok = total % 10 == 0\n", []),
    ],
)
def test_the_award_scan_catches(source: str, expected: list[int]) -> None:
    assert multiple_of_five_tests(source) == expected
