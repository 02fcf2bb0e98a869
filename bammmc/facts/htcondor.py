"""Facts of HTCondor's submit description shared by its lowering and writer."""

from __future__ import annotations

from typing import Final

#: where a stream goes when the submit file names no `output`/`error` (condor_submit(1):
#: "If not specified, the default value of /dev/null is used"): the job keeps neither
DISCARDED: Final = "/dev/null"

#: a job without `allowed_job_duration` runs as long as it needs: HTCondor limits a job's run
#: time only with it (or a pool policy, as any scheduler's queue limit), so an `unlimited`
#: walltime is written as nothing
UNSET_WALLTIME_IS_UNLIMITED: Final = True

#: The program a submit file runs a command through when the command is a word to look up on
#: the execute machine's `PATH`: `executable` is a file path from the submit directory
#: (htcondor.md §3), and `env` (POSIX, at this path on Linux) does the lookup.
ENV_PROGRAM: Final = "/usr/bin/env"


def path_command(word: str) -> bool:
    """Whether the job model's executable ``word`` is a command looked up on `PATH` that
    `env` can run: no `/` (a path), no `$` or `~` (text HTCondor or a shell expands), no `=`
    (`env` reads `NAME=VALUE` as a variable) and no leading `-` (an option of `env`)."""
    return bool(word) and not any(c in word for c in "/$=~") and not word.startswith("-")
