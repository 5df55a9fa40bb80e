"""Mouse analyses: the figures and facts computed from the paper's tables and from Mouse runs (never HTML)."""
