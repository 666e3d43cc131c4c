"""``scripts/_venv.sh`` on a fresh clone says what it does, a line a step, and lets pip show its
progress; run again with nothing to do, it says nothing.

The script runs in a scratch copy of the tree against stand-ins for Python, pip and npm (small
shell scripts that note how they were called), so the test takes a second and needs no network.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ("bash", "sha256sum", "cut", "cat", "dirname", "id", "mkdir", "chmod")
"""What the script needs of the system, linked into the scratch PATH (which has no npm unless a
test puts its stand-in there)."""

PYTHON = """#!/bin/bash
# Stands in for python3.11: venv makes a .venv whose python notes pip's arguments.
echo "python $*" >> "$CALLS"
case "$1" in
  -c) exit 0 ;;
  --version) echo "Python 3.11.9"; exit 0 ;;
  -m) if [ "$2" = venv ]; then
        mkdir -p "$3/bin"
        printf '#!/bin/bash\\necho "venv-python $*" >> "$CALLS"\\n' > "$3/bin/python"
        chmod +x "$3/bin/python"
      fi ;;
esac
"""
NPM = """#!/bin/bash
echo "npm $*" >> "$CALLS"
mkdir -p node_modules/esbuild
"""


def _tree(tmp_path: Path, *, npm: bool) -> tuple[Path, dict[str, str]]:
    tree = tmp_path / "clone"
    (tree / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "_venv.sh", tree / "scripts" / "_venv.sh")
    for name in ("pyproject.toml", "package.json", "package-lock.json"):
        shutil.copy(ROOT / name, tree / name)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in TOOLS:
        found = shutil.which(tool)
        assert found is not None, tool
        (bin_dir / tool).symlink_to(found)
    for name, text in (("python3.11", PYTHON), *((("npm", NPM),) if npm else ())):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    env = {"PATH": str(bin_dir), "CALLS": str(tmp_path / "calls"), "HOME": str(tmp_path)}
    return tree, env


def _source(tree: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", "source scripts/_venv.sh"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def test_a_first_run_says_each_step_and_a_second_says_nothing(tmp_path: Path) -> None:
    tree, env = _tree(tmp_path, npm=True)
    first = _source(tree, env)
    steps = [line for line in first.stderr.splitlines() if line.startswith("specbid setup: ")]
    assert [step.split(":", 1)[1].split("(")[0].strip() for step in steps] == [
        "creating .venv with python3.11",
        "upgrading pip in .venv",
        "installing the project and its dev tools into .venv",
        "the project is installed in .venv",
        "installing the client's bundler, esbuild",
    ]
    calls = Path(env["CALLS"]).read_text().splitlines()
    pip_calls = [call for call in calls if call.startswith("venv-python -m pip install")]
    assert len(pip_calls) == 2
    assert not any("--quiet" in call or " -q" in call for call in pip_calls)  # progress shown
    assert "npm ci --ignore-scripts --no-audit --no-fund" in calls

    again = _source(tree, env)
    assert again.stderr == ""
    assert again.stdout == ""
    assert Path(env["CALLS"]).read_text().splitlines() == calls  # nothing run


def test_without_npm_it_says_so_once_and_goes_on(tmp_path: Path) -> None:
    tree, env = _tree(tmp_path, npm=False)
    first = _source(tree, env)
    assert "npm not found: the server will send the client unbundled" in first.stderr
    again = _source(tree, env)
    assert again.stderr == ""


@pytest.mark.parametrize("script", ["serve", "test", "lint"])
def test_the_scripts_source_the_setup(script: str) -> None:
    text = (ROOT / "scripts" / script).read_text()
    assert 'source "$(dirname "$0")/_venv.sh"' in text
    assert os.access(ROOT / "scripts" / script, os.X_OK)
