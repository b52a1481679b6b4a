# Each target makes its own .venv on first use: the CPU build of torch goes in
# first, so that nothing later can pull a CUDA build in its place.
PY ?= python3
# extra arguments for train.py: make train ARGS=--resume (or --overwrite)
ARGS ?=
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test train lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest tests

train: $(STAMP)
	$(BIN)/python train.py --config configs/rummikub_2p.yaml $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check rummienv agents tests benchmarks train.py

bench: $(STAMP)
	$(BIN)/python benchmarks/solver.py

clean:
	rm -rf $(VENV) runs
