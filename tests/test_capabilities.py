"""The capability model (bammmc/capabilities.py) against what the writers really do.

* every registered target has a table that covers every field of the job model (a new IR field
  or a new format without a table fails here);
* every key of a table is a field path of the model;
* every W2xx/W3xx a writer raises about a field is declared for that field in the target's table
  (the entry's own code, or one of its `unless` codes) — over single-field jobs cut from
  examples/full-reference.yaml and over the whole examples;
* every field a table says is always lost is reported when a job sets it;
* docs/matrix.md is what `bammmc formats --matrix` prints.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from msgspec import inspect as mi

import bammmc
from bammmc.backends.splat import dump_yaml, to_builtins
from bammmc.capabilities import Capabilities, capabilities, matrix_markdown
from bammmc.diagnostics.model import Diagnostic, Reporter
from bammmc.ir.job import Job
from bammmc.ir.paths import field_paths, schema_path, set_leaves
from bammmc.pipeline import emit_job
from bammmc.registry import FORMATS

ROOT = Path(__file__).parent.parent
TARGETS = list(FORMATS)


@functools.cache
def _reference() -> Job:
    job, _ = bammmc.parse((ROOT / "examples" / "full-reference.yaml").read_text(), "splat")
    assert job is not None
    return job


def _struct(t: mi.Type) -> mi.StructType | None:
    if isinstance(t, mi.UnionType):
        return next((s for s in map(_struct, t.types) if s is not None), None)
    if isinstance(t, mi.ListType):
        return _struct(t.item_type)
    return t if isinstance(t, mi.StructType) else None


def _one_field(path: str) -> dict[str, Any]:
    """A job that sets only ``path`` of the reference job (a whole list item when the path is
    inside one, with the required fields of every struct on the way), plus a script."""
    full = to_builtins(_reference())
    doc: dict[str, Any] = {"apiVersion": full["apiVersion"], "kind": "Job"}
    parts = re.findall(r"[^.\[\]]+|\[\d+\]", path)
    src: Any = full
    dst: Any = doc
    t = _struct(mi.type_info(Job))
    for i, part in enumerate(parts):
        if part.startswith("["):
            dst.append(src[int(part[1:-1])])
            break
        assert t is not None
        f = next(f for f in t.fields if f.encode_name == part)
        if i == len(parts) - 1:
            dst[part] = src[part]
            break
        src, t = src[part], _struct(f.type)
        if parts[i + 1].startswith("["):
            dst[part] = []
        else:
            assert t is not None
            dst[part] = {f.encode_name: src[f.encode_name] for f in t.fields if f.required}
        dst = dst[part]
    runs_nothing = (
        "spec.execution.script",
        "spec.execution.executable",
        "spec.execution.arguments",
        "spec.execution.container",
        "spec.tasks",
    )
    if not path.startswith(runs_nothing):
        spec = doc.setdefault("spec", {})
        spec.setdefault("execution", {}).setdefault("script", "#!/bin/bash\necho hi\n")
    return doc


@functools.cache
def _probes() -> list[tuple[str, Job]]:
    out = []
    for path, _ in set_leaves(_reference()):
        if path in ("apiVersion", "kind"):
            continue
        job, _ = bammmc.parse(dump_yaml(_one_field(path)), "splat")
        if job is not None:
            out.append((re.sub(r"\[\d+\]", "[0]", path), job))
    return out


def _examples() -> list[Job]:
    jobs = []
    for f in sorted((ROOT / "examples").glob("*.yaml")):
        job, _ = bammmc.parse(f.read_text(), "splat")
        assert job is not None, f
        jobs.append(job)
    return jobs


def _emit(job: Job, target: str) -> list[Diagnostic]:
    reporter = Reporter("job.splat.yaml")
    emit_job(job, FORMATS[target], reporter)
    return reporter.diagnostics


def _declared(table: Capabilities, field: str, code: str) -> bool:
    """The table declares ``code`` for ``field``: on the entry that covers it, on an entry
    under it (a diagnostic about a whole struct), or as another scheduler's block."""
    path = schema_path(field)
    codes: set[str] = set()
    under = [p for p in field_paths() if p == path or p.startswith((path + ".", path + "["))]
    for leaf in under or [path]:
        try:
            cap = table.lookup(leaf)
        except KeyError:
            continue
        codes |= {cap.code or ""} | {c for _, c in cap.unless}
    return code in codes


@pytest.mark.parametrize("target", TARGETS)
def test_every_field_has_a_capability(target: str) -> None:
    table = capabilities(target)
    assert table.target == target
    missing = []
    for path in field_paths():
        try:
            table.lookup(path)
        except KeyError:
            missing.append(path)
    assert not missing, f"{target}: no capability for {missing}"


@pytest.mark.parametrize("target", TARGETS)
def test_table_keys_are_fields(target: str) -> None:
    paths = field_paths()
    for key in capabilities(target).fields:
        assert any(p == key or p.startswith((key + ".", key + "[")) for p in paths), key


@pytest.mark.parametrize("target", TARGETS)
def test_every_reported_loss_is_declared(target: str) -> None:
    table = capabilities(target)
    undeclared = set()
    jobs = [job for _, job in _probes()] + _examples()
    for job in jobs:
        for d in _emit(job, target):
            if d.code[:2] in ("W2", "W3") and d.field and not _declared(table, d.field, d.code):
                undeclared.add((schema_path(d.field), d.code, d.message))
    assert not undeclared, "\n".join(f"{target} {p}: {c} {m}" for p, c, m in sorted(undeclared))


@pytest.mark.parametrize("target", TARGETS)
def test_always_lost_fields_are_reported(target: str) -> None:
    table = capabilities(target)
    lost = table.lost_paths()
    checked = 0
    for path, job in _probes():
        entry = table.entry(schema_path(path))
        if entry is None or entry[0] not in lost:
            continue
        diags = _emit(job, target)
        key = entry[0]
        assert any(
            d.code == entry[1].code
            and d.field is not None
            and (schema_path(d.field).startswith(key) or key.startswith(schema_path(d.field)))
            for d in diags
        ), (target, path, [(d.code, d.field) for d in diags])
        checked += 1
    if target != "splat":
        assert checked > 10


def test_matrix_is_current() -> None:
    """docs/matrix.md is generated: run `bammmc formats --matrix > docs/matrix.md`."""
    assert (ROOT / "docs" / "matrix.md").read_text() == matrix_markdown()


def test_matrix_has_a_row_per_field_and_a_column_per_target() -> None:
    text = matrix_markdown()
    header = next(line for line in text.splitlines() if line.startswith("| field |"))
    assert header.count("|") == len(TARGETS) + 2
    assert "| `spec.resources.gpu.type` |" in text
    assert "| `spec.extensions.slurm` |" in text


def test_unknown_path_is_an_error() -> None:
    with pytest.raises(KeyError):
        Capabilities("x", (), {}).lookup("spec.schedule.queue")


def test_foreign_blocks_are_lost_or_carried() -> None:
    pbs = capabilities("pbs")
    assert pbs.lookup("spec.extensions.slurm.comment").status == "lost"
    mem = pbs.lookup("spec.extensions.slurm.mem")
    assert mem.status == "lost" and mem.unless[0][1] == "W301"
    assert msgspec.structs.fields(Job)
