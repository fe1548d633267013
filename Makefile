# Every command a developer needs. `make up` runs the hub; `make test` passes the tests.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml clients/python/pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: setup up test test-fast lint format bench bench-quick bench-inprocess bench-import clients

setup: $(STAMP)

$(STAMP): pyproject.toml clients/python/pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# The CPU build of torch first, by exact version: anything looser makes pip fetch a CUDA build.
	$(PY) -m pip install --quiet torch==2.13.0
	# The client (clients/python) before the hub, which depends on it: it is on no package index.
	$(PY) -m pip install --quiet -e ./clients/python
	$(PY) -m pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-* && touch $@

up: setup
	$(VENV)/bin/memhub up

test: setup
	$(PY) -m pytest

test-fast: setup
	$(PY) -m pytest -m "not slow and not docker"

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format: setup
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# The path agents take: a started hub over HTTP. The in-process one shows where the time goes.
bench: setup
	$(PY) -m benchmarks.http_path

bench-quick: setup
	$(PY) -m benchmarks.http_path --memories 500 --searches 50

bench-inprocess: setup
	$(PY) -m benchmarks.ingest_search

bench-import: setup
	$(PY) -m benchmarks.import_workspace

# After a change to the API: the OpenAPI document and the clients' models generated from it.
clients: setup
	$(PY) clients/generate.py
	cd clients/typescript && (test -d node_modules || npm ci) && npm run generate
