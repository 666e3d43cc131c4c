# Sourced by the other scripts: makes .venv (Python >= 3.11) and installs the project into it
# whenever pyproject.toml changed, so a fresh clone needs no other step.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
venv="$root/.venv"
if [ ! -x "$venv/bin/python" ]; then
  py=""
  for cand in python3.13 python3.12 python3.11 python3; do
    if command -v "$cand" >/dev/null 2>&1 &&
       "$cand" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
      py="$cand"; break
    fi
  done
  [ -n "$py" ] || { echo "error: Python 3.11 or newer is needed" >&2; exit 1; }
  "$py" -m venv "$venv"
fi
stamp="$venv/.installed"
want="$(sha256sum pyproject.toml | cut -d' ' -f1)-${SPECBID_EXTRAS:-dev}"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet -e ".[${SPECBID_EXTRAS:-dev}]"
  echo "$want" > "$stamp"
fi
export PATH="$venv/bin:$PATH"

# The browser tests (tests/browser) drive Debian's Chromium through Playwright, never a downloaded
# browser. Installed here when it is missing and we may (root with apt); otherwise nothing is
# done and those tests skip with the reason (they fail instead when CI=true).
ensure_chromium() {
  [ -x /usr/bin/chromium ] && return 0
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 || return 0
  echo "installing chromium for the browser tests (apt-get)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq chromium >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium >/dev/null; } ||
    echo "warning: could not install chromium" >&2
}
