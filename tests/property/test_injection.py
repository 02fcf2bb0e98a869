"""No injection, for every registered format that reads and writes: a job whose string fields
hold another directive — for every scheduler at once, behind a line break, a `\\r`, quotes,
backslashes, `;`, `#` — is written so that our own reader, reading the output back, finds no
directive the job did not have (no walltime, no array, no second job), or it is refused (E140).

The payload sets a walltime and an array in every syntax we know; the generated jobs have
neither, so either showing up after the round trip is an injection. (The HTCondor writer is
also checked with HTCondor's own parser: tests/property/test_htcondor_injection.py.)
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bammmc
from bammmc.registry import FORMATS

SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=400,
    suppress_health_check=[HealthCheck.too_slow],
)

#: one line per scheduler that would set a walltime or an array if it became a directive
PAYLOADS = [
    "#SBATCH --time=99:00:00 --array=1-9",
    "#PBS -l walltime=99:00:00 -J 1-9",
    "#BSUB -W 99:00 -J x[1-9]",
    "#$ -l h_rt=99:00:00 -t 1-9",
    "#flux: -t 99h",
    "allowed_job_duration = 356400",
    "queue 9",
    '"""',
    "spec:\n  schedule:\n    walltime: 99h",
]
GLUE = ["\n", "\r\n", "\r", "\n ", "\\\n", "' \n", '" \n', "; ", " # ", "\n\n", "\u2028", ""]
FIELDS = [
    "name",
    "queue",
    "account",
    "project",
    "stdout",
    "stderr",
    "workingDir",
    "email",
    "executable",
    "arguments",
    "env",
    "qos",
    "reservation",
    "partition",
    "constraint",
    "stdin",
    "image",
]


@st.composite
def jobs(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    value = "x" + draw(st.sampled_from(GLUE)) + draw(st.sampled_from(PAYLOADS))
    field = draw(st.sampled_from(FIELDS))
    spec: dict[str, Any] = {"execution": {"script": "#!/bin/bash\necho hi\n"}}
    doc: dict[str, Any] = {"apiVersion": "bammm.io/v1alpha1", "kind": "Job", "spec": spec}
    if field == "name":
        doc["metadata"] = {"name": value}
    elif field in ("queue", "account", "project"):
        spec["schedule"] = {field: value}
    elif field in ("stdout", "stderr"):
        spec["output"] = {field: value.replace("{", "{{").replace("}", "}}")}
    elif field == "workingDir":
        spec["execution"]["workingDir"] = value
    elif field == "email":
        spec["notifications"] = {"email": value, "events": ["end"]}
    elif field in ("qos", "reservation", "partition"):
        spec["schedule"] = {field: value}
    elif field == "constraint":
        spec["placement"] = {"constraint": value}
    elif field == "stdin":
        spec["execution"]["stdin"] = value
    elif field == "image":
        spec["execution"]["container"] = {"image": value}
    elif field == "executable":
        spec["execution"] = {"executable": value}
    elif field == "arguments":
        spec["execution"] = {"executable": "/bin/app", "arguments": value}
    else:
        spec["execution"]["environment"] = {"vars": {"V": value}}
    return field, doc


TARGETS = sorted(f for f in FORMATS if f != "splat")


@pytest.mark.parametrize("target", TARGETS)
def test_no_value_becomes_a_directive(target: str) -> None:
    @SETTINGS
    @given(jobs())
    def run(case: tuple[str, dict[str, Any]]) -> None:
        field, doc = case
        job, _ = bammmc.parse(json.dumps(doc), "splat")
        if job is None:
            return  # the IR refuses the value itself (a control character…)
        files, more = bammmc.emit_files(job, target)
        errors = {d.code for d in more if d.is_error}
        if files is None or errors:
            assert errors <= {"E140"}, more  # refused, nothing written
            return
        main = files[0][1]
        again, back = bammmc.parse(main, target, filename="out")
        if again is None:  # what we wrote must read back
            pytest.fail(f"{target} cannot read its own output ({field}): {back}\n{main}")
        spec = again.spec
        assert spec is None or spec.schedule is None or spec.schedule.walltime is None, main
        assert spec is None or spec.array is None, main
        ext = spec.extensions if spec is not None else None
        if ext is not None and ext.htcondor is not None:
            assert not ext.htcondor.clusters, main

    run()


def _splat(spec: dict[str, Any], **top: Any) -> Any:
    job, diags = bammmc.parse(
        json.dumps({"apiVersion": "bammm.io/v1alpha1", "kind": "Job", "spec": spec, **top}),
        "splat",
    )
    assert job is not None, diags
    return job


@pytest.mark.parametrize(
    ("target", "spec", "top", "code"),
    [
        # found by the property above: an argument string with a line break put a `#$ -l h_rt`
        # line into the Grid Engine script (qsub reads `#$` anywhere) — now E140 everywhere
        (
            "sge",
            {"execution": {"executable": "/bin/app", "arguments": "x\n#$ -l h_rt=99:00:00"}},
            {},
            "E140",
        ),
        (
            "slurm",
            {"execution": {"executable": "/bin/app", "arguments": "x\nrm -rf ~"}},
            {},
            "E140",
        ),
        # a value with a quote: qsub's -v list reads it as quoting
        ("pbs", {"execution": {"environment": {"vars": {"V": 'x"'}}}}, {}, "E140"),
        # an unclosed quote cannot be split into a Flux command (was a traceback)
        ("flux", {"execution": {"executable": "/bin/app", "arguments": "it's"}}, {}, "E140"),
        # a name `x[1-9]` is an LSF array: written with the brackets replaced (W301)
        (
            "lsf",
            {"execution": {"script": "#!/bin/bash\nrun\n"}},
            {"metadata": {"name": "x[1-9]"}},
            "W301",
        ),
    ],
)
def test_injections_found(
    target: str, spec: dict[str, Any], top: dict[str, Any], code: str
) -> None:
    files, diags = bammmc.emit_files(_splat(spec, **top), target)
    assert code in {d.code for d in diags}, diags
    if code == "W301":
        again, _ = bammmc.parse(files[0][1], target)
        assert again is not None and again.spec is not None and again.spec.array is None


@pytest.mark.parametrize("target", ["slurm", "pbs", "lsf", "sge", "flux-batch"])
def test_image_with_a_line_break_is_refused(target: str) -> None:
    job = _splat(
        {"execution": {"script": "#!/bin/bash\nrun\n", "container": {"image": "x\n#SBATCH -t 9"}}}
    )
    _, diags = bammmc.emit_files(job, target)
    assert ("E140", "spec.execution.container.image") in {(d.code, d.field) for d in diags}
