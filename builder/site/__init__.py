"""Render and write: templates, Markdown pages, tables, charts, the atomic site writer."""
