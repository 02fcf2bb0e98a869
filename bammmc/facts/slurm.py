"""Facts of Slurm that more than one module needs (a reader and other formats' writers)."""

from __future__ import annotations


def default_output(array: bool) -> str:
    """The SPLAT template of sbatch's own output file (sbatch(1), --output: "slurm-%j.out" by
    default, "slurm-%A_%a.out" for a job array), in the submit (or --chdir) directory.

    >>> default_output(False), default_output(True)
    ('slurm-{job_id}.out', 'slurm-{array_job_id}_{array_index}.out')
    """
    return "slurm-{array_job_id}_{array_index}.out" if array else "slurm-{job_id}.out"
