"""Does the converted job get what the original asked for? Each row of tests/behaviour/table.py
is converted to every target that runs here and run for real: the run-mode Slurm oracle (one
slurmd per node) and the Grid Engine oracle. The controller's record and the files the job
wrote must be the allocation the source scheduler documents. Rows written for Slurm or Grid
Engine are also run as they are, which checks the table itself against the real scheduler."""

from __future__ import annotations

import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

import bammmc
from bammmc import totals
from tests.behaviour.observe import (
    PARSED,
    RUN,
    Alloc,
    Files,
    compare,
    on_flux_batch,
    on_htcondor,
    on_sge,
    on_slurm,
)
from tests.behaviour.table import ROWS, Row
from tests.conftest import _start_sge, _start_slurm

pytestmark = pytest.mark.oracle

#: the run-mode cluster: its own state and ports beside the `--test-only` one (4 nodes × 16
#: CPUs, 64000 MB and 4 GPUs each); it also unpacks Debian's Open MPI, the launcher rows' site
#: MPI on Grid Engine (table.MPI_ENV)
RUN_CLUSTER = {
    "SLURM_ORACLE_RUN": "1",
    "SLURM_ORACLE_OPENMPI": "1",
    "SLURM_ORACLE_DIR": "/tmp/bammmc-slurm-run",
    "SLURM_ORACLE_CTLD_PORT": "7817",
    "SLURM_ORACLE_SLURMD_PORT": "7818",
}


@functools.cache
def _runner(target: str) -> Callable[[str, Files], tuple[Alloc, dict[str, Any]]]:
    if target == "slurm":
        env = _start_slurm(RUN_CLUSTER)
        if isinstance(env, str):
            pytest.skip(env)
        import os

        full = {**os.environ, **env}
        return lambda text, files: on_slurm(text, full, files)
    _start_slurm(RUN_CLUSTER)  # for its Open MPI (the site MPI of launcher rows)
    sge = _start_sge()
    if isinstance(sge, str):
        pytest.skip(sge)
    return lambda text, files: on_sge(text, sge, files)


def converted(row: Row, target: str) -> str | list[str]:
    """The row's job written for ``target``, or the errors that stopped it."""
    files, diagnostics = bammmc.convert_files(row.script(), row.fmt, target, filename="job")
    if files is None:
        return [f"{d.code} {d.message}" for d in diagnostics if d.is_error]
    return files[0][1]


@functools.cache
def _runs(target: str) -> dict[tuple[str, bool], tuple[Alloc, dict[str, Any], str]]:
    """Every row of the table run on ``target`` (converted, and as it is where it is written
    for that target), four at a time: the cluster runs them side by side."""
    run = _runner(target)
    jobs: dict[tuple[str, bool], str | list[str]]
    jobs = {(r.id, False): converted(r, target) for r in ROWS}
    jobs |= {(r.id, True): r.script() for r in ROWS if r.fmt == target}

    files = {r.id: r.files for r in ROWS}

    def one(key: tuple[str, bool]) -> tuple[Alloc, dict[str, Any], str]:
        text = jobs[key]
        if isinstance(text, list):
            return Alloc(ok=False), {"refused": text}, ""
        got, raw = run(text, files[key[0]])
        return got, raw, text

    with ThreadPoolExecutor(4) as pool:
        return dict(zip(jobs, pool.map(one, jobs), strict=True))


def _params(targets: tuple[str, ...]) -> list[Any]:
    out = []
    for row in ROWS:
        for target in targets:
            marks = []
            if target in row.fails:
                marks.append(pytest.mark.xfail(reason=row.fails[target], strict=True))
            out.append(pytest.param(row, target, id=f"{row.id}->{target}", marks=marks))
    return out


def _explain(row: Row, target: str, diff: dict[str, Any], text: str, raw: Any) -> str:
    return (
        f"{row.id} on {target}: {diff}\n(why: {row.why})\n--- the job run:\n{text}\n"
        f"--- the oracle said (cut): {str(raw)[:1500]}"
    )


@pytest.mark.parametrize(("row", "target"), _params(RUN))
def test_a_converted_job_gets_what_the_original_asked_for(row: Row, target: str) -> None:
    got, raw, text = _runs(target)[(row.id, False)]
    diff = compare(row.want, got, target)
    assert not diff, _explain(row, target, diff, text, raw)


@pytest.mark.parametrize(("row", "target"), _params(PARSED))
def test_a_converted_job_reads_as_the_original_asked(
    row: Row, target: str, flux_batch_oracle: Any, flux_batch_cli: Any
) -> None:
    """Targets that cannot run here: the converted job as its own scheduler's parser reads it
    (htcondor2.Submit; Flux's `#flux:` directive parser and `flux batch` option parser) asks
    for the allocation the row documents."""
    text = converted(row, target)
    if isinstance(text, list):
        got, raw, text = Alloc(ok=False), {"refused": text}, ""
    elif target == "htcondor":
        got, raw = on_htcondor(text)
    else:
        got, raw = on_flux_batch(text, flux_batch_oracle.directives, flux_batch_cli)
    diff = compare(row.want, got, target)
    source, _ = bammmc.parse(row.script(), row.fmt)
    if got.nodes is None and source is not None and totals.of(source)["nodes"].key is None:
        # the source leaves its node count to the scheduler (the table's is what Slurm
        # picked when run), and so does the reading: nothing to compare
        diff.pop("nodes", None)
    assert not diff, _explain(row, target, diff, text, raw)


@pytest.mark.parametrize("row", [r for r in ROWS if r.fmt in RUN], ids=lambda r: r.id)
def test_the_table_is_what_the_real_scheduler_gives(row: Row) -> None:
    """The row's own job on its own scheduler: the expectation is the scheduler's, not ours."""
    got, raw, text = _runs(row.fmt)[(row.id, True)]
    diff = compare(row.want, got, row.fmt)
    assert not diff, _explain(row, row.fmt, diff, text, raw)


#: an HTCondor submit file whose elements each take an item of the `queue` statement
#: (htcondor.md §3: `queue VAR in (…)` / `queue VARS from (…)`, one job per item, `$(VAR)` its
#: value; `queue 2 …` makes two jobs of each item)
QUEUE_ITEMS = {
    "in": (
        "executable = show.sh\narguments = \"'$(item)' --fast n=$(Process)\"\n"
        "output = show.$(Process).out\nqueue item in (alpha, beta, gamma)\n",
        {"alpha --fast n=0", "beta --fast n=1", "gamma --fast n=2"},
    ),
    "from": (
        "executable = show.sh\narguments = $(name) x_$(size)_y\noutput = show.$(Process).out\n"
        "queue name, size from (\n  small 1\n  large 10\n)\n",
        {"small x_1_y", "large x_10_y"},
    ),
    "count": (
        "executable = show.sh\narguments = $(item)\noutput = show.$(Process).out\n"
        "queue 2 item in (a, b)\n",
        {"a", "b"},
    ),
}


@pytest.mark.parametrize("target", RUN)
@pytest.mark.parametrize("case", sorted(QUEUE_ITEMS))
def test_each_element_gets_its_htcondor_queue_items(case: str, target: str) -> None:
    """Run for real: each element runs the submit directory's program with its own item."""
    text, wanted = QUEUE_ITEMS[case]
    files, diagnostics = bammmc.convert_files(text, "htcondor", target, filename="job")
    assert files is not None, diagnostics
    show = (("show.sh", '#!/bin/sh\necho "got $*"\n'),)
    got, raw = _runner(target)(files[0][1], show)
    assert got.ok, (files[0][1], raw)
    said = [
        line.removeprefix("got ")
        for body in (raw.get("files") or {}).values()
        for line in body.splitlines()
        if line.startswith("got ")
    ]
    assert set(said) == wanted, (files[0][1], said)
    assert len(said) == (4 if case == "count" else len(wanted)), said
    queue = [d for d in diagnostics if d.field == "spec.extensions.htcondor.queue"]
    assert [d.code for d in queue] == ["N003"], queue
