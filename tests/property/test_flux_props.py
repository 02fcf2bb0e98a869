"""Flux jobspec properties: generated V1 jobspecs (YAML and JSON) read to a job and come back
exactly through SPLAT; generated SPLAT jobs are written as jobspecs that pass Flux's own V1
schema and read back without W430; arbitrary trees in a jobspec's places give a located
diagnostic, never a traceback."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bammmc
from bammmc.backends.splat import dump_yaml
from tests.conftest import ORACLES

SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow],
)

WORD = st.text(alphabet=st.sampled_from("abcXYZ019_-./ '\"$"), min_size=1, max_size=12)
NAME = st.text(alphabet=st.sampled_from("abcXYZ_"), min_size=1, max_size=8)


@st.composite
def jobspecs(draw: st.DrawFn) -> dict[str, Any]:
    inner: list[dict[str, Any]] = [{"type": "core", "count": draw(st.integers(1, 64))}]
    if draw(st.booleans()):
        inner.append({"type": "gpu", "count": draw(st.integers(0, 8))})
    slot = {"type": "slot", "count": draw(st.integers(1, 16)), "label": draw(NAME), "with": inner}
    top = slot
    if draw(st.booleans()):
        top = {"type": "node", "count": draw(st.integers(1, 8)), "with": [slot]}
    count = draw(st.sampled_from([{"per_slot": 1}, {"total": draw(st.integers(1, 64))}]))
    system: dict[str, Any] = {"duration": draw(st.sampled_from([0, 60, 3600.0, 86400]))}
    if draw(st.booleans()):
        system["cwd"] = "/" + draw(NAME)
    if draw(st.booleans()):
        system["queue"] = draw(NAME)
    if draw(st.booleans()):
        system["bank"] = draw(NAME)
    if draw(st.booleans()):
        system["job"] = {"name": draw(NAME)}
    if draw(st.booleans()):
        system["environment"] = draw(
            st.dictionaries(NAME, st.one_of(st.none(), WORD), min_size=1, max_size=3)
        )
    if draw(st.booleans()):
        path = draw(NAME) + draw(st.sampled_from(["-{{id}}.out", ".log", "-{{name}}"]))
        system["shell"] = {"options": {"output": {"stdout": {"type": "file", "path": path}}}}
    if draw(st.booleans()):
        system["dependencies"] = [
            {"scheme": draw(st.sampled_from(["afterok", "afterany", "afternotok"])), "value": "f2x"}
        ]
    if draw(st.booleans()):
        system["constraints"] = {"properties": [draw(NAME)]}
    attributes: dict[str, Any] = {"system": system}
    if draw(st.booleans()):
        attributes["user"] = {draw(NAME): draw(st.one_of(st.integers(), NAME))}
    return {
        "version": 1,
        "resources": [top],
        "tasks": [
            {
                "command": draw(st.lists(WORD, min_size=1, max_size=4)),
                "slot": slot["label"],
                "count": count,
            }
        ],
        "attributes": attributes,
    }


@SETTINGS
@given(jobspecs(), st.booleans())
def test_jobspec_round_trips_through_splat(spec: dict[str, Any], as_json: bool) -> None:
    text = json.dumps(spec) if as_json else dump_yaml(spec)
    splat, diags = bammmc.convert(text, "flux", "splat", filename="j.jobspec.yaml")
    assert splat is not None, [d.message for d in diags]
    assert not [d for d in diags if d.code == "W430"]
    back, _ = bammmc.convert(splat, "splat", "flux")
    assert back is not None
    assert yaml.safe_load(back) == spec


@st.composite
def splat_jobs(draw: st.DrawFn) -> str:
    lines = ["apiVersion: bammm.io/v1alpha1", "kind: Job", "spec:", "  resources:"]
    lines.append(f"    tasks: {draw(st.integers(1, 64))}")
    if draw(st.booleans()):
        lines.append(f"    nodes: {draw(st.integers(1, 8))}")
    lines.append(f"    cpusPerTask: {draw(st.sampled_from(['1', '4', '500m', '2.5']))}")
    if draw(st.booleans()):
        lines.append(f"    gpu: {{count: {draw(st.integers(1, 4))}}}")
    if draw(st.booleans()):
        lines.append(f"    memoryPerTask: {draw(st.integers(1, 64))}Gi")
    lines += ["  schedule:", f"    walltime: {draw(st.sampled_from(['PT1H', '90m', '2:00:00']))}"]
    if draw(st.booleans()):
        lines.append(f"    priority: {draw(st.integers(0, 1000))}")
    lines += ["  execution:"]
    if draw(st.booleans()):
        lines.append("    script: |\n      #!/bin/sh\n      echo $SLURM_JOB_ID")
    else:
        lines.append(f"    executable: /bin/{draw(NAME)}")
    if draw(st.booleans()):
        lines += ["  array:", f"    indices: 1-{draw(st.integers(2, 100))}"]
    if draw(st.booleans()):
        lines += ["  placement:", f"    constraint: {draw(NAME)}&{draw(NAME)}"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def v1_schema() -> Any:
    jsonschema = pytest.importorskip("jsonschema")
    path = ORACLES / "flux" / "schemas" / "flux-core-jobspec_v1.jsonschema"
    if not path.is_file():
        pytest.skip("Flux schemas not present")
    schema = json.loads(path.read_text())
    return jsonschema.validators.validator_for(schema)(schema)


def test_written_jobspecs_validate(v1_schema: Any) -> None:
    @SETTINGS
    @given(splat_jobs())
    def check(text: str) -> None:
        out, diags = bammmc.convert(text, "splat", "flux")
        assert out is not None, [d.message for d in diags]
        assert not list(v1_schema.iter_errors(yaml.safe_load(out))), out
        again, diags = bammmc.convert(out, "flux", "splat", filename="j.jobspec.yaml")
        assert again is not None and not [d for d in diags if d.code == "W430"]

    check()


JSONISH = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["", "x", "slot", "2-4"])
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(["type", "count", "with", "label", "min", "per_slot"]),
            inner,
            max_size=3,
        ),
    ),
    max_leaves=8,
)


@SETTINGS
@given(st.sampled_from(["resources", "tasks", "attributes", "version"]), JSONISH)
def test_any_tree_is_located(key: str, value: Any) -> None:
    spec: dict[str, Any] = {
        "version": 1,
        "resources": [
            {"type": "slot", "count": 1, "label": "t", "with": [{"type": "core", "count": 1}]}
        ],
        "tasks": [{"command": ["app"], "slot": "t", "count": {"per_slot": 1}}],
        "attributes": {"system": {"duration": 0}},
    }
    spec[key] = value
    out, diags = bammmc.convert(json.dumps(spec), "flux", "splat", filename="j.jobspec.json")
    for d in diags:
        if d.severity == "error":
            assert d.span is not None and d.span.line >= 1, d
    if out is None:
        assert any(d.severity == "error" for d in diags)
