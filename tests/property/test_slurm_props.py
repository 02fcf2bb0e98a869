"""Slurm properties over generated jobs: write sbatch, read it back, get the same job; and a real
`sbatch --test-only` accepts every script the writer produces (values chosen to fit the oracle's
cluster: 8 nodes x 16 CPUs x 64000 MB x 4 a100 GPUs; partitions debug 1 h, batch 2 days).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bammmc
from bammmc.ir.job import Job

Check = Callable[[str], tuple[bool, str]]

SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# Names with the characters that break naive writers: spaces, quotes, #, backslashes, `=`.
NAMES = st.text(
    alphabet=st.sampled_from("abcXYZ019_-. #'\"\\=,:%$()"), min_size=1, max_size=24
).filter(lambda s: s.strip() == s and s.strip())
VARS = st.dictionaries(
    st.from_regex(r"[A-Z][A-Z0-9_]{0,8}", fullmatch=True),
    st.text(alphabet=st.sampled_from("abc019_-./:@ "), max_size=12),
    max_size=3,
)
TEMPLATES = st.lists(
    st.sampled_from(
        ["out", "_", "{job_id}", "{array_job_id}", "{array_index}", "{job_name}", "%", ".log"]
    ),
    min_size=1,
    max_size=5,
).map("".join)


@st.composite
def slurm_jobs(draw: st.DrawFn) -> dict[str, Any]:
    nodes = draw(st.integers(1, 4))
    tpn = draw(st.integers(1, 4))
    cpus = draw(st.integers(1, 16 // tpn))
    mem_mib = draw(st.integers(100, 60000 // tpn))
    partition = draw(st.sampled_from(["debug", "batch", "gpu"]))
    max_seconds = 3600 if partition == "debug" else 86400
    spec: dict[str, Any] = {
        "schedule": {
            "queue": partition,
            "walltime": draw(st.integers(60, max_seconds)),
            "account": draw(st.sampled_from(["proj1", "climate-x"])),
        },
        "resources": {
            "nodes": nodes,
            "tasksPerNode": tpn,
            "cpusPerTask": cpus,
            "memoryPerTask": f"{mem_mib}Mi",
        },
        "output": {"stdout": draw(TEMPLATES)},
    }
    if draw(st.booleans()):
        spec["resources"]["gpu"] = {
            "count": f"{draw(st.integers(1, 4))}/node",
            "type": "a100",
        }
    if draw(st.booleans()):
        start = draw(st.integers(0, 20))
        spec["array"] = {
            "indices": f"{start}-{start + draw(st.integers(0, 50))}:{draw(st.integers(1, 3))}"
            f"%{draw(st.integers(1, 5))}"
        }
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
        spec["placement"] = {
            "constraint": draw(st.sampled_from(["avx512", "ib", "avx512&ib", "avx512|ib"])),
            "exclusive": draw(st.booleans()),
        }
    if draw(st.booleans()):
        spec["execution"] = {
            "workingDir": "/tmp",
            "environment": {"inheritFromSubmitter": draw(st.booleans()), "vars": draw(VARS)},
        }
    if draw(st.booleans()):
        spec["lifecycle"] = {"requeueOnFailure": draw(st.booleans())}
    if draw(st.booleans()):
        sig = draw(st.sampled_from(["USR1", "TERM", "USR2"]))
        spec["schedule"]["signalBeforeEnd"] = f"{sig}@{draw(st.integers(0, 600))}"
    spec.setdefault("execution", {})["script"] = "#!/bin/bash\nsrun hostname\n"
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


def _meaning(job: Job) -> dict[str, Any]:
    """What Slurm must preserve, in comparable form."""
    spec = job.spec
    assert spec is not None
    s, r = spec.schedule, spec.resources
    assert s is not None and r is not None
    return {
        "name": job.metadata.name if job.metadata else None,
        "queue": s.queue,
        "account": s.account,
        "walltime": s.walltime.seconds if s.walltime else None,
        "signal": (s.signal_before_end.name, s.signal_before_end.seconds)
        if s.signal_before_end
        else None,
        "nodes": r.nodes,
        "tpn": r.tasks_per_node,
        "cpus": r.cpus_per_task.cores if r.cpus_per_task else None,
        "mem": r.memory_per_task.bytes if r.memory_per_task else None,
        "gpu": (r.gpu.count.amount, r.gpu.count.scope, r.gpu.type)
        if r.gpu and r.gpu.count
        else None,
        "array": (spec.array.indices.indices(), spec.array.indices.throttle)
        if spec.array and spec.array.indices
        else None,
        "stdout": spec.output.stdout.parts if spec.output and spec.output.stdout else None,
        "mail": (spec.notifications.email, spec.notifications.events)
        if spec.notifications
        else None,
        "deps": [(d.scheme, d.value) for d in spec.dependencies or ()],
        "placement": (spec.placement.constraint, bool(spec.placement.exclusive))
        if spec.placement
        else None,
        "env": (
            spec.execution.environment.inherit_from_submitter,
            spec.execution.environment.vars or {},
        )
        if spec.execution and spec.execution.environment
        else None,
        "requeue": spec.lifecycle.requeue_on_failure if spec.lifecycle else None,
        "script": spec.execution.script if spec.execution else None,
    }


@SETTINGS
@given(doc=slurm_jobs())
def test_slurm_round_trip_and_sbatch_accepts(doc: dict[str, Any], sbatch_check: Check) -> None:
    job = _job(doc)
    text, diags = bammmc.emit(job, "slurm")
    assert text is not None
    assert not [d for d in diags if d.is_error], diags
    again, more = bammmc.parse(text, "slurm")
    assert again is not None, (text, more)
    assert not [d for d in more if d.code[0] in "EW"], (text, more)
    assert _meaning(again) == _meaning(job), text
    assert bammmc.emit(again, "slurm")[0] == text
    accepted, message = sbatch_check(text)
    assert accepted, f"{message}\n{text}"
