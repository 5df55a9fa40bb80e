"""Mouse (Chinese Chouxiang language) benchmark: schema, parsing, metrics, import, reported tables.

Modules: `config` (gold-column mapping), `dataset` (the three data files), `parsing`
(official answer and judge formats), `importer` (official output files), `run_format` (Mouse
items in the shared run format), `runs` (headers, imported runs, checks, scores), `probe`
(plans for the shared probing engine), `reported` (paper Tables 3, 4, 6); `analyses/` computes
(`metrics`: 0-1 scores and bootstrap intervals; `score_facts`, `measured_runs`,
`reported_figures`, `paper_claims`: FactTable entries) and `views/` lays out the page's tables
and chart. See docs/mouse.md.
"""
