#!/usr/bin/env bash
# Runs the whole suite. pytest exit code 5 (nothing collected) is a failure here, never a pass.
set -uo pipefail
cd "$(dirname "$0")/.."
py=.venv/bin/python

"$py" -m pytest -q "$@" tests
code=$?
if [ "$code" -eq 5 ]; then
  echo "pytest collected no tests: failing" >&2
  exit 1
fi
exit "$code"
