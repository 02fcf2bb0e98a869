"""Whole-job totals survive every conversion, or a warning names them (issue 19 item 7).

A generated job (its resources, task groups, array and walltime: the fields the totals are made
of; everything else comes from tests/strategies.py's generator) is written to every target and
read back with the target's own reader. For each quantity of bammmc.totals (tasks, nodes, CPUs,
memory, GPUs, array elements, walltime) the converted job's total must equal the source's, or a
W2xx/W3xx of the writer must name one of the quantity's fields: ``changed`` is a silent
difference. The expected totals of hand-written jobs are checked against the SPLAT
specification's rules in tests/test_explain.py.
"""

from __future__ import annotations

from typing import Any

import hypothesis
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec import inspect as mi

import bammmc
from bammmc import totals
from bammmc.ir.job import Array, Job, Task
from bammmc.registry import FORMATS
from tests.strategies import PLAIN_TEXT, VALUES, strategy

SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=200,
    database=None,
    phases=(hypothesis.Phase.explicit, hypothesis.Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

_POSITIVE = st.integers(1, 8)
#: the resources of a task: the shape fields small (a generated 900-node job says nothing more)
RESOURCES = st.fixed_dictionaries(
    {},
    optional={
        "tasks": _POSITIVE,
        "nodes": st.integers(1, 4),
        "tasksPerNode": st.integers(1, 4),
        "cpusPerTask": st.sampled_from(VALUES["Cpu"]),
        "memoryPerTask": st.sampled_from(VALUES["Size"]),
        "gpu": st.fixed_dictionaries(
            {}, optional={"count": st.sampled_from(VALUES["Count"]), "type": PLAIN_TEXT}
        ),
    },
)


def _type(cls: type) -> mi.Type:
    return mi.type_info(cls)


@st.composite
def documents(draw: st.DrawFn) -> str:
    spec: dict[str, Any] = {
        "resources": draw(RESOURCES),
        "execution": {"script": "#!/bin/bash\necho hello\n"},
    }
    if draw(st.booleans()):
        spec["array"] = draw(strategy(_type(Array), text=PLAIN_TEXT))
    if draw(st.booleans()):
        spec["schedule"] = {"walltime": draw(st.sampled_from(VALUES["Duration"]))}
    if draw(st.integers(0, 5)) == 0:  # task groups: rarer, most targets have none
        groups = draw(st.lists(strategy(_type(Task), text=PLAIN_TEXT), min_size=1, max_size=2))
        for group in groups:
            group["resources"] = draw(RESOURCES)
            group["replicas"] = draw(st.integers(1, 3))
        spec["tasks"] = groups
    doc = {"apiVersion": "bammm.io/v1alpha1", "kind": "Job", "spec": spec}
    return yaml.safe_dump(doc, sort_keys=False)


#: a Slurm job's shape and amounts, as users write them: the portable fields and the forms only
#: an extension holds (memory per node or per CPU, GPUs per node, `--gres`)
SLURM_OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "nodes": st.integers(1, 4).map(str),
        "ntasks": _POSITIVE.map(str),
        "ntasks-per-node": st.integers(1, 4).map(str),
        "cpus-per-task": st.integers(1, 8).map(str),
        "mem": st.sampled_from(["4G", "16G", "500M", "1T"]),
        "mem-per-cpu": st.sampled_from(["2G", "1500M"]),
        "gres": st.sampled_from(["gpu:2", "gpu:a100:1", "gpu:4"]),
        "gpus-per-task": st.sampled_from(["1", "2"]),
        "gpus-per-node": st.sampled_from(["1", "4"]),
        "array": st.sampled_from(["0-9", "1-100%5", "0-20:2", "1,3,5"]),
        "time": st.sampled_from(["30", "2:00:00", "1-00:00:00"]),
    },
)


@st.composite
def slurm_scripts(draw: st.DrawFn) -> str:
    options = draw(SLURM_OPTIONS)
    if "mem" in options and "mem-per-cpu" in options:  # sbatch refuses both
        del options["mem-per-cpu"]
    gpus = [k for k in ("gres", "gpus-per-task", "gpus-per-node") if k in options]
    for key in gpus[1:]:  # one way of asking for GPUs, as a user writes
        del options[key]
    lines = ["#!/bin/bash", *(f"#SBATCH --{k}={v}" for k, v in options.items()), "srun ./a.out"]
    return "\n".join(lines) + "\n"


def _job(text: str) -> Job:
    job, diagnostics = bammmc.parse(text, "splat")
    if job is None or any(d.is_error for d in diagnostics):
        hypothesis.reject()
    assert job is not None
    return job


@pytest.mark.parametrize("target", list(FORMATS))
@SETTINGS
@given(documents())
def test_totals_are_kept_or_named(target: str, text: str) -> None:
    _kept_or_named(_job(text), target)


def _kept_or_named(job: Job, target: str) -> None:
    """``job`` written for ``target`` and read back: no total differs without a warning."""
    out, diagnostics = bammmc.emit(job, target)
    if out is None:  # refused with an error: nothing is written, nothing is lost silently
        assert any(d.is_error for d in diagnostics)
        return
    back, _ = bammmc.parse(out, target)
    assert back is not None, out
    rows = totals.compare(totals.of(job), totals.of(back), diagnostics, target)
    changed = [r for r in rows if r["status"] == "changed"]
    assert not changed, (changed, out, [(d.code, d.field, d.message) for d in diagnostics])


@pytest.mark.parametrize("target", [t for t in FORMATS if t != "slurm"])
@SETTINGS
@given(slurm_scripts())
def test_slurm_totals_are_kept_or_named(target: str, text: str) -> None:
    job, read = bammmc.parse(text, "slurm")
    if job is None:
        assert any(d.is_error for d in read)
        return
    _kept_or_named(job, target)


def test_the_generator_reaches_every_quantity() -> None:
    """The generated jobs set each quantity somewhere (a test that cannot fail proves nothing)."""
    seen: set[str] = set()

    @settings(SETTINGS, max_examples=60)
    @given(documents())
    def collect(text: str) -> None:
        job = _job(text)
        for name, total in totals.of(job).items():
            if total != totals.NOT_SET and (name != "tasks" or total.key != 1):
                seen.add(name)

    collect()
    assert seen == set(totals.QUANTITIES)


def test_a_silent_difference_is_changed() -> None:
    """The comparison itself: a difference with no diagnostic is ``changed``; with a W3xx on a
    field of the quantity it is ``approximated``; a W2xx elsewhere does not name it."""
    before = totals.of(bammmc.parse(_doc({}), "splat")[0])  # type: ignore[arg-type]
    four = totals.of(bammmc.parse(_doc({"tasks": 4}), "splat")[0])  # type: ignore[arg-type]
    assert four["tasks"].key == 4 and four["cpus"].key == 4
    rows = {r["quantity"]: r for r in totals.compare(before, four)}
    assert rows["tasks"]["status"] == "changed" and rows["memory"]["status"] == "kept"

    class D:
        def __init__(self, code: str, field: str) -> None:
            self.code, self.field = code, field

    named = totals.compare(before, four, [D("W201", "spec.array"), D("W301", "spec.resources")])
    assert {r["quantity"]: (r["status"], r["code"]) for r in named}["tasks"] == (
        "approximated",
        "W301",
    )


def _doc(resources: dict[str, Any]) -> str:
    return yaml.safe_dump(
        {"apiVersion": "bammm.io/v1alpha1", "kind": "Job", "spec": {"resources": resources}}
    )


MIXED = "#!/bin/bash\n#PBS -l select=1:ncpus=4:mem=8gb+2:ncpus=8:mpiprocs=8:mem=32gb\nmpiexec ./a\n"


def test_mixed_chunks_count_every_chunk() -> None:
    """pbs.md §2: 1 chunk of 4 CPUs and 8gb (one MPI process, mpiprocs' default) and 2 of 8
    processes, 8 CPUs and 32gb: 17 tasks on 3 nodes, 20 CPUs, 72 GiB."""
    job, _ = bammmc.parse(MIXED, "pbs")
    assert job is not None
    got = {k: t.text for k, t in totals.of(job).items()}
    assert (got["tasks"], got["nodes"], got["cpus"], got["memory"]) == ("17", "3", "20", "72 GiB")


@pytest.mark.parametrize("target", [t for t in FORMATS if t != "pbs"])
def test_mixed_chunks_are_kept_or_named(target: str) -> None:
    """A target without chunk shapes writes the first one: said so (W301), never silently."""
    job, _ = bammmc.parse(MIXED, "pbs")
    assert job is not None
    _kept_or_named(job, target)
