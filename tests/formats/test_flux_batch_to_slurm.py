"""`flux-batch <-> slurm`: round trips keep every field both formats support; every script the
flux-batch writer makes from the Slurm corpus is read by Flux's own directive parser into exactly
the options meant; Flux batch scripts converted to Slurm are accepted by real `sbatch --test-only`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

import bammmc
from bammmc.backends.flux_batch import render
from bammmc.backends.splat import enc_hook
from bammmc.diagnostics.model import Reporter
from bammmc.ir.job import Job
from tests.conftest import CORPUS, FluxBatchOracle, without_site_names
from tests.formats.corpus_lists import known_faulty
from tests.formats.test_flux_batch import CORPUS_FILES

SLURM_FILES = sorted((CORPUS / "slurm").glob("*")) if (CORPUS / "slurm").is_dir() else []
#: the other script formats' corpora, each file with the format that reads it
OTHER_FILES = [
    (fmt, p)
    for fmt in ("pbs", "torque", "lsf", "sge", "htcondor")
    if (CORPUS / fmt).is_dir()
    for p in sorted((CORPUS / fmt).glob("*"))
    if p.is_file()
] + [
    ("flux", p)
    for folder in ("valid", "valid_v1", "valid_json")
    if (CORPUS / "flux" / folder).is_dir()
    for p in sorted((CORPUS / "flux" / folder).glob("*"))
    if p.is_file()
]
FLUX_OK = [p for p in CORPUS_FILES if p.parent.name != "invalid"]

#: IR fields (under `spec`, plus the name) that both formats write exactly
SHARED_FIELDS = (
    "resources.nodes",
    "resources.tasks",
    "resources.cpusPerTask",
    "resources.gpu.count",
    "schedule.queue",
    "schedule.account",
    "schedule.walltime",
    "schedule.hold",
    "schedule.beginAfter",
    "schedule.signalBeforeEnd",
    "execution.workingDir",
    "execution.environment.vars",
    "output.stdout",
    "output.stderr",
    "dependencies",
    "placement.constraint",
    "placement.exclusive",
)


def _pick(job: Job | None) -> dict[str, Any]:
    assert job is not None
    data: dict[str, Any] = msgspec.to_builtins(job, enc_hook=enc_hook)
    out: dict[str, Any] = {"name": data.get("metadata", {}).get("name")}
    for path in SHARED_FIELDS:
        node: Any = data.get("spec", {})
        for part in path.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        out[path] = node
    if out["resources.tasks"] is None and out["resources.nodes"] is None:
        out["resources.tasks"] = 1  # one task where the source gives no count (sbatch(1) -n)
    return out


def _same_after(text: str, src: str, via: str) -> tuple[dict[str, Any], dict[str, Any]]:
    first, diags = bammmc.parse(text, src)
    assert first is not None, diags
    middle, diags = bammmc.emit(first, via)
    assert middle is not None
    back, diags = bammmc.parse(middle, via)
    assert back is not None, (diags, middle)
    again, _ = bammmc.emit(back, src)
    assert again is not None
    second, diags = bammmc.parse(again, src)
    assert second is not None, (diags, again)
    return _pick(first), _pick(second)


FLUX_SCRIPTS = [
    "-N2 -n8 -c4",
    "-n4 -g1",
    "-t 90",
    "-t 2h --queue=pdebug --bank=proj",
    "--job-name=sweep --output=out-{{id}}.log --error=err-{{id}}.log",
    "--cwd=/scratch/run --env=A=1 --env=B=two",
    "--dependency=afterok:123 --dependency=afterany:456",
    "--requires=ssd -N1 -x",
    "--signal=SIGUSR2@5m -t 1h",
    "--urgency=hold",
    "--begin-time=2030-01-02T03:04:05",
]


@pytest.mark.parametrize("directives", FLUX_SCRIPTS)
def test_flux_batch_slurm_flux_batch(directives: str) -> None:
    text = f"#!/bin/bash\n#flux: {directives}\nflux run ./app\n"
    first, second = _same_after(text, "flux-batch", "slurm")
    assert first == second


SLURM_SCRIPTS = [
    "#SBATCH -N 2\n#SBATCH -n 8\n#SBATCH -c 4",
    "#SBATCH --ntasks=4\n#SBATCH --gpus-per-task=1",
    "#SBATCH --time=1-12:00:00 --partition=debug --account=proj",
    "#SBATCH -J sweep -o out-%j.log -e err-%x.log",
    "#SBATCH --chdir=/scratch/run --export=ALL,A=1",
    "#SBATCH --dependency=afterok:123,afterany:456",
    "#SBATCH --constraint=ssd&bigmem -N1 --exclusive",
    "#SBATCH --signal=USR2@300 --time=60",
    "#SBATCH --hold",
    "#SBATCH --begin=2030-01-02T03:04:05",
]


@pytest.mark.parametrize("directives", SLURM_SCRIPTS)
def test_slurm_flux_batch_slurm(directives: str) -> None:
    text = f"#!/bin/bash\n{directives}\nsrun ./app\n"
    first, second = _same_after(text, "slurm", "flux-batch")
    assert first == second


@pytest.mark.skipif(not SLURM_FILES, reason="../shared/corpus/slurm is not here")
@pytest.mark.parametrize("path", SLURM_FILES, ids=[p.name for p in SLURM_FILES])
def test_slurm_corpus_to_flux_batch_is_what_flux_reads(
    path: Path, flux_batch_oracle: FluxBatchOracle
) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    job, _diags = bammmc.parse(text, "slurm", filename=path.name)
    if job is None:  # a file the Slurm reader is known to refuse: refused, nothing to write
        assert path.name in known_faulty()
        return
    reporter = Reporter()
    script, args = render(job, reporter)
    if any(d.is_error for d in reporter.diagnostics):
        assert all(d.code == "E140" for d in reporter.diagnostics if d.is_error)
        return
    ok, flux_args, error = flux_batch_oracle.parse(script)
    assert ok, (error, script)
    assert flux_args == args, script


@pytest.mark.skipif(not OTHER_FILES, reason="../shared/corpus is not here")
@pytest.mark.parametrize(
    ("fmt", "path"), OTHER_FILES, ids=[f"{f}/{p.name}" for f, p in OTHER_FILES]
)
def test_other_corpora_to_flux_batch_are_what_flux_reads(
    fmt: str, path: Path, flux_batch_oracle: FluxBatchOracle
) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    job, _ = bammmc.parse(text, fmt, filename=path.name)
    if job is None:  # a file its reader is known to refuse: refused, nothing to write
        assert path.name in known_faulty()
        return
    reporter = Reporter()
    script, args = render(job, reporter)
    if any(d.is_error for d in reporter.diagnostics):
        assert all(d.code == "E140" for d in reporter.diagnostics if d.is_error)
        return
    ok, flux_args, error = flux_batch_oracle.parse(script)
    assert ok, (error, script)
    assert flux_args == args, script


@pytest.mark.oracle
@pytest.mark.skipif(not FLUX_OK, reason="../shared/corpus/flux/batch is not here")
@pytest.mark.parametrize("path", FLUX_OK, ids=[p.name for p in FLUX_OK])
def test_flux_batch_corpus_to_slurm_is_accepted_by_sbatch(
    path: Path, big_sbatch_check: Callable[..., tuple[bool, str]]
) -> None:
    text = path.read_text(encoding="utf-8")
    out, diags = bammmc.convert(text, "flux-batch", "slurm", filename=path.name)
    assert out is not None, diags
    checked = without_site_names(out)
    accepted, message = big_sbatch_check(checked, "-p", "batch")
    assert accepted, f"{message}\n{checked}"
