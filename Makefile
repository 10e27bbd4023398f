# One command to set up and start (make run), one to set up and test (make test).
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

export ORT_DISABLE_TELEMETRY := 1
export ANONYMIZED_TELEMETRY := False
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install run test bench eval clean

install: $(STAMP)

# torch goes first and pinned: 2.13.0 is a local CPU build here; anything that
# asks for an unpinned torch later then finds it satisfied.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/advisor serve --host 127.0.0.1 --port 8000

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m bench

eval: $(STAMP)
	$(BIN)/python -m evaluators

clean:
	rm -rf $(VENV) .advisor-data .pytest_cache
