"""Published per-item results turned into runs of a spec'd benchmark (`buzzprobe import results`),
and runs written out for other tools (`buzzprobe export eee`). docs/import-results.md."""
