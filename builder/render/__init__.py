"""Render stage: facts and run scores -> HTML/JSON files (no metric is computed here)."""
