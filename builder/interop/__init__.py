"""lm-evaluation-harness and Inspect, both ways, for every plug-in that writes tasks for them:
their logs read (lm_eval_log.py, inspect_log.py), tasks written (writers.py), and the commands
dispatched to the plug-ins through the contract's `harness_interop` (command.py)."""
