"""PBS Pro and Torque properties over generated jobs: write qsub, read it back, same job; and
`slurm -> pbs -> slurm` keeps every field PBS supports.
"""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bammmc
from bammmc.ir.job import Job

SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow],
)

NAMES = st.text(alphabet=st.sampled_from("abcXYZ019_-.+"), min_size=1, max_size=20).filter(
    lambda s: s[0].isalnum()
)


@st.composite
def pbs_jobs(draw: st.DrawFn, torque: bool) -> dict[str, Any]:
    tpn = draw(st.integers(1, 8))
    spec: dict[str, Any] = {
        "schedule": {
            "queue": draw(st.sampled_from(["workq", "batch", "gpu"])),
            "walltime": draw(st.integers(1, 10**6)),
            "account": draw(st.sampled_from(["proj1", "climate-x"])),
            "priority": draw(st.integers(0, 1000)),
        },
        "resources": {
            "nodes": draw(st.integers(1, 16)),
            "tasksPerNode": tpn,
            "memoryPerTask": f"{draw(st.integers(1, 64))}Gi",
        },
        "execution": {"script": "#!/bin/bash\ncd $PBS_O_WORKDIR\n./app\n"},
    }
    if not torque:
        spec["resources"]["cpusPerTask"] = draw(st.integers(1, 8))
    if draw(st.booleans()):
        spec["resources"]["gpu"] = {"count": draw(st.integers(1, 4))}
    if draw(st.booleans()):
        start = draw(st.integers(0, 50))
        step = draw(st.integers(1, 3)) if not torque else 1
        indices = f"{start}-{start + draw(st.integers(1, 50))}"
        if step != 1:
            indices += f":{step}"
        spec["array"] = {"indices": indices + f"%{draw(st.integers(1, 9))}"}
    if draw(st.booleans()):
        spec["notifications"] = {
            "email": "me@example.org",
            "events": draw(st.lists(st.sampled_from(["begin", "end", "fail"]), unique=True)),
        }
    if draw(st.booleans()):
        spec["dependencies"] = [
            {
                "scheme": draw(st.sampled_from(["afterok", "afterany", "afternotok"])),
                "value": str(n),
            }
            for n in draw(st.lists(st.integers(1, 99999), min_size=1, max_size=3, unique=True))
        ]
    if draw(st.booleans()):
        spec["output"] = {"mergeStderr": True}
    if draw(st.booleans()) and not torque:
        spec["placement"] = {
            "topology": draw(st.sampled_from(["scatter", "pack", "free"])),
            "exclusive": True,
        }
    if draw(st.booleans()):
        spec["lifecycle"] = {"requeueOnFailure": draw(st.booleans())}
    return {
        "apiVersion": "bammm.io/v1alpha1",
        "kind": "Job",
        "metadata": {"name": draw(NAMES)},
        "spec": spec,
    }


def _job(doc: dict[str, Any]) -> Job:
    job, diags = bammmc.parse(yaml.safe_dump(doc, sort_keys=False), "splat")
    assert job is not None, diags
    return job


def _round_trip(doc: dict[str, Any], fmt: str) -> None:
    job = _job(doc)
    text, diags = bammmc.emit(job, fmt)
    assert text is not None
    assert not [d for d in diags if d.is_error], diags
    back, more = bammmc.parse(text, fmt)
    assert back is not None and not [d for d in more if d.is_error], (text, more)
    again, _ = bammmc.emit(back, fmt)
    assert again == text, f"not stable:\n{text}\n{again}"
    # every field the generator sets comes back with the same meaning
    spec, bspec = job.spec, back.spec
    assert spec is not None and bspec is not None
    assert spec.schedule and bspec.schedule and spec.resources and bspec.resources
    assert bspec.schedule.walltime and spec.schedule.walltime
    assert bspec.schedule.walltime.seconds == spec.schedule.walltime.seconds
    assert bspec.schedule.queue == spec.schedule.queue
    assert bspec.schedule.account == spec.schedule.account
    topology = spec.placement.topology if spec.placement else None
    if topology in ("pack", "free") and (spec.resources.nodes or 1) > 1:
        # `place=pack` is one host, `free` the hosts PBS picks (pbs.md §2): said so
        assert ("W301", "spec.resources.nodes") in [(d.code, d.field) for d in diags]
    else:
        assert bspec.resources.nodes == spec.resources.nodes
        assert bspec.resources.tasks_per_node == spec.resources.tasks_per_node
    mem, bmem = spec.resources.memory_per_task, bspec.resources.memory_per_task
    assert mem is not None and bmem is not None and bmem.bytes == mem.bytes
    if spec.resources.gpu and bspec.resources.nodes == spec.resources.nodes:
        assert bspec.resources.gpu and bspec.resources.gpu.count
        assert spec.resources.gpu.count is not None
        per_node = bspec.resources.gpu.count.amount * (
            1 if bspec.resources.gpu.count.scope else bspec.resources.tasks_per_node or 1
        )
        assert per_node == spec.resources.gpu.count.amount * (spec.resources.tasks_per_node or 1)
    if spec.array and spec.array.indices:
        assert bspec.array and bspec.array.indices
        assert bspec.array.indices.indices() == spec.array.indices.indices()
        assert bspec.array.indices.throttle == spec.array.indices.throttle
    # `-W depend=` groups ids by type; all of them must hold, so the order does not matter
    assert sorted((d.scheme or "", d.value or "") for d in bspec.dependencies or ()) == sorted(
        (d.scheme or "", d.value or "") for d in spec.dependencies or ()
    )
    if spec.notifications:
        assert bspec.notifications
        assert set(bspec.notifications.events or ()) == set(spec.notifications.events or ())
    assert bspec.lifecycle == spec.lifecycle
    # priority: PBS has 2048 steps for the band's 1001, so it maps back exactly
    assert bspec.schedule.priority == spec.schedule.priority


@SETTINGS
@given(doc=pbs_jobs(torque=False))
def test_pbs_round_trip(doc: dict[str, Any]) -> None:
    _round_trip(doc, "pbs")


@SETTINGS
@given(doc=pbs_jobs(torque=True))
def test_torque_round_trip(doc: dict[str, Any]) -> None:
    _round_trip(doc, "torque")


@SETTINGS
@given(doc=pbs_jobs(torque=False))
def test_slurm_pbs_slurm_keeps_what_pbs_supports(doc: dict[str, Any]) -> None:
    job = _job(doc)
    slurm, _ = bammmc.emit(job, "slurm")
    assert slurm is not None
    via, _ = bammmc.convert(slurm, "slurm", "pbs")
    assert via is not None
    back, diags = bammmc.convert(via, "pbs", "slurm")
    assert back is not None, diags
    first = [ln for ln in slurm.splitlines() if ln.startswith("#SBATCH")]
    second = [ln for ln in back.splitlines() if ln.startswith("#SBATCH")]
    # PBS has no mail-on-nothing distinction, no --requeue default...: compare the options PBS
    # carries
    carried = (
        "--nodes",
        "--ntasks-per-node",
        "--cpus-per-task",
        "--time",
        "--partition",
        "--account",
        "--array",
        "--dependency",
        "--mail-type",
        "--mail-user",
        "--mem=",
    )

    def pick(lines: list[str]) -> list[str]:
        out = []
        for line in lines:
            if not any(c in line for c in carried):
                continue
            name, _, value = line.partition("=")
            if name.endswith(("--mail-type", "--dependency")):  # sets, in any order
                value = ",".join(sorted(value.split(",")))
            out.append(f"{name}={value}")
        return sorted(out)

    assert pick(second) == pick(first), f"{slurm}\n{via}\n{back}"
