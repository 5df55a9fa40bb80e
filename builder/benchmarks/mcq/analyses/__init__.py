"""The compute side of the spec'd benchmarks: the model-free audit and its learned probe (cached
by content), each run's summary, the tie groups, the leak split, the reconciliation with the
upstream's figures, the index row, and compute.py, which turns them into facts."""
