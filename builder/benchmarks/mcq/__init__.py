"""Any multiple-choice benchmark described by a spec file: load, validate, audit (docs/audit.md).

The layout follows the other plug-ins': `load.load_benchmark(spec_path)` gives a `SpecData`
(per item: id, split, category, stem, choices, gold index); `loading.py` is the build's load
stage (data, audit and runs, each run checked by `run_checks.py`); `analyses/` computes (the
audit, `analyses.audit.run_audit(data)`, whose one `Audit` the CLI prints or emits as JSON via
`command.py`; each run's summary; rankings, the leak split, the index; `analyses/compute.py`
turns them into facts); `views/` reads the facts into tables. Nothing is imported here, so
registering the CLI command does not load numpy or scikit-learn.
"""
