"""Behavioural rows: a job in one format, what its own scheduler documents it gets, and what
the conversion gets when a real scheduler runs it (the Slurm run-mode and Grid Engine oracles)."""
