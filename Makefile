# Lexio — the three commands a newcomer needs: make run, make test, make bench.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
HOST ?= 127.0.0.1
PORT ?= 8080
CHROMIUM := /usr/lib/chromium/chromium
# pytest-xdist workers for make unit and make e2e (this machine and CI have two cores).
TEST_WORKERS ?= 2
# Re-install only when the project's pins change.
SETUP_STAMP := $(VENV)/.setup-$(shell cat pyproject.toml | sha256sum | cut -c1-16)
WEB_STAMP := web/dist/.built

.PHONY: run test bench setup tools web test-tools chromium postgresql cluster-tools cluster lint unit e2e clean lexicon-sources

setup: $(SETUP_STAMP)

$(SETUP_STAMP): pyproject.toml
	@$(MAKE) --no-print-directory tools
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,web,lexicon-build]'
	@rm -f $(VENV)/.setup-*
	@touch $@

# Vendors Pyodide + PyScript (npm pack, pinned, hash-checked) and builds the static site into web/dist.
web: setup
	$(PY) web/build.py --out web/dist

# A stock Debian 12 lacks ensurepip (python3-venv) and may lack npm (the browser runtime and the word list's
# sources come through `npm pack`): install them as root, else say what to run.
tools:
	@missing=""; \
	$(PYTHON) -c 'import ensurepip' 2>/dev/null || missing="$$missing python3-venv"; \
	command -v npm >/dev/null || missing="$$missing npm"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else \
	    echo "missing:$$missing — run 'sudo apt-get install -y$$missing'"; exit 1; \
	  fi; \
	fi

chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	  else \
	    echo "Debian's chromium is missing: run 'sudo apt-get install -y chromium' (binary $(CHROMIUM))"; exit 1; \
	  fi; \
	fi

# The PostgreSQL journal's tests start their own throw-away server from Debian's package (no cluster of the
# package's own: create_main_cluster is switched off before it installs).
postgresql:
	@if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-common && \
	    sed -i 's/^#* *create_main_cluster.*/create_main_cluster = false/' /etc/postgresql-common/createcluster.conf && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; \
	  else \
	    echo "Debian's postgresql is missing: run 'sudo apt-get install -y postgresql'"; exit 1; \
	  fi; \
	fi

# Several relays (make cluster, the cluster tests and bench): Debian's Redis, HAProxy and faketime. Their
# packages start a daemon on install; a policy-rc.d that refuses keeps them from starting (the tests and
# make cluster run their own on free loopback ports) and the services are disabled for the next boot.
CLUSTER_TOOLS := redis-server haproxy faketime
cluster-tools:
	@missing=""; \
	for tool in $(CLUSTER_TOOLS); do \
	  command -v $$tool >/dev/null || [ -x /usr/sbin/$$tool ] || missing="$$missing $$tool"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    had_policy=0; [ -e /usr/sbin/policy-rc.d ] && had_policy=1; \
	    [ $$had_policy = 1 ] || { printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; }; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; rc=$$?; \
	    [ $$had_policy = 1 ] || rm -f /usr/sbin/policy-rc.d; \
	    for unit in redis-server haproxy; do \
	      systemctl disable --now $$unit >/dev/null 2>&1 || true; \
	    done; \
	    exit $$rc; \
	  else \
	    echo "missing:$$missing — run 'sudo apt-get install -y$$missing'"; exit 1; \
	  fi; \
	fi

# Several relays on this machine: PostgreSQL, Redis, three relays and HAProxy in front on 127.0.0.1:$(PORT)
# (tests/harness/localcluster.py); Ctrl-C stops them all. The journal stays in var/cluster/.
cluster: setup web postgresql cluster-tools
	@mkdir -p var
	PYTHONPATH=tests $(PY) -m harness.localcluster --port $(PORT) --static web/dist --data var/cluster

run: setup web
	@mkdir -p var
	@# Browsers refuse passkeys on an IP address: on loopback, the localhost name is the address to open.
	@echo "Lexio: http://$(if $(filter 127.0.0.1,$(HOST)),localhost,$(HOST)):$(PORT)/"
	$(BIN)/lexio serve --host $(HOST) --port $(PORT) --db var/lexio.sqlite3 --static web/dist

lint: setup
	$(BIN)/ruff check engine relay wire web
	$(BIN)/mypy

# Fetches (hash-checked) the word list's pinned sources so the byte-for-byte rebuild test can run offline.
lexicon-sources: setup
	$(PY) lexicons/build.py --fetch

# Browser-side test tools (axe-core for the accessibility checks), pinned and hash-checked, never shipped.
test-tools: setup
	$(PY) web/build.py --fetch axe

# Two workers as for e2e: every test starts its own servers on free loopback ports and works in its own tmp_path.
unit: setup web lexicon-sources test-tools postgresql cluster-tools
	LEXIO_REQUIRE_LEXICON_BUILD=1 $(PY) -m pytest -q -n $(TEST_WORKERS) --dist worksteal tests

# Two pytest-xdist workers (this machine and CI have two cores), each with its own relay, site copy and
# browser; worksteal evens out tests of very different lengths. A failing test leaves a Playwright trace and
# screenshots in e2e/artifacts/<test-name>/ (e2e/e2e_artifacts.py); LEXIO_E2E_TRACE=full adds DOM snapshots
# to the traces, at a fifth more time.
e2e: setup web test-tools chromium postgresql cluster-tools
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist worksteal e2e || { \
	  echo "e2e failures: traces and screenshots under e2e/artifacts/<test-name>/" \
	    "(open a trace with: $(BIN)/playwright show-trace FILE)"; exit 1; }

test: lint unit e2e

bench: setup web chromium postgresql cluster-tools
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) web/dist var .mypy_cache .ruff_cache .pytest_cache
