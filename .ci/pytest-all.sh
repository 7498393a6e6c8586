#!/usr/bin/env bash
# Runs the whole suite: on the embedded defaults (SQLite + in-memory channel layer) and, when DATABASE_URL
# or REDIS_URL is set, again on PostgreSQL / Redis (the scale-out configuration), where the `services` tests
# (several daphne workers sharing Redis, ...) also run. The embedded pass runs the compiled hot modules, the
# other the package as Python.
#
# The two passes run at the same time, one pytest process each: pytest uses one core and the machines CI
# runs on have two. They share nothing: the embedded pass has its SQLite file in var/, the other its own
# data dir (TRIMSCOPE_VAR_DIR) and the PostgreSQL test database; each has its own pytest temp dir. The second
# pass's output is kept in a file and printed after the first's, so neither is interleaved with the other.
# pytest exit code 5 (nothing collected) is a failure here, never a pass.
set -uo pipefail
cd "$(dirname "$0")/.."
py=.venv/bin/python
mkdir -p var/ci

verdict() {
  local code=$1
  if [ "$code" -eq 5 ]; then
    echo "pytest collected no tests: failing" >&2
    return 1
  fi
  return "$code"
}

# The replay's hot modules (simulator/replay/compiled.py): the embedded pass tests the compiled build `make
# test` made (a missing or stale build fails it), the other the package as Python, as it runs without a
# compiler.
if [ -n "${DATABASE_URL:-}${REDIS_URL:-}" ]; then
  second_title="scale-out: DATABASE_URL=${DATABASE_URL:-unset} REDIS_URL=${REDIS_URL:-unset}; hot modules as Python"
  second=(tests --durations=10)
else
  second_title="the simulator as Python (hot modules not compiled)"
  second=(tests/simulator tests/vectors)
fi

second_log=var/ci/second-pass.log
env TRIMSCOPE_COMPILED=0 TRIMSCOPE_VAR_DIR="$PWD/var/ci/second-pass" \
  "$py" -m pytest -q -p no:cacheprovider --basetemp=var/ci/second-pass-tmp "${second[@]}" >"$second_log" 2>&1 &
second_pid=$!
trap 'kill "$second_pid" 2>/dev/null' EXIT

echo "== embedded: SQLite, in-memory channel layer; hot modules compiled (beside it: $second_title)"
env -u DATABASE_URL -u REDIS_URL -u TRIMSCOPE_COMPILED TRIMSCOPE_EXPECT_COMPILED=1 \
  "$py" -m pytest -q -p no:cacheprovider --basetemp=var/ci/embedded-tmp --durations=10 tests
verdict $?
first=$?

wait "$second_pid"
second_code=$?
trap - EXIT
echo "== $second_title"
cat "$second_log"
verdict "$second_code"
second_verdict=$?

[ "$first" -eq 0 ] && [ "$second_verdict" -eq 0 ]
