"""Interoperability with other evaluation harnesses (lm-evaluation-harness, Inspect): export
buzzprobe's protocol as their tasks and import their outputs as ordinary runs."""
