# buzzprobe: `make site` sets up, fetches the data if needed and builds; `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
# Optional dependency groups `make test` adds to the build's own dependencies (`make site` needs
# none of them); CI adds `interop` (the real harnesses). One stamp per set of extras.
EXTRAS ?= test
comma := ,
TEST_INSTALLED := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))
# Model-free probe runs are pure functions of the data; this pins their `created` stamp
# so that `make runs` rewrites them byte for byte. It is the start of the day the probe definitions
# last changed (bump it when they change), never later than the commit that adds the runs: a run is
# never dated after the build that shows it.
PROBE_EPOCH ?= 1795996800

.PHONY: install data site runs test bench probe serve clean local-model local-serve test-local-model facts-doc

$(INSTALLED): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e .
	touch $(INSTALLED)

$(TEST_INSTALLED): $(INSTALLED)
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[$(EXTRAS)]'
	touch $(TEST_INSTALLED)

install: $(INSTALLED)

data: $(INSTALLED)
	$(BIN)/buzzprobe data fetch

site: data
	$(BIN)/buzzprobe build

runs: data
	SOURCE_DATE_EPOCH=$(PROBE_EPOCH) $(BIN)/buzzprobe runs

test: $(TEST_INSTALLED)
	$(BIN)/python -m pytest

# Cold and no-change builds of the committed site, then the scale bench (forced, cold and
# one-added-run builds on the committed runs and on +100 / +1,000 simulated runs in a temp folder),
# then the shelf: audit time per shipped spec (cold, cached) and a forced build against the import floor.
bench: data
	$(BIN)/python bench/build_bench.py
	$(BIN)/python bench/scale_bench.py
	$(BIN)/python bench/shelf_bench.py

# docs/facts.md is generated from the registered fact patterns (builder/benchmarks/*/fact_keys.py).
facts-doc: $(INSTALLED)
	$(BIN)/python -m builder.benchmarks.facts_reference

# Ask a model: make probe ARGS="--base-url http://127.0.0.1:8000/v1 --model NAME --sample 400" (docs/probing.md)
probe: data
	$(BIN)/buzzprobe probe $(ARGS)

# Preview the built site at http://127.0.0.1:8000/ (loopback only).
serve: site
	$(BIN)/python -m http.server --bind 127.0.0.1 --directory site 8000

clean:
	rm -rf site .cache

# A local model for probing without an API key (docs/probing.md): the GGUF (verified sha256) and
# llama-cpp-python's server in a virtualenv of their own under $(LOCAL); the site never needs them.
LOCAL ?= .local-model
LOCAL_PORT ?= 8080

local-model:
	$(PYTHON) scripts/local_model.py --dir $(LOCAL) fetch
	$(PYTHON) scripts/local_model.py --dir $(LOCAL) runtime

# Serves on 127.0.0.1:$(LOCAL_PORT) only; writes $(LOCAL)/runtime.json for `probe --runtime-info`.
local-serve: local-model
	$(PYTHON) scripts/local_model.py --dir $(LOCAL) serve --port $(LOCAL_PORT)

# Slow and opt-in (not in CI): starts the real server and probes 20 items in both conditions.
test-local-model: $(TEST_INSTALLED) local-model
	LOCAL_MODEL_DIR=$(LOCAL) $(BIN)/python -m pytest -q tests_local
