"""A spec'd benchmark through lm-evaluation-harness and Inspect: export its sighted and blind
arms as tasks, import their logs back as runs, and map another task's multiple-choice samples
onto the spec (docs/lm-eval.md, docs/inspect.md)."""
