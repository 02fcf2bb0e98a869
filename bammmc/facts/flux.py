"""Facts of Flux that more than one module needs (the batch reader and writer)."""

from __future__ import annotations

from typing import Final

#: the SPLAT template of `flux batch`'s own output file (flux-batch(1), --output: "the default
#: is flux-{{id}}.out"), stderr with it unless --error is given
DEFAULT_OUTPUT: Final = "flux-{job_id}.out"
