"""Run files: format, strict reading, resumable writing and checks against the dataset."""
