"""`--explain` rows: which diagnostics mark which field (the worst verdict wins)."""

from __future__ import annotations

import pytest

import bammmc
from bammmc.diagnostics.model import Diagnostic, Span
from bammmc.explain import read_back, rows, span_text
from bammmc.ir.sourcemap import SourceMap
from bammmc.pipeline import Compiled
from bammmc.registry import FORMATS

SPAN = Span(line=2, column=9, end_line=2, end_column=20)


def _status(row_path: str, diagnostics: list[tuple[str, str]]) -> tuple[str, str | None]:
    smap = SourceMap()
    smap.add(row_path, SPAN, SPAN)
    diags = [
        Diagnostic(code=code, severity="warning", message="m", field=field)
        for code, field in diagnostics
    ]
    row = rows(Compiled(None, smap), "pbs", diags)[0]  # the source's row comes first
    assert row["field"] == row_path
    return row["status"], row["code"]


EXPLAIN = [
    # (row path, diagnostics (code, field), expected status and code)
    ("spec.schedule.walltime", [], ("exact", None)),
    ("spec.schedule.walltime", [("W201", "spec.schedule.walltime")], ("lost", "W201")),
    ("spec.resources.gpu.type", [("W301", "spec.resources.gpu")], ("approximated", "W301")),
    # a diagnostic about one item of a value set by one directive marks the row
    ("spec.dependencies", [("W201", "spec.dependencies[1]")], ("lost", "W201")),
    ("spec.resources", [("W301", "spec.resources.memoryPerTask")], ("approximated", "W301")),
    # the worst verdict wins, whatever the order
    (
        "spec.dependencies",
        [("W201", "spec.dependencies[0]"), ("W301", "spec.dependencies[1]")],
        ("lost", "W201"),
    ),
    (
        "spec.dependencies",
        [("W301", "spec.dependencies[1]"), ("W201", "spec.dependencies")],
        ("lost", "W201"),
    ),
    # a sibling whose name extends the path is not a child
    ("spec.schedule.walltime", [("W201", "spec.schedule.walltimeMin")], ("exact", None)),
    ("spec.dependencies", [("W201", "spec.dependenciesX")], ("exact", None)),
    # errors and notes are not verdicts
    ("spec.schedule.walltime", [("N001", "spec.schedule.walltime")], ("exact", None)),
]


@pytest.mark.parametrize(("path", "diagnostics", "expected"), EXPLAIN)
def test_explain_status(
    path: str, diagnostics: list[tuple[str, str]], expected: tuple[str, str | None]
) -> None:
    assert _status(path, diagnostics) == expected


def test_the_worst_verdict_wins_for_one_field() -> None:
    """Two diagnostics about the same field: the loss is not hidden by a later approximation."""
    field = "spec.schedule.walltime"
    assert _status(field, [("W201", field), ("W301", field)]) == ("lost", "W201")


def test_a_loss_no_source_row_covers_gets_its_own_row() -> None:
    smap = SourceMap()
    smap.add("metadata.name", SPAN, SPAN)
    diags = [
        Diagnostic(code="W201", severity="warning", message="merge lost", field="spec.output"),
        Diagnostic(code="W301", severity="warning", message="whole job"),
    ]
    table = rows(Compiled(None, smap), "flux", diags)
    assert [(r["field"], r["status"], r["source"], r["line"]) for r in table] == [
        ("metadata.name", "exact", None, 2),
        ("spec.output", "lost", None, None),
        (None, "approximated", None, None),
    ]
    assert table[1]["reason"] == "merge lost"


def test_source_text_runs_from_the_key_to_the_end_of_the_value() -> None:
    text = "#SBATCH -t 1:00:00\n#SBATCH --gres=gpu:a100:2\n"
    smap = SourceMap()
    # `-t`: the key span is the letter, the value its argument
    smap.add("spec.schedule.walltime", _span(text, "t 1"), _span(text, "1:00:00"))
    # `--gres=…`: the key span is the whole option, the value inside it
    smap.add("spec.resources.gpu.count", _span(text, "--gres=gpu:a100:2"), _span(text, "gpu:a1"))
    table = rows(Compiled(None, smap), "pbs", source=text, file="job.sbatch")
    assert [(r["source"], r["line"], r["column"], r["file"]) for r in table] == [
        ("-t 1:00:00", 1, 9, "job.sbatch"),
        ("--gres=gpu:a100:2", 2, 9, "job.sbatch"),
    ]


def test_span_text_by_line_and_column() -> None:
    text = "a: 1\nscript: |\n  echo hi\n  echo there\nb: 2\n"
    span = Span(line=2, column=1, end_line=5, end_column=1)
    assert span_text(text, span) == "script: |\n  echo hi\n  echo there"
    assert span_text(text, Span(line=5, column=4, end_line=5, end_column=5)) == "2"
    assert span_text(text, Span(line=9, column=1, end_line=9, end_column=2)) == ""


def test_what_the_target_got_is_read_back() -> None:
    from bammmc.diagnostics.model import Reporter
    from bammmc.pipeline import compile_text, emit_job, get_format

    source = "#!/bin/bash\n#SBATCH --time=90\n#SBATCH --job-name=x\nrun\n"
    (compiled,) = compile_text(source, get_format("slurm"), Reporter("job.sbatch"))
    pbs = get_format("pbs")
    reporter = Reporter("job.sbatch")
    assert compiled.job is not None
    (out,) = emit_job(compiled.job, pbs, reporter, compiled.source_map)
    table = rows(
        compiled, "pbs", reporter.diagnostics, source=source, readback=read_back(out.text, pbs)
    )
    got = {r["field"]: r["got"] for r in table}
    assert got["spec.schedule.walltime"] == "-l walltime=01:30:00"
    assert got["metadata.name"] == "-N x"


def _span(text: str, needle: str) -> Span:
    start = text.index(needle)
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    return Span(
        line=line,
        column=column,
        end_line=line,
        end_column=column + len(needle),
        start=start,
        end=start + len(needle),
    )


#: memory that only the source's own scheduler can ask for: the totals show it (sbatch(1):
#: `--mem=0` is all the memory of each node; sge.md: `mem_free` is a per-slot load value;
#: torque.md: `pvmem` is virtual memory per process), and a target without it is a loss
NATIVE_MEMORY = [
    ("#!/bin/bash\n#SBATCH -N 2\n#SBATCH --mem=0\necho\n", "slurm", "pbs", "`--mem=0`", "lost"),
    ("#!/bin/bash\n#SBATCH -N 2\n#SBATCH --mem=0\necho\n", "slurm", "slurm", "`--mem=0`", "kept"),
    ("#!/bin/bash\n#$ -l mem_free=4G\necho\n", "sge", "slurm", "4 GiB per slot", "lost"),
    ("#!/bin/bash\n#$ -l mem_free=4G\necho\n", "sge", "sge", "4 GiB per slot", "kept"),
    ("#!/bin/bash\n#PBS -l pvmem=4gb\necho\n", "torque", "lsf", "4 GiB per process", "lost"),
    ("#!/bin/bash\n#PBS -l pvmem=4gb\necho\n", "torque", "torque", "4 GiB per process", "kept"),
]


@pytest.mark.parametrize(("text", "source", "target", "shown", "status"), NATIVE_MEMORY)
def test_memory_in_a_native_form_is_a_total(
    text: str, source: str, target: str, shown: str, status: str
) -> None:
    from bammmc import totals

    job, _ = bammmc.parse(text, source)
    assert job is not None
    out, diagnostics = bammmc.emit(job, target)
    assert out is not None, diagnostics
    back = read_back(out, FORMATS[target])
    assert back is not None and back.job is not None
    rows_ = totals.compare(totals.of(job), totals.of(back.job), diagnostics, target)
    memory = next(r for r in rows_ if r["quantity"] == "memory")
    assert shown in memory["source"], memory
    assert memory["status"] == status, memory
    assert (memory["code"] == "W201") == (status == "lost"), memory
