"""Benchmarks that buzzprobe reads through a declared shape (docs/audit.md)."""
