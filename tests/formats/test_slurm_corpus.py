"""Every real-world sbatch script in ../shared/corpus/slurm: read without a traceback, errors
only where the file really is at fault, and `slurm -> splat -> slurm` gives the same IR.

The summary (clean / warnings / errors per file) is printed at the end of the test run.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from msgspec.structs import replace

import bammmc
from bammmc.ir.job import Extensions, SlurmExt
from tests.conftest import CORPUS, as_written, record_corpus

FILES = sorted((CORPUS / "slurm").glob("*")) if (CORPUS / "slurm").is_dir() else []

#: Files that are really at fault, and why: sbatch rejects each of these too.
FAULTY: dict[str, tuple[set[str], str]] = {
    "edge-invalid-cpu_per_gpu-begin-now.swb": ({"E130"}, "`--cpu_per_gpu` is not an option"),
    "edge-mail-user-space-placeholder.sh": ({"E133"}, "unquoted placeholder `<your email>`"),
    "edge-pbs-ism-joe-nodefile.slurm": ({"E130"}, "`-joe` is PBS's -j, not sbatch's"),
    "edge-typo-constaring.slurm": ({"E130", "E133"}, "typo `--constaring`"),
    "edge-typo-ntasts-per-node.sh": ({"E130"}, "typo `--ntasts-per-node`"),
    "olcf-frontier-srun-launcher-placeholders.sl": ({"E133"}, "unquoted `<your name here>`"),
    "template-jinja-unrendered.schema": ({"E130", "E133", "E134"}, "an unrendered template"),
    "template-picongpu-tbg-placeholders.tpl": ({"E134"}, "unrendered `!TBG_` placeholders"),
}


@pytest.mark.skipif(not FILES, reason="../shared/corpus/slurm is not here")
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_corpus_file(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    job, diags = bammmc.parse(text, "slurm", filename=path.name)
    errors = {d.code for d in diags if d.is_error}
    record_corpus("slurm", path.name, diags)
    expected, why = FAULTY.get(path.name, (set(), ""))
    assert errors == expected, f"{path.name}: {why or 'expected to read cleanly'}"
    if job is None:
        return
    out, more = bammmc.emit(job, "slurm")
    assert out is not None
    assert not [d for d in more if d.is_error]
    again, _ = bammmc.parse(out, "slurm")
    assert again is not None
    if "W409" in {d.code for d in diags}:  # the writer adds the missing `#!` line
        before = job.spec.execution.script if job.spec and job.spec.execution else None
        after = again.spec.execution.script if again.spec and again.spec.execution else None
        assert after == "#!/bin/bash\n" + (before or "")
        return
    if "W404" in {d.code for d in diags}:
        # sbatch would obey the body's #PBS/#BSUB lines: the writer adds `--ignore-pbs` (W301)
        assert again.spec is not None and again.spec.extensions is not None
        assert again.spec.extensions.slurm is not None
        assert again.spec.extensions.slurm.ignore_pbs is True
        slurm = replace(again.spec.extensions.slurm, ignore_pbs=None)
        slurm_block = None if slurm == SlurmExt() else slurm
        extensions = replace(again.spec.extensions, slurm=slurm_block)
        again = replace(
            again,
            spec=replace(again.spec, extensions=None if extensions == Extensions() else extensions),
        )
    assert again == as_written(job), f"{path.name}: slurm -> splat -> slurm changed the job"


def test_faulty_table_names_real_files() -> None:
    if FILES:
        assert set(FAULTY) <= {p.name for p in FILES}
