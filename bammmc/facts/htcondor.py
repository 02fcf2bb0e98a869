"""Facts of HTCondor's submit description shared by its lowering and writer."""

from __future__ import annotations

from typing import Final

#: where a stream goes when the submit file names no `output`/`error` (condor_submit(1):
#: "If not specified, the default value of /dev/null is used"): the job keeps neither
DISCARDED: Final = "/dev/null"
