"""Model-free probes: answers computed from the options alone, written as runs."""
