# Sourced by the other scripts: makes .venv (Python >= 3.11) and installs the project into it
# whenever pyproject.toml changed, and the client's bundler (esbuild, from package-lock.json)
# whenever that changed, so a fresh clone needs no other step. Each step it takes says so in one
# line on stderr, and pip and npm show their own progress; when nothing needs doing it is quiet.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
venv="$root/.venv"

step() { echo "specbid setup: $*" >&2; }

if [ ! -x "$venv/bin/python" ]; then
  py=""
  for cand in python3.13 python3.12 python3.11 python3; do
    if command -v "$cand" >/dev/null 2>&1 &&
       "$cand" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
      py="$cand"; break
    fi
  done
  [ -n "$py" ] || { echo "error: Python 3.11 or newer is needed" >&2; exit 1; }
  step "creating .venv with $py ($("$py" --version 2>&1))"
  "$py" -m venv "$venv"
fi
stamp="$venv/.installed"
want="$(sha256sum pyproject.toml | cut -d' ' -f1)-${SPECBID_EXTRAS:-dev}"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  step "upgrading pip in .venv"
  "$venv/bin/python" -m pip install --upgrade pip
  step "installing the project and its ${SPECBID_EXTRAS:-dev} tools into .venv (pip; a first install takes a minute or two)"
  "$venv/bin/python" -m pip install -e ".[${SPECBID_EXTRAS:-dev}]"
  echo "$want" > "$stamp"
  step "the project is installed in .venv"
fi
export PATH="$venv/bin:$PATH"

# The client's bundler: `specbid serve` bundles static/js and static/css with esbuild when it
# starts (web/bundler.py); npm brings esbuild's own binary from the registry, pinned by
# package-lock.json. Install scripts are not run: the server calls the platform's binary itself.
# Without npm the server still works and sends the modules unbundled (slower first visits),
# which is said once here and in the server's log at every start.
client_stamp="$venv/.client-installed"
client_want="$(sha256sum package.json package-lock.json | sha256sum | cut -d' ' -f1)"
client_have="$(cat "$client_stamp" 2>/dev/null || true)"
if [ ! -d node_modules/esbuild ] || [ "$client_have" != "$client_want" ]; then
  if command -v npm >/dev/null 2>&1; then
    step "installing the client's bundler, esbuild (npm ci)"
    if npm ci --ignore-scripts --no-audit --no-fund; then
      echo "$client_want" > "$client_stamp"
    else
      step "warning: npm ci failed; the server will send the client unbundled"
    fi
  elif [ "$client_have" != "none-$client_want" ]; then
    step "npm not found: the server will send the client unbundled (install Node.js and npm to bundle it)"
    echo "none-$client_want" > "$client_stamp"
  fi
fi

# The browser tests (tests/browser) drive Debian's Chromium through Playwright, never a downloaded
# browser. Installed here when it is missing and we may (root with apt); otherwise nothing is
# done and those tests skip with the reason (they fail instead when CI=true).
ensure_chromium() {
  [ -x /usr/bin/chromium ] && return 0
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 || return 0
  step "installing chromium for the browser tests (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq chromium >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium >/dev/null; } ||
    echo "warning: could not install chromium" >&2
}
