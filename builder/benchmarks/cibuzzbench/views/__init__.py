"""CIBuzzBench's tables, charts and run pages (views over computed facts)."""
