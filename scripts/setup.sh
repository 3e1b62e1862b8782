# Sourced by scripts/serve and scripts/test: create .venv with Python 3.11 and install
# the pinned requirements and pipeviz (its compiled loops built by Cython, which pip
# fetches for the build), again only when a requirements file or the loops change.
# Usage: . scripts/setup.sh [requirements files...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

pick_python() {
  for c in "${PYTHON:-}" python3.11 python3; do
    [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 || continue
    if "$c" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then echo "$c"; return; fi
  done
  echo "pipeviz needs Python 3.11; set PYTHON=/path/to/python3.11" >&2
  exit 1
}

if [ ! -x .venv/bin/python ]; then
  echo "pipeviz: creating .venv" >&2
  "$(pick_python)" -m venv .venv
fi
reqs=("$@")
# The engine's compiled loops are built at install (setup.py): a change to their source
# installs again, so the extension is never older than pipeviz/kernels.py.
stamp=".venv/.installed-$(cat "${reqs[@]}" pyproject.toml setup.py pipeviz/kernels.py pipeviz/kernels.pxd | sha1sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  echo "pipeviz: installing ${reqs[*]} into .venv" >&2
  req_args=()
  for r in "${reqs[@]}"; do req_args+=(-r "$r"); done
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "${req_args[@]}"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
  touch "$stamp"
fi
