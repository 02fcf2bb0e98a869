"""`--explain` rows: which diagnostics mark which field (the worst verdict wins)."""

from __future__ import annotations

import pytest

from bammmc.diagnostics.model import Diagnostic, Span
from bammmc.explain import rows
from bammmc.ir.sourcemap import SourceMap
from bammmc.pipeline import Compiled

SPAN = Span(line=2, column=9, end_line=2, end_column=20)


def _status(row_path: str, diagnostics: list[tuple[str, str]]) -> tuple[str, str | None]:
    smap = SourceMap()
    smap.add(row_path, SPAN, SPAN)
    diags = [
        Diagnostic(code=code, severity="warning", message="m", field=field)
        for code, field in diagnostics
    ]
    (row,) = rows(Compiled(None, smap), "pbs", diags)
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
