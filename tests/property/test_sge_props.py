"""Grid Engine properties over generated jobs: write `#$` directives, read them back, same
meaning; the canonical text is stable; and generated directive lines read without a traceback.
"""

from __future__ import annotations

from typing import Any

import msgspec
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bammmc
from bammmc.facts.sge import default_path
from bammmc.ir.job import Job, Output
from bammmc.ir.values import Template

SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow],
)

NAMES = st.text(alphabet=st.sampled_from("abcXYZ019_-.+"), min_size=1, max_size=20)


@st.composite
def sge_jobs(draw: st.DrawFn) -> dict[str, Any]:
    threads = draw(st.booleans())
    resources: dict[str, Any] = {
        "memoryPerTask": f"{draw(st.integers(1, 64))}{draw(st.sampled_from(['Gi', 'Mi', 'G']))}"
    }
    if threads:
        resources["cpusPerTask"] = draw(st.integers(1, 32))
    else:
        resources["tasks"] = draw(st.integers(1, 64))
    spec: dict[str, Any] = {
        "schedule": {
            "queue": draw(st.sampled_from(["all.q", "long.q", "gpu"])),
            "walltime": draw(st.integers(1, 10**6)),
            "project": draw(st.sampled_from(["physics", "bio-x"])),
            "priority": draw(st.integers(0, 1000)),
        },
        "resources": resources,
        "execution": {"script": "#!/bin/bash\ncd $SGE_O_WORKDIR\n./app\n"},
    }
    if draw(st.booleans()):
        start = draw(st.integers(1, 50))
        step = draw(st.integers(1, 3))
        indices = f"{start}-{start + draw(st.integers(1, 50))}" + (f":{step}" if step != 1 else "")
        spec["array"] = {"indices": indices, "maxConcurrent": draw(st.integers(1, 9))}
    if draw(st.booleans()):
        spec["notifications"] = {
            "email": "me@example.org",
            "events": draw(st.lists(st.sampled_from(["begin", "end", "fail"]), unique=True)),
        }
    if draw(st.booleans()):
        spec["dependencies"] = [
            {"scheme": "afterany", "value": str(n)}
            for n in draw(st.lists(st.integers(1, 99999), min_size=1, max_size=3, unique=True))
        ]
    if draw(st.booleans()):
        spec["output"] = {
            "mergeStderr": draw(st.booleans()),
            "stdout": draw(st.sampled_from(["out.{job_id}", "logs/{job_name}.{array_index}"])),
        }
    if draw(st.booleans()):
        spec["lifecycle"] = {"requeueOnFailure": draw(st.booleans())}
    if draw(st.booleans()):
        spec["placement"] = {"exclusive": True}
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


@SETTINGS
@given(doc=sge_jobs())
def test_sge_round_trip(doc: dict[str, Any]) -> None:
    job = _job(doc)
    text, diags = bammmc.emit(job, "sge")
    assert text is not None
    assert not [d for d in diags if d.is_error], diags
    back, more = bammmc.parse(text, "sge")
    assert back is not None and not [d for d in more if d.is_error], (text, more)
    again, _ = bammmc.emit(back, "sge")
    assert again == text, f"not stable:\n{text}\n{again}"
    spec, bspec = job.spec, back.spec
    assert spec is not None and bspec is not None
    assert spec.schedule and bspec.schedule and spec.resources and bspec.resources
    assert bspec.schedule.walltime and spec.schedule.walltime
    assert bspec.schedule.walltime.seconds == spec.schedule.walltime.seconds
    assert bspec.schedule.queue == spec.schedule.queue
    assert bspec.schedule.project == spec.schedule.project
    assert bspec.schedule.priority == spec.schedule.priority
    assert bspec.resources.tasks == (spec.resources.tasks if spec.resources.tasks != 1 else 1) or (
        spec.resources.tasks == 1 and bspec.resources.tasks is None
    )
    assert bspec.resources.cpus_per_task == spec.resources.cpus_per_task or (
        spec.resources.cpus_per_task is not None and spec.resources.cpus_per_task.cores == 1
    )
    mem, bmem = spec.resources.memory_per_task, bspec.resources.memory_per_task
    assert mem is not None and bmem is not None
    # per slot, rounded up to a whole K or k (always a unit; W301 when it is not exact)
    slots = int(spec.resources.cpus_per_task.cores) if spec.resources.cpus_per_task else 1
    assert mem.bytes <= bmem.bytes < mem.bytes + 1024 * slots
    if spec.array and spec.array.indices:
        assert bspec.array and bspec.array.indices
        assert bspec.array.indices.indices() == spec.array.indices.indices()
        assert bspec.array.max_concurrent == spec.array.max_concurrent
    assert [(d.scheme, d.value) for d in bspec.dependencies or ()] == [
        (d.scheme, d.value) for d in spec.dependencies or ()
    ]
    if spec.notifications:
        assert bspec.notifications
        assert set(bspec.notifications.events or ()) == set(spec.notifications.events or ())
        assert bspec.notifications.email == spec.notifications.email
    # Grid Engine keeps stdout and stderr apart unless `-j y` joins them; in an array job its
    # `$JOB_ID` is the array's id, so a task's own `{job_id}` is written `$JOB_ID.$TASK_ID`
    output = spec.output or Output()
    stdout = output.stdout
    if stdout is not None and spec.array:
        unique = str(stdout).replace("{job_id}", "{array_job_id}.{array_index}")
        stdout = Template.parse(unique)
    # a stream the job names no file for is in qsub's own file, read back as that name
    # (qsub(1): `<job_name>.o<job_id>`, `.<task_id>` in an array)
    array = spec.array is not None
    stderr = output.stderr
    if stdout is None:
        stdout = Template.parse(default_path("o", array))
    if stderr is None and not output.merge_stderr:
        stderr = Template.parse(default_path("e", array))
    expected = msgspec.structs.replace(
        output, stdout=stdout, stderr=stderr, merge_stderr=bool(output.merge_stderr)
    )
    assert bspec.output == expected
    assert bspec.lifecycle == spec.lifecycle
    assert bspec.placement == spec.placement
    # the qmaster refuses a name that starts with a digit: the writer puts `_` in front (W301)
    meta = job.metadata
    if meta is not None and meta.name and meta.name[0].isdigit():
        meta = msgspec.structs.replace(meta, name="_" + meta.name)
    assert back.metadata == meta


WORDS = st.sampled_from(
    [
        "-N",
        "x",
        "-pe",
        "smp",
        "2-8",
        "-l",
        "h_vmem=2G,h_rt=1:0:0",
        "h_rt=1:30",
        "-t",
        "1-10:2",
        "-hold_jid",
        "a,1",
        "#",
        "'a b'",
        '"',
        "-j",
        "y",
        "-q",
        "-m",
        "bea",
        "-foo",
        "-tc",
        "0",
        "-p",
        "-5",
        # the review's tracebacks and qsub's own readings
        "1-100000000",
        "1-3,4-6",
        "²",
        "١٢",
        "h_vmem=,h_rt=1.5",
        "h_vmem=.5G,s_vmem=1e999G",
        "16,4",
        "8-4",
        "-soft",
        "-clear",
        "-o",
        "$HOME/$JOB_ID.${TASK_ID}",
        "a#b",
        "'it\"s'",
        "-M",
        "a@b,c",
    ]
)


@SETTINGS
@given(lines=st.lists(st.lists(WORDS, max_size=6), max_size=6))
def test_generated_directives_never_crash(lines: list[list[str]]) -> None:
    text = "#!/bin/bash\n" + "".join("#$ " + " ".join(ws) + "\n" for ws in lines) + "./app\n"
    job, diags = bammmc.parse(text, "sge")
    assert job is not None or any(d.is_error for d in diags)
    if job is not None:
        out, more = bammmc.emit(job, "sge")
        assert out is not None
        if not [d for d in more if d.is_error]:
            again, _ = bammmc.parse(out, "sge")
            assert again is not None
