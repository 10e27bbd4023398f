# One command to set up and start (make run), one to set up and test (make test).
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

export ORT_DISABLE_TELEMETRY := 1
export ANONYMIZED_TELEMETRY := False
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install bytecode run test bench eval clean

install: $(STAMP)

# torch goes first and pinned: 2.13.0 is a local CPU build here; anything that
# asks for an unpinned torch later then finds it satisfied.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	# The eval baseline; --no-deps: its own pins would downgrade transformers (see pyproject.toml).
	$(BIN)/python -m pip install --quiet --no-deps llm-analysis==0.2.2
	touch $(STAMP)

# Bytecode of this checkout's modules: with PYTHONDONTWRITEBYTECODE=1 (the Dockerfile's setting, some shells') nothing
# writes it, and every `advisor serve` from the source compiled the service again first, about a second of its start
# (issue 26). An installed package has it already (pip compiles at install).
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q service evaluators bench > /dev/null

run: $(STAMP) bytecode
	$(BIN)/advisor serve --host 127.0.0.1 --port 8000

test: $(STAMP)
	$(BIN)/ruff check service evaluators bench tests
	$(BIN)/python -m pytest

bench: $(STAMP) bytecode
	$(BIN)/python -m bench

# Every evaluation -> reports/eval-<date>/report.md + figures; exits 1 naming any metric below evaluators/gates.yaml.
# CI runs the subset: `$(BIN)/advisor eval --fast`.
eval: $(STAMP)
	$(BIN)/python -m evaluators

clean:
	rm -rf $(VENV) .advisor-data .pytest_cache
