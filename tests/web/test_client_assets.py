"""How the client's files are built (``assets.py``, ``bundler.py``, ``page_head.py``,
``client_files.py``): bundled or preloaded, named by content, rebuilt when a file changes."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from spectacular_bid.web.assets import IMMUTABLE, REVALIDATE, build
from spectacular_bid.web.bundler import find_esbuild
from spectacular_bid.web.client_files import ClientFiles
from spectacular_bid.web.page_head import read_head, write_page
from spectacular_bid.web.settings import REPO_STATIC

ESBUILD = find_esbuild()
needs_esbuild = pytest.mark.skipif(
    ESBUILD is None and os.environ.get("CI") != "true",
    reason="no esbuild: `npm ci` installs it (scripts/_venv.sh does)",
)
"""On CI a missing bundler fails these tests rather than skipping them: users get the bundle."""
_EXPORTED = re.compile(r"^export (?:async )?function (\w+)", re.MULTILINE)


def _modules_of_the_page() -> list[str]:
    built = build(REPO_STATIC, None)
    assert built.page is not None
    return re.findall(
        r'<link rel="modulepreload" href="/(js/[\w/]+\.js)">', built.page.body.decode()
    )


@needs_esbuild
def test_the_bundle_holds_every_module_the_page_imports() -> None:
    assert ESBUILD is not None
    built = build(REPO_STATIC, ESBUILD)
    assert built.bundled_by is not None
    assert built.bundled_by.startswith("esbuild ")
    assert built.page is not None
    page = built.page.body.decode()
    (script,) = re.findall(r'<script type="module" src="/(bundle/main\.[0-9a-f]{12}\.js)">', page)
    (style,) = re.findall(r'<link rel="stylesheet" href="/(bundle/main\.[0-9a-f]{12}\.css)">', page)
    bundle = built.files[script].body.decode()
    modules = _modules_of_the_page()
    assert len(modules) > 20
    for module in modules:
        names = _EXPORTED.findall((REPO_STATIC / module).read_text(encoding="utf-8"))
        assert not names or any(name in bundle for name in names), module
    css = built.files[style].body.decode()
    for sheet in read_head((REPO_STATIC / "index.html").read_text()).stylesheets:
        first_class = re.search(r"^\.([\w-]+)", (REPO_STATIC / sheet).read_text(), re.MULTILINE)
        assert first_class is None or f".{first_class[1]}" in css, sheet
    assert built.files[script].cache_control == IMMUTABLE


def test_without_a_bundler_the_modules_are_preloaded_from_the_page() -> None:
    built = build(REPO_STATIC, None)
    assert built.bundled_by is None
    assert built.page is not None
    page = built.page.body.decode()
    modules = _modules_of_the_page()
    on_disk = {p.relative_to(REPO_STATIC).as_posix() for p in (REPO_STATIC / "js").rglob("*.js")}
    assert set(modules) <= on_disk
    assert "js/i18n.js" in modules
    assert "js/assets.js" in modules
    assert "js/match/page.js" in modules, "a module in a folder of its own is preloaded too"
    assert '<script type="module" src="/js/main.js">' in page
    stylesheets = re.findall(r'<link rel="stylesheet" href="/(css/\w+\.[0-9a-f]{12}\.css)">', page)
    assert len(stylesheets) == len(read_head((REPO_STATIC / "index.html").read_text()).stylesheets)
    assert built.files["js/main.js"].cache_control == REVALIDATE


async def test_a_changed_file_is_served_under_a_new_name_at_once(tmp_path: Path) -> None:
    static = tmp_path / "static"
    shutil.copytree(REPO_STATIC, static)
    client = ClientFiles(static, ESBUILD, recheck_s=0)
    before = (await client.current()).page
    assert before is not None
    old_names = set(re.findall(r'"/([\w/]+\.[0-9a-f]{12}\.\w+)"', before.body.decode()))
    module = static / "js" / "main.js"
    module.write_text(module.read_text() + '\nconsole.debug("changed");\n', encoding="utf-8")
    os.utime(module, ns=(1, 1))  # a different modification time, however coarse the clock
    after = await client.current()
    assert after.page is not None
    new_names = set(re.findall(r'"/([\w/]+\.[0-9a-f]{12}\.\w+)"', after.page.body.decode()))
    if ESBUILD is not None:
        assert old_names - new_names, "the bundle was not renamed"
    stale = old_names - new_names
    for name in stale:  # a page from before the change still gets the file, as it is now
        found = after.find(name)
        assert found is not None
        assert found.cache_control == REVALIDATE
    assert b'console.debug("changed")' in after.files["js/main.js"].body


def test_the_head_is_rewritten_tag_by_tag() -> None:
    html = (
        "<html><head>\n"
        '  <link rel="icon" href="/favicon.svg">\n'
        '  <link rel="stylesheet" href="/css/a.css">\n'
        '  <link rel="stylesheet" href="/css/b.css">\n'
        '  <link rel="stylesheet" href="https://elsewhere.example/c.css">\n'
        '  <script type="module" src="/js/main.js"></script>\n'
        "</head><body></body></html>"
    )
    head = read_head(html)
    assert head.stylesheets == ("css/a.css", "css/b.css")
    assert head.entry == "js/main.js"
    page = write_page(
        html,
        head,
        url_of={"favicon.svg": "/favicon.0123456789ab.svg"}.get,
        script="/bundle/main.js",
        style="/bundle/main.css",
        modulepreloads=[],
        asset_map={"i18n/en.json": "/i18n/en.0123456789ab.json"},
    )
    assert page == (
        "<html><head>\n"
        '  <link rel="icon" href="/favicon.0123456789ab.svg">\n'
        '  <link rel="stylesheet" href="/bundle/main.css">\n'
        '  <link rel="stylesheet" href="https://elsewhere.example/c.css">\n'
        '  <script type="module" src="/bundle/main.js"></script>\n'
        '  <script type="application/json" id="client-assets">'
        '{"i18n/en.json":"/i18n/en.0123456789ab.json"}</script>\n'
        "</head><body></body></html>"
    )
