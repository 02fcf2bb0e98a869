"""The seven examples the SPLAT specification names (``examples/*.yaml``).

Each example must read without a single diagnostic, survive the SPLAT round trip, validate
against ``bammmc schema``, and convert through the command line; ``full-reference.yaml`` must
set every field of the job model at least once.
"""

from __future__ import annotations

import pathlib
import re
from typing import Any

import jsonschema
import msgspec
import pytest
import yaml
from click.testing import CliRunner
from msgspec import inspect as mi

import bammmc
from bammmc.backends.splat import to_builtins
from bammmc.cli import main
from bammmc.ir.job import Job
from bammmc.ir.schema import json_schema

EXAMPLES_DIR = pathlib.Path(__file__).parent.parent / "examples"

#: The examples listed by the specification ("See the examples/ directory").
EXAMPLES = (
    "simple-job.yaml",
    "multi-task-job.yaml",
    "array-job.yaml",
    "hpc-mpi-job.yaml",
    "ml-training-job.yaml",
    "container-hpc-bridge.yaml",
    "full-reference.yaml",
)

FULL_REFERENCE = "full-reference.yaml"


def _text(name: str) -> str:
    return (EXAMPLES_DIR / name).read_text(encoding="utf-8")


def _parse(text: str) -> Job:
    job, diagnostics = bammmc.parse(text, "splat")
    assert diagnostics == [], [f"{d.code} {d.message}" for d in diagnostics]
    assert job is not None
    return job


def _emit(job: Job) -> str:
    text, diagnostics = bammmc.emit(job, "splat")
    assert text is not None
    assert diagnostics == [], [f"{d.code} {d.message}" for d in diagnostics]
    return text


# ── the set of examples ───────────────────────────────────────────────────────────────────


def test_examples_directory_holds_exactly_the_listed_examples() -> None:
    found = sorted(p.name for p in EXAMPLES_DIR.glob("*.yaml"))
    assert found == sorted(EXAMPLES)


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_starts_with_api_version_and_kind(name: str) -> None:
    assert _text(name).startswith("apiVersion: bammm.io/v1alpha1\nkind: Job\n")


# ── parse and round trip ──────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_parses_without_diagnostics(name: str) -> None:
    job, diagnostics = bammmc.parse(_text(name), "splat", filename=str(EXAMPLES_DIR / name))
    assert job is not None
    assert [f"{d.code} {d.message}" for d in diagnostics] == []


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_round_trips(name: str) -> None:
    job = _parse(_text(name))
    text1 = _emit(job)
    job1 = _parse(text1)
    assert job1 == job
    assert _emit(job1) == text1


# ── JSON Schema ───────────────────────────────────────────────────────────────────────────


@pytest.fixture(scope="module")
def validator() -> Any:
    schema = json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _schema_errors(validator: Any, data: Any) -> list[str]:
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
        for e in validator.iter_errors(data)
    ]


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_wire_form_validates_against_schema(name: str, validator: Any) -> None:
    wire = to_builtins(_parse(_text(name)))
    assert _schema_errors(validator, wire) == []


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_as_read_by_yaml_1_1_validates_against_schema(name: str, validator: Any) -> None:
    # The examples quote every string that a YAML 1.1 reader (PyYAML, most editors) would
    # resolve otherwise (dates, 12:00:00, 0755…), so any YAML tool sees the same document as
    # bammmc's YAML 1.2 reader.
    loaded = yaml.safe_load(_text(name))
    assert _schema_errors(validator, loaded) == []
    assert loaded == to_builtins(_parse(_text(name)))


# ── full-reference.yaml sets every field of the model ─────────────────────────────────────


def _model_fields() -> dict[tuple[str, str], str]:
    """Every (struct name, field name) reachable from Job -> the field's wire name."""
    fields: dict[tuple[str, str], str] = {}
    seen: dict[str, type] = {}

    def walk(t: mi.Type) -> None:
        if isinstance(t, mi.UnionType):
            for member in t.types:
                walk(member)
        elif isinstance(t, mi.ListType):
            walk(t.item_type)
        elif isinstance(t, mi.DictType):
            walk(t.key_type)
            walk(t.value_type)
        elif isinstance(t, mi.StructType):
            name = t.cls.__name__
            if name in seen:
                assert seen[name] is t.cls, f"two struct classes named {name}"
                return
            seen[name] = t.cls
            for f in t.fields:
                fields[(name, f.name)] = f.encode_name
                walk(f.type)

    walk(mi.type_info(Job))
    return fields


def _is_set(value: Any) -> bool:
    if value is None:
        return False
    return not (isinstance(value, list | dict) and not value)


def _set_fields(obj: Any, out: set[tuple[str, str]] | None = None) -> set[tuple[str, str]]:
    """Every (struct name, field name) holding a value somewhere in ``obj``."""
    out = set() if out is None else out
    if isinstance(obj, msgspec.Struct):
        for name in obj.__struct_fields__:
            value = getattr(obj, name)
            if _is_set(value):
                out.add((type(obj).__name__, name))
                _set_fields(value, out)
    elif isinstance(obj, list | tuple):
        for item in obj:
            _set_fields(item, out)
    elif isinstance(obj, dict):
        for item in obj.values():
            _set_fields(item, out)
    return out


def _missing(job: Job) -> list[str]:
    model = _model_fields()
    unset = set(model) - _set_fields(job)
    return sorted(f"{cls}.{name} (`{model[cls, name]}`)" for cls, name in unset)


def test_model_walk_finds_every_struct() -> None:
    model = _model_fields()
    structs = {cls for cls, _ in model}
    # a sample from every corner of the model: portable part, tasks, every extension block
    assert {
        "Job",
        "Metadata",
        "Spec",
        "Nfs",
        "TaskRef",
        "SlurmHetComponent",
        "LsfComputeUnit",
        "FluxEmbeddedFile",
        "FluxCountExpression",
        "ArmadaIngress",
        "VolcanoPolicy",
        "KueueReclaimPods",
        "RunaiExt",
    } <= structs
    assert model["RunaiExt", "min_replicas"] == "minReplicas"
    assert model["Metadata", "client_id"] == "clientId"
    assert len(model) > 250


def test_full_reference_sets_every_field() -> None:
    missing = _missing(_parse(_text(FULL_REFERENCE)))
    assert not missing, "full-reference.yaml does not set:\n  " + "\n  ".join(missing)


def test_coverage_check_notices_a_dropped_block() -> None:
    job = _parse(_text(FULL_REFERENCE))
    assert job.spec is not None and job.spec.extensions is not None
    without_runai = msgspec.structs.replace(
        job,
        spec=msgspec.structs.replace(
            job.spec, extensions=msgspec.structs.replace(job.spec.extensions, runai=None)
        ),
    )
    missing = _missing(without_runai)
    assert "Extensions.runai (`runai`)" in missing
    assert "RunaiExt.min_replicas (`minReplicas`)" in missing
    assert "RunaiExt.service_account (`service_account`)" in missing


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("clientId", "Metadata.client_id (`clientId`)"),
        ("stdin", "Execution.stdin (`stdin`)"),
        ("checkpointExitCode", "HtcondorExt.checkpoint_exit_code (`checkpointExitCode`)"),
        ("exit_code", "VolcanoPolicy.exit_code (`exit_code`)"),
    ],
)
def test_coverage_check_notices_a_removed_line(key: str, expected: str) -> None:
    text = _text(FULL_REFERENCE)
    line = re.compile(rf"^[ \t]*{re.escape(key)}:.*\n", re.MULTILINE)
    assert len(line.findall(text)) == 1, f"`{key}:` should appear once in {FULL_REFERENCE}"
    assert _missing(_parse(line.sub("", text))) == [expected]


# ── command line ──────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("name", EXAMPLES)
def test_cli_converts_example(name: str) -> None:
    path = EXAMPLES_DIR / name
    result = CliRunner().invoke(main, [str(path), "--to", "splat"])
    assert result.exit_code == 0, result.output
    assert result.stdout == _emit(_parse(_text(name)))


def test_cli_checks_every_example_clean() -> None:
    paths = [str(EXAMPLES_DIR / name) for name in EXAMPLES]
    result = CliRunner().invoke(main, ["check", *paths])
    assert result.exit_code == 0, result.output
    assert f"checked {len(EXAMPLES)} files: {len(EXAMPLES)} clean, 0 with warnings" in result.output
