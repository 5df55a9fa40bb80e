"""Analyses: pure functions from dataset and runs to figures (never HTML)."""
