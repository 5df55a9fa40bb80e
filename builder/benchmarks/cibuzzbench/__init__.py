"""CIBuzzBench (Chinese internet buzzwords -> English): the first plug-in."""
