"""The spec'd benchmarks' tables, chart rows and sentences, read from the facts (compute wrote them)."""
