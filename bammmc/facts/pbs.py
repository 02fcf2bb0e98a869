"""Facts of PBS Professional's and Torque's `qsub` shared by their lowering and writers."""

from __future__ import annotations


def default_path(letter: str, array: bool, torque: bool) -> str | None:
    """The SPLAT template of the file qsub names when `-o` (`letter` "o") or `-e` ("e")
    names none: `<jobname>.o<sequence number>` in the submit directory (pbs.md, `-e`/`-o`);
    PBS Professional appends the subjob index to an array's (`svr_jobfunc.c`, pbs.md §
    arrays). None for a Torque array, whose name is not verified here."""
    if not array:
        return "{job_name}." + letter + "{job_id}"
    if not torque:
        return "{job_name}." + letter + "{array_job_id}.{array_index}"
    return None
