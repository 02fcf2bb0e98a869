"""`slurm -> flux` keeps every field both support: for each sbatch script of the corpus, the job
read back from the written jobspec has the same portable fields as the job read from the
script, or the writer said why not (a W201/W301 about that field). GPUs are compared per node
(Flux puts them in each task's slot, pitfall 20); the script is compared without the variables
block the writer adds for `$SLURM_*` names."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from bammmc.backends.splat import to_builtins
from bammmc.diagnostics.model import Reporter
from bammmc.ir.job import Job
from bammmc.ir.launchers import rewritten
from bammmc.passes.lower.flux import without_block
from bammmc.pipeline import compile_text, emit_job, get_format
from tests.conftest import CORPUS
from tests.formats.corpus_lists import known_faulty

FIELDS = (
    "metadata.name",
    "spec.schedule.queue",
    "spec.schedule.account",
    "spec.schedule.project",
    "spec.schedule.walltime",
    "spec.resources.nodes",
    "spec.resources.tasks",
    "spec.resources.cpusPerTask",
    "spec.resources.tasksPerNode",
    "spec.execution.script",
    "spec.execution.executable",
    "spec.execution.arguments",
    "spec.execution.workingDir",
    "spec.execution.environment.vars",
    "spec.output.stdout",
    "spec.output.stderr",
    "spec.dependencies",
)
SCRIPTS = sorted(p for p in (CORPUS / "slurm").glob("*") if p.is_file()) if CORPUS.is_dir() else []


def _get(data: Any, path: str) -> Any:
    for key in path.split("."):
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def _gpus_per_node(job: Job) -> Fraction | None:
    r = job.spec.resources if job.spec else None
    if r is None or r.gpu is None or r.gpu.count is None:
        return None
    count = r.gpu.count
    if count.scope == "node":
        return count.amount
    if count.scope == "job":
        return count.amount / (r.nodes or 1)
    return count.amount * (r.tasks_per_node or Fraction(r.tasks or 1, r.nodes or 1))


@pytest.mark.skipif(not SCRIPTS, reason="../shared/corpus/slurm is not here")
@pytest.mark.parametrize("path", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_slurm_to_flux_keeps_fields(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    r = Reporter(path.name)
    compiled = compile_text(text, get_format("slurm"), r)
    if not compiled or compiled[0].job is None or r.has_errors:
        assert path.name in known_faulty(), r.diagnostics  # refused, as its corpus test says
        return
    job = compiled[0].job
    w = Reporter(path.name)
    out = emit_job(job, get_format("flux"), w, compiled[0].source_map)[0].text
    reported = {d.field for d in w.diagnostics if d.code in ("W201", "W301") and d.field}
    # a launcher line rewritten for Flux with the same tasks says so in a note
    reported |= {d.field for d in w.diagnostics if d.field and rewritten(d.message)}
    back_r = Reporter("out.jobspec.yaml")
    back = compile_text(out, get_format("flux"), back_r)[0].job
    assert back is not None, [d.message for d in back_r.diagnostics]
    a, b = to_builtins(job), to_builtins(back)
    for field in FIELDS:
        x, y = _get(a, field), _get(b, field)
        if field == "spec.execution.script" and isinstance(y, str):
            y = without_block(y)
        if x is None or x == y:
            continue
        assert any(field.startswith(f) or f.startswith(field) for f in reported), (
            f"{field}: {x!r} -> {y!r} and no diagnostic says why"
        )
    if _gpus_per_node(job) is not None and "spec.resources.gpu.count" not in reported:
        assert _gpus_per_node(back) == _gpus_per_node(job)
