# Each target makes its own .venv on first use: torch goes in first, so that nothing
# later can pull another build (a CUDA one) in its place.
PY ?= python3
# where pip looks for torch; empty: pip's own settings. Where those would fetch the
# CUDA build: make test TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH_INDEX ?=
# what make train trains, and extra arguments for train.py: make train ARGS=--resume (or --overwrite)
CONFIG ?= configs/rummikub_2p.yaml
ARGS ?=
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# RLlib pins its own Gymnasium, so its example and check get an environment of their own
RLLIB_VENV := .venv-rllib
RLLIB_STAMP := $(RLLIB_VENV)/.installed

.PHONY: test train lint bench rllib-check clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -n auto --dist worksteal tests

# train.py prints the make form of its resume hint: it learns here how it was started, and with which CONFIG
train: $(STAMP)
	RUMMIENV_MAKE_CONFIG='$(if $(filter file,$(origin CONFIG)),,$(CONFIG))' $(BIN)/python train.py --config $(CONFIG) $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check rummienv agents tests benchmarks examples docs train.py

bench: $(STAMP)
	$(BIN)/python benchmarks/solver.py

$(RLLIB_STAMP): pyproject.toml
	test -x $(RLLIB_VENV)/bin/python || $(PY) -m venv $(RLLIB_VENV)
	$(RLLIB_VENV)/bin/pip install -q --upgrade pip
	$(RLLIB_VENV)/bin/pip install -q torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(RLLIB_VENV)/bin/pip install -q -e '.[rllib]' pytest
	touch $(RLLIB_STAMP)

# PPO from RLlib on Rummy 500 for a few iterations, in its own environment (without the dev extra, so
# without tests/conftest.py, whose fuzzing profiles need hypothesis)
rllib-check: $(RLLIB_STAMP)
	$(RLLIB_VENV)/bin/python -m pytest -p no:cacheprovider --noconftest tests/test_rllib.py

clean:
	rm -rf $(VENV) $(RLLIB_VENV) runs
