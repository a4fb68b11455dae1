# Two commands on a fresh machine:  `make demo`  and  `make test`  (each installs the venv first if needed).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
OUT ?= out
SEED ?= 0
# The design's whole stack: torch and open_clip ([clip]), the embedding and NLI labelers, the test tools.
# .ci/run adds llm and ray in the same pip call (one resolution instead of three).
EXTRAS ?= test,clip,embedding,nli
# Test workers: both cores (pytest-xdist; a module's tests and its fixtures stay on one worker).
JOBS ?= auto

.PHONY: demo test test-fast lint install clean

$(VENV)/.installed: pyproject.toml setup.py synthdocqa/__init__.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[$(EXTRAS)]'
	touch $@

install: $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/synthdocqa generate --profile demo --seed $(SEED) --out $(OUT)/demo
	$(BIN)/synthdocqa verify $(OUT)/demo

test: $(VENV)/.installed
	$(BIN)/python -m pytest -q -n $(JOBS) --dist loadscope

# The inner loop: everything but the tests marked slow (Prefect servers, signals, a real model).
test-fast: $(VENV)/.installed
	$(BIN)/python -m pytest -q -n $(JOBS) --dist loadscope -m "not slow"

lint: $(VENV)/.installed
	$(BIN)/ruff check .

clean:
	rm -rf $(OUT) .pytest_cache
