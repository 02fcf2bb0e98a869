"""LSF properties: generated jobs written as bsub scripts read back with the same meaning;
`-R` and `-w` strings generated from their grammar (``lsf_resreq.lark``) read without a
traceback, and when they read, writing and reading again keeps their meaning.
"""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark

import bammmc
from bammmc.ir.job import Job

SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

NAMES = st.text(alphabet=st.sampled_from("abcXYZ019_-."), min_size=1, max_size=20).filter(
    lambda s: s[0].isalnum()
)


@st.composite
def lsf_jobs(draw: st.DrawFn) -> dict[str, Any]:
    nodes = draw(st.integers(1, 16))
    tpn = draw(st.integers(1, 8))
    spec: dict[str, Any] = {
        "schedule": {
            "queue": draw(st.sampled_from(["normal", "long", "gpu"])),
            "walltime": 60 * draw(st.integers(1, 10**4)),
            "account": draw(st.sampled_from(["proj1", "climate-x"])),
            "priority": draw(st.sampled_from([0, 10, 500, 1000])),
        },
        "resources": {
            "nodes": nodes,
            "tasks": nodes * tpn,
            "tasksPerNode": tpn,
            "memoryPerTask": f"{draw(st.integers(1, 64))}Gi",
            "cpusPerTask": draw(st.integers(2, 8)),  # 1 is the default, written as nothing
        },
        "execution": {"script": "#!/bin/bash\ncd $LS_SUBCWD\n./app\n"},
    }
    if draw(st.booleans()):
        spec["resources"]["gpu"] = {"count": draw(st.integers(1, 4))}
    if draw(st.booleans()):
        start = draw(st.integers(1, 50))
        step = draw(st.integers(1, 3))
        indices = f"{start}-{start + draw(st.integers(1, 50))}"
        if step != 1:
            indices += f":{step}"
        spec["array"] = {"indices": indices + f"%{draw(st.integers(1, 9))}"}
    if draw(st.booleans()):
        spec["notifications"] = {
            "email": "me@example.org",
            "events": draw(st.lists(st.sampled_from(["begin", "end"]), min_size=1, unique=True)),
        }
    if draw(st.booleans()):
        spec["dependencies"] = [
            {
                "scheme": draw(st.sampled_from(["afterok", "afterany", "afternotok", "after"])),
                "value": str(n),
            }
            for n in draw(st.lists(st.integers(1, 99999), min_size=1, max_size=3, unique=True))
        ]
    if draw(st.booleans()):
        spec["output"] = {
            "stdout": "out.{job_id}.{array_index}",
            "openMode": draw(st.sampled_from(["append", "truncate"])),
        }
    if draw(st.booleans()):
        spec["placement"] = {"exclusive": True, "constraint": "avx512&ib"}
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


@SETTINGS
@given(doc=lsf_jobs())
def test_lsf_round_trip(doc: dict[str, Any]) -> None:
    job = _job(doc)
    text, diags = bammmc.emit(job, "lsf")
    assert text is not None
    assert not [d for d in diags if d.is_error], diags
    back, more = bammmc.parse(text, "lsf")
    assert back is not None and not [d for d in more if d.is_error], (text, more)
    assert bammmc.emit(back, "lsf")[0] == text, "not stable"
    spec, bspec = job.spec, back.spec
    assert spec is not None and bspec is not None
    assert spec.schedule and bspec.schedule and spec.resources and bspec.resources
    assert bspec.schedule.walltime and spec.schedule.walltime
    assert bspec.schedule.walltime.seconds == spec.schedule.walltime.seconds
    assert bspec.schedule.queue == spec.schedule.queue
    assert bspec.schedule.account == spec.schedule.account
    for key in ("nodes", "tasks", "tasks_per_node", "cpus_per_task", "gpu"):
        assert getattr(bspec.resources, key) == getattr(spec.resources, key), key
    mem, bmem = spec.resources.memory_per_task, bspec.resources.memory_per_task
    assert mem is not None and bmem is not None and bmem.bytes == mem.bytes
    if spec.array and spec.array.indices:
        assert bspec.array and bspec.array.indices
        assert bspec.array.indices.indices() == spec.array.indices.indices()
        assert bspec.array.indices.throttle == spec.array.indices.throttle
    assert bspec.dependencies == spec.dependencies
    if spec.notifications:  # a set of events: the order does not matter
        assert bspec.notifications and bspec.notifications.email == spec.notifications.email
        assert set(bspec.notifications.events or ()) == set(spec.notifications.events or ())
    assert bspec.lifecycle == spec.lifecycle
    assert bspec.placement == spec.placement
    assert bspec.output == spec.output or (spec.output and bspec.output)
    # LSF has 100 steps (-sp 1..100) for the band's 1001: within half a step
    assert bspec.schedule.priority is not None and spec.schedule.priority is not None
    assert abs(bspec.schedule.priority - spec.schedule.priority) <= 6


def _grammar(start: str) -> Lark:
    """The grammar as the reader uses it (without the parse cache, which drops the rules)."""
    return Lark.open_from_package(
        "bammmc", "lsf_resreq.lark", ("grammars",), parser="lalr", lexer="contextual", start=start
    )


def _value_round_trip(option: str, value: str) -> None:
    value = " ".join(value.split())  # white space is free in the grammar; a line holds no newline
    quote = '"' if '"' not in value else "'"
    assume("'" not in value or quote == '"')
    text = f"#!/bin/bash\n#BSUB {option} {quote}{value}{quote}\n./app\n"
    job, diags = bammmc.parse(text, "lsf")  # never a traceback
    assert all(d.code for d in diags)
    assume(job is not None)
    assert job is not None
    out, more = bammmc.emit(job, "lsf")
    assume(not [d for d in more if d.is_error])
    assert out is not None
    again, _ = bammmc.parse(out, "lsf")
    assert again == job, (text, out)


@SETTINGS
@given(value=from_lark(_grammar("resreq"), start="resreq"))
def test_generated_resource_requirements_keep_their_meaning(value: str) -> None:
    _value_round_trip("-R", value)


@SETTINGS
@given(value=from_lark(_grammar("depend"), start="depend"))
def test_generated_dependencies_keep_their_meaning(value: str) -> None:
    _value_round_trip("-w", value)
