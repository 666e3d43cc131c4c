"""The documents orient a newcomer (docs/ARCHITECTURE.md): a short README that starts with the two
set-up commands, the four documents of docs/ it points to, links that lead somewhere, and
citations in the code that name a section the cited document has.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

HERE = Path(__file__).resolve()
ROOT = HERE.parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
FOUR_DOCS = ("ARCHITECTURE.md", "OPERATIONS.md", "BENCHMARKS.md", "PROTOCOL.md")
MAX_README_LINES = 150
SET_UP = ("./scripts/serve", "./scripts/test")

FENCE = re.compile(r"^```.*?^```[ \t]*$", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)
# A section of one of the documents this suite owns, cited from code: README "Play",
# OPERATIONS.md, "Under load and abuse" (the name may wrap onto the next line).
CITATION = re.compile(
    r"\b(README|ARCHITECTURE\.md|OPERATIONS\.md|BENCHMARKS\.md),?\s+\"([^\"]+)\"", re.MULTILINE
)
CITED_FILES = {
    "README": README,
    "ARCHITECTURE.md": DOCS / "ARCHITECTURE.md",
    "OPERATIONS.md": DOCS / "OPERATIONS.md",
    "BENCHMARKS.md": DOCS / "BENCHMARKS.md",
}


def prose(text: str) -> str:
    """``text`` without its fenced code blocks, where a ``#`` line is a comment, not a heading."""
    return FENCE.sub("", text)


def headings(text: str) -> list[str]:
    return [match.group(1) for match in HEADING.finditer(prose(text))]


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading's anchor, a repeated one numbered as GitHub numbers it."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for heading in headings(text):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(document: Path) -> list[str]:
    """The relative links of ``document`` whose file (or heading) does not exist."""
    problems = []
    text = document.read_text(encoding="utf-8")
    for target in LINK.findall(prose(text)):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        path_part, _, anchor = target.partition("#")
        linked = (document.parent / path_part).resolve() if path_part else document
        if not linked.exists():
            problems.append(f"{document.name}: {target}: no such file")
        elif (
            anchor
            and linked.suffix == ".md"
            and anchor not in anchors(linked.read_text(encoding="utf-8"))
        ):
            problems.append(f"{document.name}: {target}: no such heading")
    return problems


def documents() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def test_the_four_documents_exist() -> None:
    missing = [name for name in FOUR_DOCS if not (DOCS / name).is_file()]
    assert missing == []


def test_the_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES


def test_the_readme_starts_with_the_two_set_up_commands() -> None:
    """After the title and a short paragraph come the two commands, verbatim, before anything
    else: a heading may introduce them, and one sentence."""
    text = README.read_text(encoding="utf-8")
    first_block = FENCE.search(text)
    assert first_block is not None
    before = text[: first_block.start()]
    assert before.startswith("# ")
    paragraphs = [p for p in re.split(r"\n\s*\n", before) if p.strip() and not p.startswith("#")]
    assert len(paragraphs) <= 2, paragraphs  # what it is, and the sentence that brings them
    commands = [
        line.split("#")[0].strip()
        for line in first_block.group(0).splitlines()[1:-1]
        if line.split("#")[0].strip()
    ]
    assert tuple(commands) == SET_UP
    for command in SET_UP:
        assert (ROOT / command).is_file(), command


def test_ci_runs_the_readmes_test_command() -> None:
    """``.ci/run`` runs exactly the README's test command: what a newcomer runs is what CI runs."""
    ci_commands = [
        line.strip()
        for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert ci_commands[-1] == SET_UP[1]


@pytest.mark.parametrize("document", documents(), ids=lambda path: path.name)
def test_every_relative_link_resolves(document: Path) -> None:
    assert broken_links(document) == []


def test_the_link_check_catches(tmp_path: Path) -> None:
    (tmp_path / "OTHER.md").write_text("# Other\n\n## A section\n", encoding="utf-8")
    page = tmp_path / "PAGE.md"
    page.write_text(
        "# Page\n\n[ok](OTHER.md#a-section) [here](#page) [web](https://example.org/x)\n"
        "[gone](MISSING.md) [no heading](OTHER.md#b-section) [no anchor](#nowhere)\n"
        "```sh\n# not a heading\n[not a link](NOPE.md)\n```\n",
        encoding="utf-8",
    )
    assert broken_links(page) == [
        "PAGE.md: MISSING.md: no such file",
        "PAGE.md: OTHER.md#b-section: no such heading",
        "PAGE.md: #nowhere: no such heading",
    ]


def test_slugs_follow_github() -> None:
    assert slug("Running it for real: containers and several processes") == (
        "running-it-for-real-containers-and-several-processes"
    )
    assert slug("`POST /api/matches`") == "post-apimatches"
    assert anchors("# A\n\n## A\n") == {"a", "a-1"}


def cited_sections() -> list[tuple[str, str, str]]:
    """(file, document, section) for every citation of a section of README or docs/ARCHITECTURE,
    OPERATIONS or BENCHMARKS in src/, tests/ and static/."""
    found = []
    for part in ("src", "tests", "static"):
        for path in sorted((ROOT / part).rglob("*")):
            if path.suffix not in {".py", ".js"} or "node_modules" in path.parts or path == HERE:
                continue
            for match in CITATION.finditer(path.read_text(encoding="utf-8")):
                # a name wrapped onto the next comment line loses that line's comment marker
                section = " ".join(re.sub(r"\n\s*(#|//)", " ", match.group(2)).split())
                found.append((path.relative_to(ROOT).as_posix(), match.group(1), section))
    return found


def test_citations_name_sections_that_exist() -> None:
    """A comment that cites ``OPERATIONS.md "Storage"`` names a heading of that document (a cited
    name may be the start of a longer heading: "Running it for real")."""
    found = cited_sections()
    assert len(found) > 20  # the scan sees the citations
    missing = []
    for where, document, section in found:
        names = headings(CITED_FILES[document].read_text(encoding="utf-8"))
        if not any(name == section or name.startswith(section + ":") for name in names):
            missing.append(f"{where}: {document} {section!r}")
    assert missing == []
