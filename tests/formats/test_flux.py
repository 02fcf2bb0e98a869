"""The Flux jobspec format (`flux`): the corpus, table-driven constructs, round trips and the
schema oracle (Flux's own JSON schemas in ../shared/oracles/flux/ with `jsonschema`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import bammmc
from bammmc.backends import WriteOptions
from bammmc.diagnostics.model import Reporter
from bammmc.frontends import flux as reader
from bammmc.pipeline import compile_text, emit_job, get_format
from tests.conftest import CORPUS as ALL_CORPUS
from tests.conftest import ORACLES

CORPUS = ALL_CORPUS / "flux"
SCHEMAS = ORACLES / "flux" / "schemas"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not present")

FLUX = get_format("flux")
SPLAT = get_format("splat")


def read(text: str, name: str = "job.jobspec.yaml") -> tuple[Any, Reporter]:
    r = Reporter(name)
    out = compile_text(text, FLUX, r)
    return (out[0].job if out else None), r


def convert(text: str, src: str, dst: str, json_out: bool = False) -> tuple[str, Reporter]:
    r = Reporter("in")
    out = compile_text(text, get_format(src), r)
    assert out and out[0].job is not None, [d.message for d in r.diagnostics]
    files = emit_job(
        out[0].job, get_format(dst), r, out[0].source_map, WriteOptions(flux_json=json_out)
    )
    return files[0].text, r


def plain(text: str) -> Any:
    import yaml

    return yaml.safe_load(text)


# ── the corpus ───────────────────────────────────────────────────────────────────────────

#: every invalid jobspec -> (code, line) of its first error
INVALID: dict[str, tuple[str, int]] = {
    "attributes_bad_entry.yaml": ("E101", 17),
    "attributes_not_mapping.yaml": ("E102", 14),
    "attributes_null.yaml": ("E102", 14),
    "constraints_not_object.yaml": ("E102", 17),
    "dependencies_not_array.yaml": ("E102", 17),
    "dependency_invalid.yaml": ("E102", 18),
    "invalid_yaml1.yaml": ("E003", 1),
    "missing_attributes.yaml": ("E103", 1),
    "missing_resources.yaml": ("E103", 1),
    "missing_tasks.yaml": ("E103", 1),
    "missing_version.yaml": ("E103", 1),
    "resource_count_bad_exp_min.yaml": ("E118", 5),
    "resource_count_bad_mult_operand.yaml": ("E118", 7),
    "resource_count_bad_operator.yaml": ("E104", 8),
    "resource_count_bad_type.yaml": ("E102", 5),
    "resource_count_is_zero.yaml": ("E118", 4),
    "resource_count_max_lessthan_min.yaml": ("E118", 6),
    "resource_count_min_is_zero.yaml": ("E118", 5),
    "resource_count_min_not_int.yaml": ("E102", 5),
    "resource_count_missing_min.yaml": ("E103", 5),
    "resource_count_missing_operand.yaml": ("E103", 5),
    "resource_count_missing_operator.yaml": ("E103", 5),
    "resource_count_negative.yaml": ("E118", 8),
    "resource_count_operand_is_zero.yaml": ("E118", 7),
    "resource_count_operator_not_char.yaml": ("E104", 8),
    "resource_count_scalar_bad_value.yaml": ("E105", 4),
    "resource_exclusive_invalid.yaml": ("E102", 9),
    "resource_exclusive_not_scalar.yaml": ("E102", 7),
    "resource_id_not_scalar.yaml": ("E102", 7),
    "resource_label_not_scalar.yaml": ("E102", 6),
    "resource_missing_count.yaml": ("E103", 7),
    "resource_missing_type.yaml": ("E103", 7),
    "resource_node_with_notarray.yaml": ("E102", 5),
    "resource_not_mapping.yaml": ("E102", 3),
    "resource_slot_not_labelled.yaml": ("E103", 3),
    "resource_slot_with_notarray.yaml": ("E102", 6),
    "resource_type_not_string.yaml": ("E102", 7),
    "resource_unit_not_scalar.yaml": ("E102", 7),
    "resources_not_sequence.yaml": ("E102", 3),
    "task_command_array_notstring.yaml": ("E102", 10),
    "task_command_not_array.yaml": ("E102", 10),
    "task_command_zero_length_array.yaml": ("E103", 10),
    "task_count_empty.yaml": ("E156", 12),
    "task_count_not_mapping.yaml": ("E102", 12),
    "task_count_per_slot_zero.yaml": ("E118", 16),
    "task_count_total_and_per_slot.yaml": ("E156", 13),
    "task_count_total_zero.yaml": ("E118", 16),
    "task_missing_command.yaml": ("E103", 10),
    "task_missing_count.yaml": ("E103", 10),
    "task_missing_slot.yaml": ("E103", 10),
    "task_not_mapping.yaml": ("E102", 10),
    "tasks_not_sequence.yaml": ("E102", 10),
    "version_bad_number.yaml": ("E102", 1),
    "version_is_zero.yaml": ("E118", 1),
    "version_not_scalar.yaml": ("E102", 2),
}

#: invalid as V1: an error when not even canonical, else W430 (flux-core refuses to submit it)
INVALID_V1: dict[str, tuple[str, int]] = {
    "core_count_invalid.yaml": ("E118", 11),
    "duration_missing.yaml": ("W430", 15),
    "gpu_count_invalid.yaml": ("E118", 13),
    "node_vertex_missing_count.yaml": ("E103", 3),
    "node_vertex_with_notarray.yaml": ("E102", 9),
    "node_vertex_with_toomany.yaml": ("E102", 9),
    "node_vertex_zero_count.yaml": ("E118", 4),
    "res_type_unknown.yaml": ("W430", 3),
    "slot_node.yaml": ("W430", 7),
    "task_count_per_resource.yaml": ("W430", 16),
    "version_wrong.yaml": ("W430", 1),
    "with_toomany.yaml": ("W430", 7),
    "with_whatnow.yaml": ("W430", 7),
}


def _valid_files() -> list[Path]:
    return sorted(p for d in ("valid", "valid_v1", "valid_json") for p in (CORPUS / d).glob("*"))


@needs_corpus
def test_corpus_table_is_complete() -> None:
    assert sorted(p.name for p in (CORPUS / "invalid").glob("*")) == sorted(INVALID)
    assert sorted(p.name for p in (CORPUS / "invalid_v1").glob("*")) == sorted(INVALID_V1)


@needs_corpus
@pytest.mark.parametrize("path", _valid_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_valid_corpus_reads(path: Path) -> None:
    job, r = read(path.read_text(), str(path))
    assert job is not None, [f"{d.code} {d.message}" for d in r.diagnostics]
    assert not [d for d in r.diagnostics if d.is_error]
    if path.parent.name in ("valid_v1", "valid_json"):
        assert not [d for d in r.diagnostics if d.code == "W430"]


@needs_corpus
@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_corpus_located_error(name: str) -> None:
    job, r = read((CORPUS / "invalid" / name).read_text(), name)
    assert job is None
    first = next(d for d in r.diagnostics if d.is_error)
    assert (first.code, first.span.line if first.span else None) == INVALID[name]
    assert first.span is not None and first.span.file == name and first.help


@needs_corpus
@pytest.mark.parametrize("name", sorted(INVALID_V1))
def test_invalid_v1_corpus(name: str) -> None:
    code, line = INVALID_V1[name]
    job, r = read((CORPUS / "invalid_v1" / name).read_text(), name)
    hit = next(d for d in r.diagnostics if d.code == code)
    assert hit.span is not None and hit.span.line == line
    assert (job is None) == code.startswith("E")


@needs_corpus
def test_corpus_summary(capsys: pytest.CaptureFixture[str]) -> None:
    valid = _valid_files()
    accepted = sum(read(p.read_text(), p.name)[0] is not None for p in valid)
    rejected = sum(read((CORPUS / "invalid" / n).read_text(), n)[0] is None for n in INVALID)
    v1 = sum(
        any(
            d.code in ("W430",) or d.is_error
            for d in read((CORPUS / "invalid_v1" / n).read_text(), n)[1].diagnostics
        )
        for n in INVALID_V1
    )
    with capsys.disabled():
        print(
            f"\nflux corpus: valid {accepted}/{len(valid)} accepted, invalid "
            f"{rejected}/{len(INVALID)} rejected (located), invalid_v1 {v1}/{len(INVALID_V1)} "
            "flagged (error or W430)"
        )
    assert (accepted, rejected, v1) == (len(valid), len(INVALID), len(INVALID_V1))


# ── round trips ──────────────────────────────────────────────────────────────────────────


@needs_corpus
@pytest.mark.parametrize("path", _valid_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_flux_splat_flux_exact(path: Path) -> None:
    splat, _ = convert(path.read_text(), "flux", "splat")
    back, _ = convert(splat, "splat", "flux")
    assert plain(back) == plain(path.read_text())


@needs_corpus
@pytest.mark.parametrize("path", _valid_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_flux_to_flux_is_stable(path: Path) -> None:
    once, _ = convert(path.read_text(), "flux", "flux")
    twice, _ = convert(once, "flux", "flux")
    assert once == twice


# ── the schema oracle ────────────────────────────────────────────────────────────────────


def _validator(name: str) -> Any:
    jsonschema = pytest.importorskip("jsonschema")
    if not (SCHEMAS / name).is_file():
        pytest.skip("Flux schemas not present")
    schema = json.loads((SCHEMAS / name).read_text())
    return jsonschema.validators.validator_for(schema)(schema)


def oracle_errors(text: str) -> list[str]:
    """Flux's V1 schema (flux-core job-ingest) + bammmc's own V1 rules (W430)."""
    v = _validator("flux-core-jobspec_v1.jsonschema")
    errors = [e.message for e in v.iter_errors(plain(text))]
    _, r = read(text)
    errors += [d.message for d in r.diagnostics if d.code == "W430" or d.is_error]
    return errors


SCRIPTS = {
    "slurm-basic": "#!/bin/bash\n#SBATCH -J train\n#SBATCH -N 2\n#SBATCH --ntasks-per-node=4\n"
    "#SBATCH -c 2\n#SBATCH -t 1:00:00\n#SBATCH -p batch\n#SBATCH -A proj\n"
    "#SBATCH -o out-%j.log\n#SBATCH --gpus-per-task=1\nsrun ./app\n",
    "slurm-array": "#!/bin/bash\n#SBATCH --array=1-10%2\n#SBATCH --priority=5\n"
    "#SBATCH --mem=4G\n#SBATCH -D /scratch\n#SBATCH --export=NONE,A=1\n"
    "echo $SLURM_ARRAY_TASK_ID\n",
    "slurm-deps": "#!/bin/bash\n#SBATCH -d afterok:123:456\n#SBATCH -n 3\n#SBATCH -C ssd&gpu\n"
    "#SBATCH --exclusive\n#SBATCH -N 1\nhostname\n",
}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
@pytest.mark.parametrize("json_out", [False, True])
def test_writer_output_validates(name: str, json_out: bool) -> None:
    text, _ = convert(SCRIPTS[name], "slurm", "flux", json_out)
    if json_out:
        json.loads(text)
    assert oracle_errors(text) == []


@needs_corpus
@pytest.mark.parametrize(
    "path",
    sorted((CORPUS / "valid_v1").glob("*")) + sorted((CORPUS / "valid_json").glob("*")),
    ids=lambda p: p.name,
)
def test_v1_corpus_rewritten_validates(path: Path) -> None:
    text, _ = convert(path.read_text(), "flux", "flux")
    assert oracle_errors(text) == []


@needs_corpus
@pytest.mark.parametrize("name", sorted(INVALID_V1))
def test_own_v1_rules_agree_with_schema(name: str) -> None:
    """Each invalid_v1 file fails Flux's V1 schema, and bammmc flags it too."""
    text = (CORPUS / "invalid_v1" / name).read_text()
    v = _validator("flux-core-jobspec_v1.jsonschema")
    assert list(v.iter_errors(plain(text)))
    assert oracle_errors(text)


# ── constructs ───────────────────────────────────────────────────────────────────────────

BASE = (
    "version: 1\nresources:\n  - type: node\n    count: 2\n    with:\n      - type: slot\n"
    "        count: 4\n        label: task\n        with:\n          - {type: core, count: 2}\n"
    "          - {type: gpu, count: 1}\ntasks:\n  - command: [./app, --flag, 'two words']\n"
    "    slot: task\n    count: {per_slot: 1}\nattributes:\n  system:\n"
)


@pytest.mark.parametrize(
    ("system", "check"),
    [
        ("    duration: 3600\n", lambda j: j.spec.schedule.walltime.seconds == 3600),
        ("    duration: 0\n", lambda j: j.spec.extensions.flux.system == {"duration": 0}),
        (
            "    duration: 60\n    cwd: /home/me\n",
            lambda j: j.spec.execution.working_dir == "/home/me",
        ),
        ("    duration: 60\n    queue: batch\n", lambda j: j.spec.schedule.queue == "batch"),
        ("    duration: 60\n    bank: b1\n", lambda j: j.spec.schedule.account == "b1"),
        ("    duration: 60\n    project: p\n", lambda j: j.spec.schedule.project == "p"),
        ("    duration: 60\n    job: {name: train}\n", lambda j: j.metadata.name == "train"),
        (
            "    duration: 60\n    environment: {A: '1', B: null}\n",
            lambda j: (
                j.spec.execution.environment.vars == {"A": "1"}
                and j.spec.extensions.flux.env_unset == ["B"]
            ),
        ),
        (
            "    duration: 60\n    shell: {options: {output: {stdout: "
            "{type: file, path: 'o-{{id}}.out'}}}}\n",
            lambda j: j.spec.output.stdout.wire() == "o-{job_id}.out",
        ),
        (
            "    duration: 60\n    dependencies: [{scheme: afterok, value: f2oLk}]\n",
            lambda j: j.spec.dependencies[0].scheme == "afterok",
        ),
        (
            "    duration: 60\n    dependencies: [{scheme: string, value: x, type: in}]\n",
            lambda j: j.spec.extensions.flux.symbolic_dependencies[0].value == "x",
        ),
        (
            "    duration: 60\n    constraints: {properties: [ssd]}\n",
            lambda j: (
                j.spec.extensions.flux.constraints_spec == {"properties": ["ssd"]}
                and j.spec.placement.constraint == "ssd"
            ),
        ),
        (
            "    duration: 60\n    constraints: {or: [{properties: [a, b]}, {properties: [c]}]}\n",
            lambda j: j.spec.placement.constraint == "(a&b)|c",
        ),
        (
            "    duration: 60\n    constraints: {not: [{hostlist: ['n[1-2]']}]}\n",
            lambda j: j.spec.placement is None,
        ),
        (
            "    duration: 60\n    dependencies: [{scheme: afterstart, value: f1}]\n",
            lambda j: j.spec.dependencies[0].scheme == "after",
        ),
        (
            "    duration: 60\n    dependencies: [{scheme: after, value: f1}]\n",
            lambda j: j.spec.extensions.flux.system["dependencies"][0]["scheme"] == "after",
        ),
        (
            "    duration: 60\n    dependencies: [{scheme: afterexcept, value: f1}]\n",
            lambda j: j.spec.dependencies is None,
        ),
        (
            "    duration: 60\n    job: {name: n, tag: x}\n",
            lambda j: (
                j.metadata.name == "n" and j.spec.extensions.flux.system == {"job": {"tag": "x"}}
            ),
        ),
        (
            "    duration: 90.5\n",
            lambda j: j.spec.schedule.walltime.seconds == 91,
        ),
        (
            "    duration: 60\n    user-thing: 1\n",
            lambda j: j.spec.extensions.flux.system == {"user-thing": 1},
        ),
        (
            "    duration: 60\n    files: {script: {mode: 33216, encoding: utf-8, "
            'data: "#!/bin/sh\\necho\\n"}}\n',
            lambda j: j.spec.extensions.flux.embedded_files["script"].data == "#!/bin/sh\necho\n",
        ),
        (
            "    duration: 60\n    preemptible-after: 30\n",
            lambda j: j.spec.extensions.flux.preemptible_after == 30,
        ),
    ],
)
def test_system_attributes(system: str, check: Any) -> None:
    text = BASE + system
    job, r = read(text)
    assert job is not None, [d.message for d in r.diagnostics]
    assert check(job)
    back, _ = convert(text, "flux", "flux")
    assert plain(back) == plain(text)


def test_resources_lowered() -> None:
    job, _ = read(BASE + "    duration: 60\n")
    res = job.spec.resources
    assert (
        res.nodes,
        res.tasks,
        res.tasks_per_node,
        res.cpus_per_task.cores,
        res.gpu.count.amount,
    ) == (
        2,
        8,
        4,
        2,
        1,
    )
    assert job.spec.execution.executable == "./app"
    assert job.spec.execution.arguments == "--flag 'two words'"


def test_json_jobspec_located_error() -> None:
    text = '{"version": 1, "resources": [], "tasks": [], "attributes": {}}'
    _, r = read(text, "job.jobspec.json")
    d = next(d for d in r.diagnostics if d.is_error)
    assert d.code == "E103" and d.span is not None and d.span.column == 29


def test_sniff() -> None:
    assert reader.sniff(BASE)
    assert not reader.sniff("apiVersion: bammm.io/v1alpha1\nkind: Job\n")


def test_slurm_to_flux_keeps_fields() -> None:
    text, _r = convert(SCRIPTS["slurm-basic"], "slurm", "flux")
    doc = plain(text)
    sysattr = doc["attributes"]["system"]
    assert sysattr["duration"] == 3600 and sysattr["queue"] == "batch" and sysattr["bank"] == "proj"
    assert sysattr["job"] == {"name": "train"}
    assert sysattr["shell"]["options"]["output"]["stdout"]["path"] == "out-{{id}}.log"
    node = doc["resources"][0]
    assert node["count"] == 2 and node["with"][0]["count"] == 4
    assert node["with"][0]["with"] == [{"type": "core", "count": 2}, {"type": "gpu", "count": 1}]
    assert doc["attributes"]["system"]["files"]["script"]["data"].endswith(
        "flux run -n 8 -N 2 -c 2 -g 1 ./app\n"  # srun's geometry is the job's (srun.1)
    )


def test_losses_reported() -> None:
    _, r = convert(SCRIPTS["slurm-array"], "slurm", "flux")
    lost = {d.field for d in r.diagnostics if d.code == "W201"}
    assert {"spec.array", "spec.array.maxConcurrent", "spec.schedule.priority"} <= lost
    assert any("--cc=1-10" in (d.help or "") for d in r.diagnostics)
    assert any("memory" in (d.field or "").lower() for d in r.diagnostics)


def test_constraints_split_on_ampersand() -> None:
    text, _ = convert(SCRIPTS["slurm-deps"], "slurm", "flux")
    sysattr = plain(text)["attributes"]["system"]
    assert sysattr["constraints"] == {"properties": ["ssd", "gpu"]}
    assert [d["value"] for d in sysattr["dependencies"]] == ["123", "456"]


def test_flux_to_slurm() -> None:
    text, _r = convert(BASE + "    duration: 3600\n    queue: batch\n", "flux", "slurm")
    assert "#SBATCH --nodes=2" in text and "./app --flag 'two words'" in text


def test_cli_writes_json_for_a_json_output(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from bammmc.cli import main

    src = tmp_path / "job.sbatch"
    src.write_text(SCRIPTS["slurm-basic"])
    for name, loads in (("out.jobspec.json", json.loads), ("out.jobspec.yaml", plain)):
        result = CliRunner().invoke(main, [str(src), "-o", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
        doc = loads((tmp_path / name).read_text())
        assert doc["version"] == 1 and doc["tasks"][0]["count"] == {"per_slot": 1}
    text = (tmp_path / "out.jobspec.json").read_text()
    assert text.lstrip().startswith("{")
    result = CliRunner().invoke(main, ["check", str(tmp_path / "out.jobspec.json")])
    assert result.exit_code == 0, result.output


def test_json_errors_are_located_in_nested_values() -> None:
    text = (
        '{\n  "version": 1,\n  "resources": [{"type": "slot", "count": {"min": 0}, "label": "t",'
        ' "with": [{"type": "core", "count": 1}]}],\n  "tasks": [{"command": ["a"], "slot": "t",'
        ' "count": {"per_slot": 1}}],\n  "attributes": {"system": {"duration": 1}}\n}\n'
    )
    _, r = read(text, "job.jobspec.json")
    d = next(d for d in r.diagnostics if d.is_error)
    assert d.span is not None
    assert (d.code, d.span.line, d.span.column) == ("E118", 3, 51)


def test_writer_from_a_canonical_graph_keeps_it() -> None:
    text = (
        "version: 999\nresources:\n  - type: slot\n    count: {min: 2, max: 8, operator: '*', "
        "operand: 2}\n    label: x\n    with:\n      - {type: node, count: 1}\ntasks:\n"
        "  - command: [app]\n    slot: x\n    count: {per_slot: 1}\nattributes: {}\n"
    )
    back, _ = convert(text, "flux", "flux")
    assert plain(back) == plain(text)


def test_unknown_system_attribute_warns_with_suggestion() -> None:
    _, r = read(BASE + "    duration: 60\n    qeue: batch\n")
    d = next(d for d in r.diagnostics if d.code == "W431")
    assert d.span is not None and d.span.line == 19 and "queue" in (d.help or "")


def test_duplicate_label_is_located() -> None:
    text = BASE.replace("label: task", "label: t2") + "    duration: 60\n"
    text = text.replace("slot: task", "slot: t2").replace(
        "- type: node\n", "- type: node\n    label: t2\n"
    )
    job, r = read(text)
    d = next(d for d in r.diagnostics if d.code == "E155")
    assert job is None and d.span is not None and d.span.line == 9


RFC26 = sorted((CORPUS / "rfc26-dependencies").glob("*.yaml")) if CORPUS.is_dir() else []


@pytest.mark.skipif(not RFC26, reason="shared corpus not present")
@pytest.mark.parametrize("path", RFC26, ids=lambda p: p.name)
def test_rfc26_fragments_as_dependencies(path: Path) -> None:
    """RFC 26's examples (dependency lists, not whole jobspecs) inside a jobspec: symbolic
    dependencies, written back exactly."""
    deps = plain(path.read_text())
    text = BASE + "    duration: 60\n    dependencies: " + json.dumps(deps) + "\n"
    job, r = read(text)
    assert job is not None, [d.message for d in r.diagnostics]
    symbolic = job.spec.extensions.flux.symbolic_dependencies
    assert [(d.scheme, d.value, d.type, d.scope) for d in symbolic] == [
        (d["scheme"], d["value"], d["type"], d["scope"]) for d in deps
    ]
    back, _ = convert(text, "flux", "flux")
    assert plain(back) == plain(text)
    alone, r = read(path.read_text(), path.name)
    assert alone is None and any(d.code == "E102" and d.span for d in r.diagnostics)


def _bomb() -> str:
    lines = ["    a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"    a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    return BASE + "    duration: 60\n  user:\n" + "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "text",
    [
        _bomb(),
        "version: 1\nresources: &a [{type: slot, count: 1, label: t, with: *a}]\n"
        "tasks: []\nattributes: {}\n",
    ],
    ids=["alias-bomb", "recursive-alias"],
)
def test_hostile_aliases_are_refused_quickly(text: str) -> None:
    job, r = read(text)
    assert job is None
    d = next(d for d in r.diagnostics if d.is_error)
    assert d.code == "E006" and d.span is not None


def test_batch_options_are_reported_by_the_jobspec_writer() -> None:
    """`flux batch` options kept as written (flux-batch reader) have no jobspec form: W201 each,
    never dropped in silence."""
    script = "#!/bin/sh\n#flux: -n 2\n#flux: --conf=x.toml\nhostname\n"
    out, diags = bammmc.convert(script, "flux-batch", "flux")
    assert out is not None
    lost = {d.field for d in diags if d.code == "W201"}
    assert any(f and f.startswith("spec.extensions.flux.batch_options.") for f in lost), diags


# ── losses the honesty test (tests/test_honesty.py) found silent: each now has its diagnostic,
# or reads back ──

HONEST_FLUX = [
    # (SPLAT spec as YAML flow, the (code, field) pairs among the diagnostics, paths that must
    # read back from the jobspec with these values)
    # a script's own arguments follow it in the command, as `flux batch job.sh ARGS` writes them
    (
        '{execution: {script: "echo $1\\n", arguments: "a \'b c\'"}}',
        set(),
        {"spec.execution.arguments": "a 'b c'", "spec.execution.script": "echo $1\n"},
    ),
    (
        '{execution: {script: "#!/bin/sh\\necho $1\\n", arguments: x}}',
        set(),
        {"spec.execution.arguments": "x"},
    ),
    # stderr goes where stdout goes unless `stderr` is named: merged streams read back
    (
        "{output: {stdout: o.log, mergeStderr: true}}",
        set(),
        {"spec.output.mergeStderr": True, "spec.output.stdout": "o.log"},
    ),
    (
        "{output: {stdout: o.log, stderr: e.log, mergeStderr: true}}",
        {("W301", "spec.output.stderr")},
        {"spec.output.mergeStderr": True},
    ),
    (
        "{output: {stdout: o.log, mergeStderr: false}}",
        {("W301", "spec.output.mergeStderr")},
        {"spec.output.stderr": "flux-{job_id}.err"},
    ),
    ("{output: {mergeStderr: false}}", {("W301", "spec.output.mergeStderr")}, {}),
    # no time limit: `duration: 0` leaves the limit unset (the instance's default)
    ("{schedule: {walltime: unlimited}}", {("W301", "spec.schedule.walltime")}, {}),
    # stderr merged into a stdout the job does not name: nothing is written for either
    (
        "{output: {stderr: e.log, mergeStderr: true}}",
        {("W301", "spec.output.stderr"), ("W201", "spec.output.mergeStderr")},
        {},
    ),
    # `{{cc}}` (the --cc copy's id) reads back as `{array_index}`
    (
        '{output: {stdout: "o-{array_index}.log"}}',
        {("W301", "spec.output.stdout")},
        {"spec.output.stdout": "o-{array_index}.log"},
    ),
    ("{array: {maxConcurrent: 4}}", {("W201", "spec.array.maxConcurrent")}, {}),
    # tasks that are not nodes × tasksPerNode: a total count, no per-node shape
    (
        "{resources: {tasks: 1, nodes: 2, tasksPerNode: 1}}",
        {("W301", "spec.resources.tasksPerNode")},
        {"spec.resources.nodes": 2},
    ),
    (
        "{resources: {gpu: {count: 1, fraction: 0.5}}}",
        {("W201", "spec.resources.gpu.fraction")},
        {},
    ),
    ("{resources: {gpu: {migProfile: 1g.10gb}}}", {("W201", "spec.resources.gpu.migProfile")}, {}),
    (
        "{schedule: {priority: 700}, extensions: {flux: {urgency: 20}}}",
        {("W201", "spec.schedule.priority"), ("W201", "spec.extensions.flux.urgency")},
        {},
    ),
    (
        "{dependencies: [{scheme: begin_time, value: '2025-03-02T20:00:00Z'}]}",
        {("W301", "spec.dependencies[0].value")},
        {"spec.dependencies[0].value": "1740945600"},
    ),
    (
        "{extensions: {flux: {count_expression: {min: 2, max: 8, operator: '*', operand: 2}}}}",
        {("W201", "spec.extensions.flux.count_expression.min")},
        {},
    ),
    # the raw tasks are the command: the job's own program is not run
    (
        '{execution: {script: "echo\\n"}, extensions: {flux: {tasks: [{command: [app], '
        "slot: task, count: {per_slot: 1}}]}}}",
        {("W301", "spec.execution.script")},
        {},
    ),
    # raw pieces the jobspec reader refuses are left out (W201), the portable ones written
    (
        "{execution: {executable: /bin/x}, extensions: {flux: {tasks: [{}, {}], "
        "task: {'//': 1}, constraints_spec: {'./zx': []}}}}",
        {
            ("W201", "spec.extensions.flux.tasks"),
            ("W201", "spec.extensions.flux.task"),
            ("W201", "spec.extensions.flux.constraints_spec"),
        },
        {"spec.execution.executable": "/bin/x"},
    ),
    # every raw piece left out until the reader accepts the jobspec
    (
        "{execution: {executable: /bin/x}, extensions: {flux: {resource_graph: [], "
        "tasks: [{}], task: {a: {}}}}}",
        {("W201", "spec.extensions.flux.tasks")},
        {"spec.execution.executable": "/bin/x"},
    ),
    (
        "{extensions: {flux: {symbolic_dependencies: [{scheme: x-y, value: v}], system: {}}}}",
        {
            ("W301", "spec.extensions.flux.symbolic_dependencies[0]"),
            ("W301", "spec.extensions.flux.system"),
        },
        {},
    ),
    ("{execution: {executable: /bin/x, shell: /bin/sh}}", {("W201", "spec.execution.shell")}, {}),
    ("{resources: {gpu: {count: 8/job}}}", {("W301", "spec.resources.gpu.count")}, {}),
    ("{extensions: {flux: {system: {x: 1}}}}", {("W301", "spec.extensions.flux.system")}, {}),
    # any interpreter of a script without `#!` reads back as the shell
    (
        '{execution: {script: "echo\\n", shell: python3}}',
        set(),
        {"spec.execution.shell": "python3"},
    ),
    # the raw graph holds the shape
    (
        "{resources: {gpu: {count: 1}}, placement: {exclusive: true}, extensions: {flux: "
        "{resource_graph: [{type: slot, count: 1, label: task, with: [{type: core, count: 1}]}]}}}",
        {("W301", "spec.resources.gpu.count"), ("W301", "spec.placement.exclusive")},
        {},
    ),
]


@pytest.mark.parametrize(("spec_yaml", "expected", "back"), HONEST_FLUX)
def test_silent_losses_are_reported(
    spec_yaml: str, expected: set[tuple[str, str]], back: dict[str, Any]
) -> None:
    from bammmc.ir.paths import get_path

    job, diags = bammmc.parse(
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nspec: " + spec_yaml, "splat"
    )
    assert job is not None and not [d for d in diags if d.is_error], diags
    text, diags = bammmc.emit(job, "flux")
    assert text is not None
    assert expected <= {(d.code, d.field) for d in diags}, diags
    read, _ = bammmc.parse(text, "flux")
    assert read is not None
    for path, value in back.items():
        got = get_path(read, path)
        assert (got.wire() if hasattr(got, "wire") else got) == value, (path, text)


# ── separators of the value languages (issue 18, item 4) ─────────────────────────────────────
# Flux's job shell renders mustache templates in the output paths (`shell.options.output`) and
# in every command word that holds `{{` (flux-core src/shell/shell.c `frob_command`,
# src/shell/mustache.c: `{{NAME}}` up to the next `}}` is a tag; unknown ones are kept, but a
# plugin may know them, and there is no escape). A value whose own text would read as a tag
# there is refused (E140, naming the field and the character). The environment, the working
# directory and names are plain strings of the jobspec that nothing renders: kept as they are.
UNWRITABLE_FLUX = [
    # (SPLAT spec, field, the character as the message names it)
    ("{output: {stdout: 'a{{{{id}}}}.out'}}", "spec.output.stdout", "{{"),
    ("{output: {stdout: 'a{{{job_id}.out'}}", "spec.output.stdout", "{"),
    ("{output: {stderr: '{{{{x}}}}.err'}}", "spec.output.stderr", "{{"),
    ("{execution: {executable: '/bin/{{x}}'}}", "spec.execution.executable", "{{"),
    ("{execution: {executable: echo, arguments: \"'{{id}}'\"}}", "spec.execution.arguments", "{{"),
    (
        "{execution: {script: 'echo hi', shell: '/opt/{{v}}/sh'}}",
        "spec.execution.shell",
        "{{",
    ),
    (
        "{execution: {script: '#!/bin/sh\\necho $1', arguments: '{{name}}'}}",
        "spec.execution.arguments",
        "{{",
    ),
]


def _write_flux(spec_yaml: str) -> tuple[str | None, list[Any]]:
    from tests.formats.separators import emit

    return emit(spec_yaml, "flux")


@pytest.mark.parametrize(("spec_yaml", "field", "char"), UNWRITABLE_FLUX)
def test_separators_are_refused(spec_yaml: str, field: str, char: str) -> None:
    _, diags = _write_flux(spec_yaml)
    errors = [d for d in diags if d.is_error]
    assert [(d.code, d.field) for d in errors] == [("E140", field)]
    assert f"`{char}`" in errors[0].message


KEPT_FLUX = [
    # (SPLAT spec, the jobspec path, the value written there)
    (
        "{execution: {environment: {vars: {A: '{{id}}$$x'}}}}",
        ("attributes", "system", "environment", "A"),
        "{{id}}$$x",
    ),
    ("{execution: {workingDir: '/x/{{id}}'}}", ("attributes", "system", "cwd"), "/x/{{id}}"),
    ("{schedule: {queue: 'q{{id}}'}}", ("attributes", "system", "queue"), "q{{id}}"),
    (
        "{output: {stdout: 'a{{{{b.out'}}",
        ("attributes", "system", "shell", "options", "output", "stdout", "path"),
        "a{{b.out",
    ),
    (
        "{output: {stdout: '{job_id}}}}}.out'}}",
        ("attributes", "system", "shell", "options", "output", "stdout", "path"),
        "{{id}}}}.out",
    ),
    (
        "{output: {stdout: 'kvs'}}",
        ("attributes", "system", "shell", "options", "output", "stdout", "path"),
        "kvs",
    ),
    (
        "{execution: {executable: echo, arguments: \"'a{{b' '}}'\"}}",
        ("tasks", 0, "command"),
        ["echo", "a{{b", "}}"],
    ),
]


@pytest.mark.parametrize(("spec_yaml", "path", "value"), KEPT_FLUX)
def test_values_without_separators_are_kept(
    spec_yaml: str, path: tuple[Any, ...], value: Any
) -> None:
    import yaml

    text, diags = _write_flux(spec_yaml)
    assert text is not None and not [d for d in diags if d.is_error], diags
    node: Any = yaml.safe_load(text)
    for key in path:
        node = node[key]
    assert node == value
