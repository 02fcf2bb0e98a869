"""Every real-world bsub script in ../shared/corpus/lsf: read without a traceback, errors only
where the file really is at fault, and `lsf -> splat -> lsf` gives the same IR. The summary is
printed at the end of the test run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import bammmc
from tests.conftest import CORPUS, as_written, record_corpus

FILES = sorted((CORPUS / "lsf").glob("*")) if (CORPUS / "lsf").is_dir() else []

#: Files that are really at fault, and why.
FAULTY: dict[str, tuple[set[str], str]] = {
    "edge-shell-expansions-in-heredoc-directives.sh": (
        {"E134"},
        "a heredoc template: `$(…)` and `${N_TASKS}` in the `-J` array, which bsub never expands",
    ),
    "gpgpu-option.job": (
        {"E133"},
        "`-gpgpu` is no bsub option (getopt reads `-g pgpu`; `1` is stray)",
    ),
    "mskcc-sp-L-eo.sh": (
        {"E130"},
        "`-oe` is no bsub option (a typo for `-eo`: getopt would read `-o e` and a stray path)",
    ),
    "olcf-summit-pytorch-alloc-flags.lsf": (
        {"E133"},
        "`-alloc_flags smt4 gpumps` unquoted: `gpumps` is a stray word",
    ),
    "same-resreq-a.sh": ({"E134"}, "unrendered `*_PH` placeholders in `-W` and `-n`"),
    "summit-nvme-signal-in-bsub.bash": ({"E130"}, "a Slurm option (`--signal=`) in a `#BSUB` line"),
    "uarizona-interactive-Is-XF-x.sh": (
        {"E133"},
        "`-Is bash`: an interactive command inside a directive",
    ),
}


@pytest.mark.skipif(not FILES, reason="../shared/corpus/lsf is not here")
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_corpus_file(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    job, diags = bammmc.parse(text, "lsf", filename=path.name)
    record_corpus("lsf", path.name, diags)
    errors = {d.code for d in diags if d.is_error}
    expected, why = FAULTY.get(path.name, (set(), ""))
    assert errors == expected, f"{path.name}: {why or 'expected to read cleanly'}"
    if job is None:
        return
    out, more = bammmc.emit(job, "lsf")
    assert out is not None
    assert not [d for d in more if d.is_error], more
    again, _ = bammmc.parse(out, "lsf")
    assert again == as_written(job), f"{path.name}: lsf -> splat -> lsf changed the job\n{out}"
