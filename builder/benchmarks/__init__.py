"""Benchmarks plugged into the pipeline, one folder each."""
