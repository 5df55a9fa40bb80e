"""Any multiple-choice benchmark described by a spec file: load, validate, audit (docs/audit.md).

`load.load_benchmark(spec_path)` gives a `Benchmark` (per item: id, split, category, stem,
choices, gold index); `audit.run_audit(benchmark)` gives one `Audit` object that the CLI
prints or emits as JSON (`command.py`). Nothing is imported here, so registering the CLI
command does not load numpy or scikit-learn.
"""
