"""The one k-option choices-only ranker every multiple-choice audit uses (names no benchmark).

`Options.build(texts, gold)` reads only the option texts (a varying number per item), `fit_evaluate`
gives held-out option scores, `leak_scores` the per-item cross-fitted probability of the gold, and
`ablation` what each cue family adds. docs/ranker.md explains the design.
"""
