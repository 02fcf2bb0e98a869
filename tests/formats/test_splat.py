"""The SPLAT reader and writer, table-driven: input -> canonical text, or input -> diagnostics."""

from __future__ import annotations

import pytest

import bammmc
from bammmc.diagnostics.model import Diagnostic

HEAD = "apiVersion: bammm.io/v1alpha1\nkind: Job\n"


def diags(text: str, **kwargs: str) -> list[Diagnostic]:
    _, found = bammmc.parse(text, "splat", filename="job.yaml", **kwargs)
    return found


def summary(found: list[Diagnostic]) -> list[tuple[str, int, int, str | None]]:
    return [
        (d.code, d.span.line if d.span else 0, d.span.column if d.span else 0, d.field)
        for d in found
    ]


# ── identity: input -> canonical SPLAT ────────────────────────────────────────────────────

IDENTITY = [
    ("minimal", HEAD, HEAD),
    (
        "field order follows the specification",
        HEAD + "spec:\n  resources:\n    memoryPerTask: 4Gi\n    cpusPerTask: 2\n"
        "  schedule:\n    queue: batch\n",
        HEAD + "spec:\n  schedule:\n    queue: batch\n  resources:\n    cpusPerTask: 2\n"
        "    memoryPerTask: 4Gi\n",
    ),
    (
        "values keep their spelling",
        HEAD + "spec:\n  resources:\n    memoryPerTask: 4096\n    cpusPerTask: 500m\n"
        "  schedule:\n    walltime: PT2H30M\n",
        HEAD + "spec:\n  schedule:\n    walltime: PT2H30M\n  resources:\n    cpusPerTask: 500m\n"
        "    memoryPerTask: 4096\n",
    ),
    (
        "nulls are unset",
        HEAD + "metadata:\n  name: ~\nspec:\n  schedule:\n    queue: null\n",
        HEAD + "metadata: {}\nspec:\n  schedule: {}\n",
    ),
    (
        "a script is kept byte for byte",
        HEAD + 'spec:\n  execution:\n    script: "#!/bin/bash\\n  indented\\ntrailing   \\n\\n"\n',
        HEAD + "spec:\n  execution:\n    script: |+\n      #!/bin/bash\n        indented\n"
        "      trailing   \n\n...\n",
    ),
    (
        "tabs and emoji stay in a literal block",
        HEAD + 'spec:\n  execution:\n    script: "#!/bin/bash\\n\\techo 🚀\\n"\n',
        HEAD + "spec:\n  execution:\n    script: |\n      #!/bin/bash\n      \techo 🚀\n",
    ),
    (
        "a carriage return cannot be in a block",
        HEAD + 'spec:\n  execution:\n    script: "a\\r\\nb\\n"\n',
        HEAD + 'spec:\n  execution:\n    script: "a\\r\\nb\\n"\n',
    ),
    (
        "a literal block script",
        HEAD + "spec:\n  execution:\n    script: |\n      #!/bin/bash\n      echo $HOME\n",
        HEAD + "spec:\n  execution:\n    script: |\n      #!/bin/bash\n      echo $HOME\n",
    ),
    (
        "YAML 1.2: yes and 0755 are strings in string fields",
        HEAD + "metadata:\n  name: yes\n  labels:\n    mode: 0755\n",
        HEAD + "metadata:\n  name: 'yes'\n  labels:\n    mode: '0755'\n",
    ),
    (
        "strings that YAML 1.2 would read as numbers are quoted",
        HEAD + "metadata:\n  labels:\n    a: '1e3'\n    b: '0o17'\n",
        HEAD + "metadata:\n  labels:\n    a: '1e3'\n    b: '0o17'\n",
    ),
    (
        "extensions keep the specification's spelling",
        HEAD + "spec:\n  extensions:\n    runai:\n      minReplicas: 2\n      large_shm: true\n",
        HEAD + "spec:\n  extensions:\n    runai:\n      large_shm: true\n      minReplicas: 2\n",
    ),
    (
        "opaque objects pass through",
        HEAD + "spec:\n  placement:\n    tolerations:\n    - {key: gpu, operator: Exists}\n",
        HEAD + "spec:\n  placement:\n    tolerations:\n    - key: gpu\n      operator: Exists\n",
    ),
    (
        "a number in a string-only value is a string",
        HEAD + "spec:\n  output:\n    stdout: 123\n",
        HEAD + "spec:\n  output:\n    stdout: '123'\n",
    ),
    (
        "an integer in a number field stays an integer",
        HEAD + "spec:\n  resources:\n    gpu:\n      fraction: 1\n",
        HEAD + "spec:\n  resources:\n    gpu:\n      fraction: 1\n",
    ),
    (
        "non-ASCII stays readable",
        HEAD + "metadata:\n  name: café-模型\n",
        HEAD + "metadata:\n  name: café-模型\n",
    ),
]


@pytest.mark.parametrize(("name", "text", "canonical"), IDENTITY, ids=[c[0] for c in IDENTITY])
def test_identity(name: str, text: str, canonical: str) -> None:
    job, found = bammmc.parse(text, "splat")
    assert found == []
    assert job is not None
    out, more = bammmc.emit(job, "splat")
    assert more == []
    assert out == canonical
    again, _ = bammmc.parse(out, "splat")
    assert again == job
    assert bammmc.emit(again, "splat")[0] == out


# ── diagnostics: input -> (code, line, column, field) ─────────────────────────────────────

ERRORS = [
    (
        "misspelled key",
        HEAD + "spec:\n  resources:\n    cpuPerTask: 4\n",
        [("E101", 5, 5, "spec.resources.cpuPerTask")],
    ),
    (
        "wrong type",
        HEAD + "spec:\n  resources:\n    tasks: four\n",
        [("E102", 5, 12, "spec.resources.tasks")],
    ),
    (
        "yes is not a boolean",
        HEAD + "spec:\n  schedule:\n    hold: yes\n",
        [("E102", 5, 11, "spec.schedule.hold")],
    ),
    (
        "quoted number is not an integer",
        HEAD + "spec:\n  resources:\n    tasks: '4'\n",
        [("E102", 5, 12, "spec.resources.tasks")],
    ),
    (
        "scalar for a list",
        HEAD + "spec:\n  notifications:\n    events: begin\n",
        [("E102", 5, 13, "spec.notifications.events")],
    ),
    ("missing kind", "apiVersion: bammm.io/v1alpha1\n", [("E103", 1, 1, "kind")]),
    ("missing apiVersion", "kind: Job\n", [("E103", 1, 1, "apiVersion")]),
    ("wrong kind", "apiVersion: bammm.io/v1alpha1\nkind: Jobs\n", [("E104", 2, 7, "kind")]),
    ("other version", "apiVersion: bammm.io/v2\nkind: Job\n", [("E111", 1, 13, "apiVersion")]),
    (
        "bad enum",
        HEAD + "spec:\n  placement:\n    topology: spread\n",
        [("E104", 5, 15, "spec.placement.topology")],
    ),
    (
        "bad size unit",
        HEAD + "spec:\n  resources:\n    memoryPerTask: 4XB\n",
        [("E105", 5, 21, "spec.resources.memoryPerTask")],
    ),
    (
        "ambiguous size unit",
        HEAD + "spec:\n  resources:\n    memoryPerTask: '4m'\n",
        [("E105", 5, 22, "spec.resources.memoryPerTask")],
    ),
    (
        "two-field duration",
        HEAD + "spec:\n  schedule:\n    walltime: '1:30'\n",
        [("E106", 5, 16, "spec.schedule.walltime")],
    ),
    (
        "backwards range",
        HEAD + "spec:\n  array:\n    indices: 10-1\n",
        [("E107", 5, 14, "spec.array.indices")],
    ),
    (
        "bad datetime",
        HEAD + "spec:\n  schedule:\n    deadline: tomorrow\n",
        [("E109", 5, 15, "spec.schedule.deadline")],
    ),
    (
        "bad signal",
        HEAD + "spec:\n  schedule:\n    signalBeforeEnd: USR3@60\n",
        [("E110", 5, 22, "spec.schedule.signalBeforeEnd")],
    ),
    (
        "script and executable",
        HEAD + "spec:\n  execution:\n    script: x\n    executable: y\n",
        [("E112", 6, 5, "spec.execution.executable")],
    ),
    (
        "two volume sources",
        HEAD
        + "spec:\n  volumes:\n  - name: v\n    mountPath: /v\n    pvc: a\n    emptyDir: true\n",
        [("E113", 5, 5, "spec.volumes[0].name")],
    ),
    (
        "no volume source",
        HEAD + "spec:\n  volumes:\n  - name: v\n    mountPath: /v\n",
        [("E113", 5, 5, "spec.volumes[0].name")],
    ),
    (
        "emptyDir false is no source",
        HEAD + "spec:\n  volumes:\n  - name: v\n    mountPath: /v\n    emptyDir: false\n",
        [("E113", 5, 5, "spec.volumes[0].name")],
    ),
    (
        "gpu fraction",
        HEAD + "spec:\n  resources:\n    gpu:\n      fraction: 0\n",
        [("E114", 6, 17, "spec.resources.gpu.fraction")],
    ),
    (
        "queue vs partition",
        HEAD + "spec:\n  schedule:\n    queue: a\n    partition: b\n",
        [("E115", 6, 5, "spec.schedule.partition")],
    ),
    (
        "queue vs partition in a het component",
        HEAD + "spec:\n  extensions:\n    slurm:\n      het_components:\n      - schedule:\n"
        "          queue: a\n          partition: b\n",
        [("E115", 9, 11, "spec.extensions.slurm.het_components[0].schedule.partition")],
    ),
    (
        "priority band",
        HEAD + "spec:\n  schedule:\n    priority: 1001\n",
        [("E116", 5, 15, "spec.schedule.priority")],
    ),
    (
        "throttle conflict",
        HEAD + "spec:\n  array:\n    indices: 0-9%2\n    maxConcurrent: 3\n",
        [("E117", 6, 5, "spec.array.maxConcurrent")],
    ),
    (
        "range",
        HEAD + "spec:\n  resources:\n    tasks: 0\n",
        [("E118", 5, 12, "spec.resources.tasks")],
    ),
    (
        "exit code range",
        HEAD + "spec:\n  lifecycle:\n    successExitCodes: [256]\n",
        [("E118", 5, 24, "spec.lifecycle.successExitCodes[0]")],
    ),
    (
        "task count",
        HEAD + "spec:\n  resources:\n    nodes: 2\n    tasksPerNode: 2\n    tasks: 5\n",
        [("E119", 7, 5, "spec.resources.tasks")],
    ),
    (
        "duplicate task",
        HEAD + "spec:\n  tasks:\n  - name: a\n  - name: a\n",
        [("E120", 6, 5, "spec.tasks[1].name")],
    ),
    (
        "unknown dependsOn",
        HEAD
        + "spec:\n  tasks:\n  - name: master\n  - name: worker\n"
        + "    dependsOn:\n    - name: mastr\n",
        [("E121", 8, 13, "spec.tasks[1].dependsOn[0].name")],
    ),
    (
        "dependency without value",
        HEAD + "spec:\n  dependencies:\n  - scheme: afterok\n",
        [("E122", 5, 5, "spec.dependencies[0].scheme")],
    ),
    (
        "singleton with value",
        HEAD + "spec:\n  dependencies:\n  - scheme: singleton\n    value: x\n",
        [("E122", 6, 5, "spec.dependencies[0].value")],
    ),
    (
        "gang too big",
        HEAD + "spec:\n  resources:\n    tasks: 2\n  gang:\n    minAvailable: 3\n",
        [("E123", 7, 19, "spec.gang.minAvailable")],
    ),
    (
        "bad base64",
        HEAD + "spec:\n  fileStaging:\n    embeddedFiles:\n    - name: a\n      content: '!!'\n"
        "      encoding: base64\n",
        [("E124", 7, 16, "spec.fileStaging.embeddedFiles[0].content")],
    ),
    ("duplicate key", HEAD + "metadata:\n  name: a\n  name: b\n", [("E125", 5, 3, None)]),
    (
        "bad permissions",
        HEAD + "spec:\n  fileStaging:\n    embeddedFiles:\n    - name: a\n      content: x\n"
        "      permissions: '999'\n",
        [("E126", 8, 20, "spec.fileStaging.embeddedFiles[0].permissions")],
    ),
    (
        "keys that become the same string",
        HEAD + "metadata:\n  labels: {1: a, '1': b}\n",
        [("E125", 4, 18, "metadata.labels")],
    ),
    (
        "a size written as a hex number",
        HEAD + "spec:\n  resources:\n    memoryPerTask: 0x10\n",
        [("E105", 5, 20, "spec.resources.memoryPerTask")],
    ),
    (
        "an infinite fraction",
        HEAD + "spec:\n  resources:\n    gpu:\n      fraction: .inf\n",
        [("E118", 6, 17, "spec.resources.gpu.fraction")],
    ),
    (
        "zero walltime",
        HEAD + "spec:\n  schedule:\n    walltime: 0\n",
        [("E118", 5, 15, "spec.schedule.walltime")],
    ),
    (
        "zero memory",
        HEAD + "spec:\n  resources:\n    memoryPerTask: 0\n",
        [("E118", 5, 20, "spec.resources.memoryPerTask")],
    ),
    (
        "nan in a free-form field",
        HEAD + "spec:\n  placement:\n    affinity: {a: .nan}\n",
        [("E102", 5, 19, "spec.placement.affinity.a")],
    ),
    (
        "an escape inside quotes: the whole value is marked",
        HEAD + 'spec:\n  output:\n    stdout: "\\tout_{jobid}"\n',
        [("E108", 5, 13, "spec.output.stdout")],
    ),
    (
        "unused top-level resources",
        HEAD + "spec:\n  resources:\n    tasks: 1\n  tasks:\n  - name: a\n    resources:\n"
        "      tasks: 2\n",
        [("W401", 4, 3, "spec.resources")],
    ),
]


@pytest.mark.parametrize(("name", "text", "expected"), ERRORS, ids=[c[0] for c in ERRORS])
def test_diagnostics(
    name: str, text: str, expected: list[tuple[str, int, int, str | None]]
) -> None:
    assert summary(diags(text)) == expected


def test_every_error_has_help_or_notes() -> None:
    for _, text, _ in ERRORS:
        for d in diags(text):
            assert d.help or d.notes, (d.code, d.message)


def test_did_you_mean() -> None:
    (d,) = diags(HEAD + "spec:\n  resources:\n    cpuPerTask: 4\n")
    assert d.help == "did you mean `cpusPerTask`?"
    (d,) = diags(HEAD + "spec:\n  schedule:\n    qeue: batch\n")
    assert d.help == "did you mean `queue`?"
    (d,) = diags(HEAD + "spec:\n  placement:\n    topology: scater\n")
    assert d.help == "did you mean `scatter`?"


def test_key_that_belongs_elsewhere() -> None:
    (d,) = diags(HEAD + "spec:\n  walltime: 1h\n")
    assert d.notes[0].startswith("`walltime` is a field of `spec.schedule`")


def test_several_errors_are_all_reported() -> None:
    found = diags(HEAD + "spec:\n  resources:\n    cpuPerTask: 4\n    tasks: x\n  gng: {}\n")
    assert [d.code for d in found] == ["E101", "E102", "E101"]


def test_priority_range_widens_the_band() -> None:
    text = HEAD + "spec:\n  schedule:\n    priority: 50000\n"
    assert [d.code for d in diags(text)] == ["E116"]
    assert diags(text, priority_range="0:100000") == []


def test_batch_documents() -> None:
    from bammmc.diagnostics.model import Reporter
    from bammmc.pipeline import Options, compile_text, get_format

    reporter = Reporter()
    out = compile_text(HEAD + "---\n" + HEAD, get_format("splat"), reporter, Options(batch=True))
    assert len(out) == 2 and all(c.job is not None for c in out)
    assert reporter.diagnostics == []


def test_source_map_points_at_fields() -> None:
    from bammmc.diagnostics.model import Reporter
    from bammmc.pipeline import compile_text, get_format

    text = HEAD + "spec:\n  tasks:\n  - name: a\n    replicas: 2\n"
    (c,) = compile_text(text, get_format("splat"), Reporter())
    key = c.source_map.key("spec.tasks[0].replicas")
    assert key is not None and (key.line, key.column) == (6, 5)
    value = c.source_map.value("spec.tasks[0].replicas")
    assert value is not None and (value.line, value.column) == (6, 15)


def test_merge_keys_are_explained() -> None:
    (d,) = diags(HEAD + "metadata:\n  <<: {name: a}\n")
    assert d.code == "E101" and "merge keys" in d.message


def test_explain_json_lines_have_a_kind() -> None:
    import json

    from click.testing import CliRunner

    from bammmc.cli import main

    result = CliRunner().invoke(
        main, ["examples/simple-job.yaml", "--to", "splat", "--explain", "--diagnostics", "json"]
    )
    kinds = {json.loads(line)["kind"] for line in result.stderr.splitlines()}
    assert kinds == {"explain", "explain-summary"}
