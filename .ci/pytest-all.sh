#!/usr/bin/env bash
# Runs the whole suite: first on the embedded defaults (SQLite + in-memory channel layer), then, when
# DATABASE_URL or REDIS_URL is set, again on PostgreSQL / Redis (the scale-out configuration), where
# the `services` tests (several daphne workers sharing Redis, ...) also run. The first pass runs the compiled
# hot modules, the second the package as Python.
# pytest exit code 5 (nothing collected) is a failure here, never a pass.
set -uo pipefail
cd "$(dirname "$0")/.."
py=.venv/bin/python

run() {
  "$@"
  local code=$?
  if [ "$code" -eq 5 ]; then
    echo "pytest collected no tests: failing" >&2
    return 1
  fi
  return "$code"
}

# The replay's hot modules (simulator/replay/compiled.py): the first pass tests the compiled build `make test`
# made (a missing or stale build fails it), the second the package as Python, as it runs without a compiler.
echo "== embedded: SQLite, in-memory channel layer; hot modules compiled"
run env -u DATABASE_URL -u REDIS_URL -u TRIMSCOPE_COMPILED TRIMSCOPE_EXPECT_COMPILED=1 \
  "$py" -m pytest -q -p no:cacheprovider --durations=10 tests || exit 1

if [ -n "${DATABASE_URL:-}${REDIS_URL:-}" ]; then
  echo "== scale-out: DATABASE_URL=${DATABASE_URL:-unset} REDIS_URL=${REDIS_URL:-unset}; hot modules as Python"
  run env TRIMSCOPE_COMPILED=0 "$py" -m pytest -q -p no:cacheprovider --durations=10 tests || exit 1
else
  echo "== the simulator as Python (hot modules not compiled)"
  run env TRIMSCOPE_COMPILED=0 "$py" -m pytest -q -p no:cacheprovider tests/simulator tests/vectors || exit 1
fi
