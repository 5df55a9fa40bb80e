# buzzprobe: `make site` sets up, fetches the data if needed and builds; `make test` type-checks
# builder/ (`make typecheck`) and runs the tests.
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
PROBE_EPOCH ?= 1796169600

.PHONY: install data site runs test typecheck bench probe serve clean local-model local-serve test-local-model facts-doc spec-doc mmlu-pro-runs chembench-data chembench-runs lawbench-runs eee-venv

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

# One pytest-xdist worker per core (at most 4), a test module per worker at a time (its module
# fixtures are built once), the slowest modules first (tests/conftest.py SLOW_FIRST); the whole-site
# builds are shared between workers (tests/shared_builds.once_per_run).
# `make test PYTEST_ARGS=` runs the suite in one process.
# Bytecode is cached (in the gitignored __pycache__ folders) even where the environment sets
# PYTHONDONTWRITEBYTECODE: the suite starts many Python processes on the same code (each worker
# collects every module; the CLI, the harnesses), and without it each recompiles builder/ and
# re-rewrites the test modules (collection 11-14 s instead of 6 s per worker, docs/performance.md).
PYTEST_ARGS ?= -n auto --maxprocesses 4 --dist loadfile --no-loadscope-reorder

test: typecheck
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest $(PYTEST_ARGS)

# mypy over builder/ (its settings and the one stated exception: [tool.mypy] in pyproject.toml);
# any error fails `make test`, so CI.
typecheck: $(TEST_INSTALLED)
	$(BIN)/python -m mypy

# The 29 published MMLU-Pro output files (MANIFEST.tsv of the shared copy) as runs in runs/mmlu-pro/
# (docs/import-results.md); FORCE=--force replaces runs whose content changed.
MMLU_PRO_SHARED ?= ../shared/data/mmlu-pro
MMLU_PRO_COMMIT := f418b116db00b065c2aea046518d8fcf74d39872
mmlu-pro-runs: $(INSTALLED)
	tail -n +2 $(MMLU_PRO_SHARED)/MANIFEST.tsv | cut -f1,3 | while read -r file date; do \
	  model=$${file#model_outputs_}; model=$${model%_5shots.zip}; \
	  BUZZPROBE_DATA_MMLU_PRO=$(MMLU_PRO_SHARED) $(BIN)/python -m builder.cli import results $(MMLU_PRO_SHARED)/outputs/$$file \
	    --benchmark mmlu-pro --model "$$model" --source-repo https://github.com/TIGER-AI-Lab/MMLU-Pro \
	    --source-commit $(MMLU_PRO_COMMIT) --source-date $$date --source-file eval_results/$$file \
	    --prompt-setting "5-shot chain of thought, upstream" --out runs/mmlu-pro $(FORCE) || exit 1; \
	done

# ChemBench's published reports (12 systems and the chemists, `humans`) as runs in runs/chembench/,
# scored as the upstream scores them. The spec reads the questions from data/chembench/ (a clone,
# or the shared data.zip unpacked there: it keeps the upstream's paths).
CHEMBENCH_SHARED ?= ../shared/data/chembench
CHEMBENCH_COMMIT := 8fe22914b81978d180e6182ea982eb58e2e0e8dc
# The date of commit 8341cce, the last before CHEMBENCH_COMMIT to change any system's reports.
CHEMBENCH_DATE := 2024-10-31
CHEMBENCH_SYSTEMS := o1 claude3.5 claude3 gpt-4o gpt-4 gpt-3.5-turbo llama3.1-405b-instruct llama3.1-70b-instruct \
  llama3.1-8b-instruct mistral-large-2-123b gemini-pro galactica_120b humans
chembench-data:
	test -d data/chembench/src || { mkdir -p data/chembench && $(PYTHON) -m zipfile -e $(CHEMBENCH_SHARED)/data.zip data/chembench; }
chembench-runs: $(INSTALLED) chembench-data
	for system in $(CHEMBENCH_SYSTEMS); do \
	  $(BIN)/python -m builder.cli import results $(CHEMBENCH_SHARED)/reports/$$system.zip \
	    --benchmark chembench --format chembench --model "$$system" --source-repo https://github.com/lamalab-org/chembench-paper \
	    --source-commit $(CHEMBENCH_COMMIT) --source-date $(CHEMBENCH_DATE) --source-file src/data/chem-bench-main/reports/$$system \
	    --prompt-setting "zero-shot, upstream" --out runs/chembench $(FORCE) || exit 1; \
	done

# LawBench's published zero-shot predictions (51 models, tasks 1-2 and 3-6) as runs in runs/lawbench/.
LAWBENCH_SHARED ?= ../shared/data/lawbench
LAWBENCH_COMMIT := e30981bb3ff54c41571f222e0b23e92d27375388
lawbench-runs: $(INSTALLED)
	unzip -Z1 $(LAWBENCH_SHARED)/predictions-zero_shot.zip | sed -n 's|^predictions/zero_shot/\([^/]*\)/1-2.json$$|\1|p' | \
	while read -r model; do \
	  date=$$(awk -F'\t' -v m="$$model" '$$1 == m {print $$2}' scripts/lawbench-source-dates.tsv); \
	  BUZZPROBE_DATA_LAWBENCH=$(LAWBENCH_SHARED) $(BIN)/python -m builder.cli import results \
	    $(LAWBENCH_SHARED)/predictions-zero_shot.zip --benchmark lawbench --format lawbench --model "$$model" \
	    --source-repo https://github.com/open-compass/LawBench --source-commit $(LAWBENCH_COMMIT) \
	    $${date:+--source-date $$date} \
	    --source-file "predictions/zero_shot/$$model" --prompt-setting "zero-shot, upstream" --out runs/lawbench $(FORCE) || exit 1; \
	done

# Every Eval Ever's validator for the export round trip (tests/test_eee_export.py): every-eval-ever
# 0.3.0 needs Python >= 3.12 and the build's venv may be older, so it gets a virtualenv of its own.
# python3.12 on the PATH, or pyenv's newest 3.12 (its shim needs the version named)
PYTHON312 ?= $(shell PYENV_VERSION=$$(pyenv latest 3.12 2>/dev/null) python3.12 -c 'import sys; print(sys.executable)' 2>/dev/null || echo python3.12)
EEE_VENV ?= .venv-eee
$(EEE_VENV)/.installed:
	test -x $(EEE_VENV)/bin/python || $(PYTHON312) -m venv $(EEE_VENV)
	$(EEE_VENV)/bin/python -m pip install --quiet every-eval-ever==0.3.0
	touch $@

eee-venv: $(EEE_VENV)/.installed

# The cold-build budget first (every run and spec with an empty cache against Inspect's `view bundle`
# of the 29 MMLU-Pro runs, peak memory, forced and one-added-run builds against the import floor;
# medians, bench/cold_bench.py), then cold and no-change builds of the committed site, then the scale bench (forced, cold and
# one-added-run builds on the committed runs and on +100 / +1,000 simulated runs in a temp folder),
# then the shelf: audit time per shipped spec (cold, cached) and a forced build against the import floor,
# then the audit of a synthetic 200,000-item benchmark against its time and memory budget
# (BUZZPROBE_BENCH_MILLION=1 adds 1,000,000 items: about 10 minutes more; docs/audit.md).
bench: data
	$(BIN)/python bench/cold_bench.py
	$(BIN)/python bench/build_bench.py
	$(BIN)/python bench/scale_bench.py
	$(BIN)/python bench/shelf_bench.py
	$(BIN)/python bench/audit_bench.py

# docs/facts.md is generated from the registered fact patterns (builder/benchmarks/*/fact_keys.py).
facts-doc: $(INSTALLED)
	$(BIN)/python -m builder.benchmarks.facts_reference

# The table of spec keys in docs/audit.md is generated from the code (builder/benchmarks/mcq/spec_keys.py).
spec-doc: $(INSTALLED)
	$(BIN)/python -m builder.benchmarks.mcq.spec_keys

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
