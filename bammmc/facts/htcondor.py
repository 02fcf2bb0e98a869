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
