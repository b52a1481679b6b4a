# Each target makes its own .venv on first use: torch goes in first, so that nothing
# later can pull another build (a CUDA one) in its place.
PY ?= python3
# where pip looks for torch; empty: pip's own settings. Where those would fetch the
# CUDA build: make test TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH_INDEX ?=
# extra arguments for train.py: make train ARGS=--resume (or --overwrite)
ARGS ?=
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test train lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
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
