"""The browser client's bundle: esbuild run over the client's entry module and stylesheets.

Why a bundle: the client is some forty ES modules, and a browser learns of each only once it has
the module that imports it, so a first visit paid one round trip per level of imports, and one
request per file (docs/PROTOCOL.md, "Caching and compression"). esbuild, a maintained bundler
with no dependencies of its own, makes of them one script and one stylesheet in some 50 ms, so
the server bundles when it starts and again whenever a file of the client changes
(:mod:`.assets`): what it serves is always built from the files as they are, never a stale build.

esbuild is pinned in ``package-lock.json`` and installed into ``node_modules`` by
``scripts/_venv.sh`` (``npm ci``); the image copies its binary onto ``PATH`` (``Dockerfile``).
Where none is found the client is served unbundled (:mod:`.assets` says how) and the server's log
says so at start.

The script keeps its identifiers (only whitespace and syntax are minified): an error in a page's
console still names the function it came from, for about 4 KB more once compressed.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[3]
"""The source tree (the folder with ``package.json``), where ``npm ci`` puts ``node_modules``."""
_TIMEOUT_S = 60
"""Far more than a bundle takes (about 50 ms); a hung bundler must not hang the server's start."""
_QUIET = ("--log-level=error",)
"""Only errors: they fail the bundle, and their text goes into :class:`BundleError`."""


class BundleError(RuntimeError):
    """esbuild refused the sources (a syntax error, an import of a missing file) or failed."""


@dataclass(frozen=True)
class Bundle:
    script: bytes
    """The entry module with everything it imports, one ES module."""
    style: bytes
    """The stylesheets, in the order given, as one stylesheet (empty when none were given)."""
    tool: str
    """Which bundler made it, e.g. ``esbuild 0.28.2``, for the server's log."""


def find_esbuild(root: Path = PROJECT_ROOT) -> Path | None:
    """The esbuild binary to bundle with, or ``None``.

    First the platform's own binary in ``node_modules`` (``npm ci --ignore-scripts`` puts it in
    ``node_modules/@esbuild/<platform>/bin``), then ``node_modules/.bin/esbuild``, then one on
    ``PATH``.
    """
    native = sorted((root / "node_modules" / "@esbuild").glob("*/bin/esbuild"))
    local = root / "node_modules" / ".bin" / "esbuild"
    for candidate in (*native, local):
        if candidate.is_file():
            return candidate
    found = shutil.which("esbuild")
    return Path(found) if found else None


def bundle(esbuild: Path, static: Path, entry: str, stylesheets: Sequence[str]) -> Bundle:
    """Bundle ``entry`` and ``stylesheets`` (paths relative to ``static``).

    Raises :class:`BundleError` with esbuild's own message when it fails.
    """
    script = _run(
        esbuild,
        static,
        [entry, *_QUIET, "--bundle", "--format=esm", "--minify-whitespace", "--minify-syntax"],
    )
    style = b""
    if stylesheets:
        imports = "".join(f'@import "./{path}";\n' for path in stylesheets)
        style = _run(esbuild, static, [*_QUIET, "--bundle", "--loader=css", "--minify"], imports)
    version = _run(esbuild, static, ["--version"]).decode().strip()
    return Bundle(script=script, style=style, tool=f"esbuild {version}")


def _run(esbuild: Path, cwd: Path, args: list[str], stdin: str = "") -> bytes:
    try:
        done = subprocess.run(
            [str(esbuild), *args],
            cwd=cwd,
            input=stdin.encode(),
            capture_output=True,
            timeout=_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise BundleError(f"{esbuild} could not run: {error}") from error
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip()
        raise BundleError(f"{esbuild} {' '.join(args)} failed: {message}")
    return done.stdout
