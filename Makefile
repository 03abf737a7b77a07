# ai-operator: set-up, tests, lint, benchmarks. Everything installs from nothing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
APT_PACKAGES := espeak-ng sox libsox-fmt-all systemd sip-tester

.PHONY: install system-deps test lint demo bench install-system clean

install: system-deps $(BIN)/ai-operator

system-deps:
	@if ! command -v espeak-ng >/dev/null || ! command -v sox >/dev/null || ! command -v systemd-analyze >/dev/null || ! command -v sipp >/dev/null; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PACKAGES); \
		else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PACKAGES); fi; \
	fi

$(BIN)/ai-operator: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	@touch $@

test: install
	$(BIN)/pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy

demo: install
	$(BIN)/ai-operator demo --env etc/ai-operator.env.example

bench: install
	$(BIN)/python -m benchmarks.run

install-system:
	sudo scripts/install-system.sh

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
