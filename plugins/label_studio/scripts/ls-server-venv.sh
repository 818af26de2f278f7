#!/usr/bin/env bash
# Create (once) and cache a virtual environment holding the Label Studio server, apart from the project's .venv.
#   plugins/label_studio/scripts/ls-server-venv.sh [VERSION]   -> prints the path of the venv's label-studio executable
# Cache: ${IAA_LS_CACHE:-~/.cache/iaa-engine}/label-studio-venv-<VERSION>. Python: ${IAA_LS_PYTHON:-python3}.
set -euo pipefail
VERSION="${1:-${IAA_LS_VERSION:-1.23.2}}"
CACHE="${IAA_LS_CACHE:-$HOME/.cache/iaa-engine}"
VENV="$CACHE/label-studio-venv-$VERSION"
PY="${IAA_LS_PYTHON:-python3}"
# gunicorn serves it with several processes, as Label Studio's Docker image does with uWSGI (see testing.py)
GUNICORN="gunicorn==27.0.1"
if [ -x "$VENV/bin/label-studio" ] && [ -f "$VENV/.complete" ] && [ -x "$VENV/bin/gunicorn" ]; then
  echo "$VENV/bin/label-studio"
  exit 0
fi
mkdir -p "$CACHE"
exec 9>"$CACHE/.label-studio-venv-$VERSION.lock"
flock 9   # two test sessions installing at once wait for each other
if [ ! -f "$VENV/.complete" ]; then
  rm -rf "$VENV"
  "$PY" -m venv "$VENV" >&2
  "$VENV/bin/python" -m pip install --quiet --upgrade pip >&2
  "$VENV/bin/python" -m pip install --quiet "label-studio==$VERSION" "$GUNICORN" >&2
  touch "$VENV/.complete"
fi
if [ ! -x "$VENV/bin/gunicorn" ]; then  # a venv cached before gunicorn was added
  "$VENV/bin/python" -m pip install --quiet "$GUNICORN" >&2
fi
echo "$VENV/bin/label-studio"
