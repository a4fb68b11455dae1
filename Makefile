# Two commands on a fresh machine:  `make demo`  and  `make test`  (each installs the venv first if needed).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
OUT ?= out
SEED ?= 0

.PHONY: demo test test-fast lint install clean

$(VENV)/.installed: pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,clip,embedding,nli]'
	touch $@

install: $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/synthdocqa generate --profile demo --seed $(SEED) --out $(OUT)/demo
	$(BIN)/synthdocqa verify $(OUT)/demo

test: $(VENV)/.installed
	$(BIN)/python -m pytest -q

# The inner loop: everything but the tests marked slow (Prefect servers, signals, a real model).
test-fast: $(VENV)/.installed
	$(BIN)/python -m pytest -q -m "not slow"

lint: $(VENV)/.installed
	$(BIN)/ruff check .

clean:
	rm -rf $(OUT) .pytest_cache
