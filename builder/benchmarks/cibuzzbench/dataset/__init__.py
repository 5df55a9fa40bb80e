"""Loading, validating and shaping the CIBuzzBench dataset."""
