#!/usr/bin/env bash
# Runs the whole suite: first on the embedded defaults (SQLite + in-memory channel layer), then, when
# DATABASE_URL or REDIS_URL is set, again on PostgreSQL / Redis (the scale-out configuration), where
# the `services` tests (several daphne workers sharing Redis, ...) also run.
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

echo "== embedded: SQLite, in-memory channel layer"
run env -u DATABASE_URL -u REDIS_URL "$py" -m pytest -q -p no:cacheprovider --durations=10 tests || exit 1

if [ -n "${DATABASE_URL:-}${REDIS_URL:-}" ]; then
  echo "== scale-out: DATABASE_URL=${DATABASE_URL:-unset} REDIS_URL=${REDIS_URL:-unset}"
  run "$py" -m pytest -q -p no:cacheprovider --durations=10 tests || exit 1
fi
