"""`pbs -> slurm` for the real-world corpus: real `sbatch --test-only` accepts every converted
script of the files that read cleanly.

Checked against the larger oracle cluster (128 nodes × 64 CPUs, no partition limits), since the
jobs come from sites with bigger nodes than the default one. Site names the oracle cannot know
— partitions, accounts, node features, reservations, licenses — are taken out of the converted
script before the check (`-p batch` stands in for the partition); everything else is checked.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import bammmc
from tests.conftest import without_site_names
from tests.formats.test_pbs_corpus import FAULTY, FILES

CLEAN = [(f, p) for f, p in FILES if p.name not in FAULTY]


@pytest.mark.oracle
@pytest.mark.skipif(not CLEAN, reason="../shared/corpus/pbs and torque are not here")
@pytest.mark.parametrize(("fmt", "path"), CLEAN, ids=[f"{f}/{p.name}" for f, p in CLEAN])
def test_converted_corpus_is_accepted_by_sbatch(
    fmt: str, path: Path, big_sbatch_check: Callable[..., tuple[bool, str]]
) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    out, diags = bammmc.convert(text, fmt, "slurm", filename=path.name)
    assert out is not None, diags
    checked = without_site_names(out)
    accepted, message = big_sbatch_check(checked, "-p", "batch")
    assert accepted, f"{message}\n{checked}"


MIXED_TO_SLURM = [
    # chunks alike but for their task count: nodes, tasks and the most per node
    (
        "select=2:ncpus=8:mpiprocs=4:mem=8gb+1:ncpus=4:mpiprocs=2:mem=4gb",
        ["--nodes=3", "--ntasks=10", "--ntasks-per-node=4", "--cpus-per-task=2"],
    ),
    ("select=1:ncpus=4:mpiprocs=4+2:ncpus=3:mpiprocs=3", ["--nodes=3", "--ntasks=10"]),
]


@pytest.mark.oracle
@pytest.mark.parametrize(("select", "options"), MIXED_TO_SLURM)
def test_mixed_chunks_of_one_task_shape_are_accepted_by_sbatch(
    select: str, options: list[str], big_sbatch_check: Callable[..., tuple[bool, str]]
) -> None:
    text = f"#!/bin/bash\n#PBS -l {select}\ncd $PBS_O_WORKDIR\nmpiexec ./app\n"
    out, diags = bammmc.convert(text, "pbs", "slurm")
    assert out is not None, diags
    for option in options:
        assert any(line.startswith(f"#SBATCH {option}") for line in out.splitlines()), out
    assert [d.field for d in diags].count("spec.extensions.pbs.mixed_chunks") == 1
    accepted, message = big_sbatch_check(out, "-p", "batch")
    assert accepted, f"{message}\n{out}"


@pytest.mark.oracle
def test_an_array_of_mixed_chunks_is_no_heterogeneous_job(
    big_sbatch_check: Callable[..., tuple[bool, str]],
) -> None:
    """sbatch refuses an array of heterogeneous jobs (the run-mode oracle: "Invalid job array
    specification"): the array is kept, the first chunk is the job, and W301 names the rest."""
    text = (
        "#!/bin/bash\n#PBS -l select=1:ncpus=4:mem=8gb+2:ncpus=8:mpiprocs=8:mem=32gb\n"
        "#PBS -J 0-3\necho $PBS_ARRAY_INDEX\n"
    )
    out, diags = bammmc.convert(text, "pbs", "slurm")
    assert out is not None, diags
    assert "#SBATCH hetjob" not in out and "#SBATCH --array=0-3" in out.splitlines(), out
    found = [d for d in diags if d.field == "spec.extensions.pbs.mixed_chunks"]
    assert [d.code for d in found] == ["W301"] and "no arrays of heterogeneous" in found[0].message
    accepted, message = big_sbatch_check(out, "-p", "batch")
    assert accepted, f"{message}\n{out}"
