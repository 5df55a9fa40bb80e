"""Utilities every stage shares: errors, facts, files, names, YAML, dates."""
