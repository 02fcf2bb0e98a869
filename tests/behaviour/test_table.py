"""The behavioural table itself: its rows are well formed and docs/fidelity.md shows them."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

import bammmc
from bammmc import totals
from tests.behaviour.observe import Alloc, compare
from tests.behaviour.table import BEGIN, END, ROWS, TARGETS, Row, markdown
from tests.conftest import ROOT


def test_docs_show_the_current_table() -> None:
    text = (ROOT / "docs" / "fidelity.md").read_text()
    shown = text[text.index(BEGIN) : text.index(END) + len(END)] + "\n"
    assert shown == markdown(), "run `python -m tests.behaviour.table` into docs/fidelity.md"


def test_rows_are_unique_and_name_known_targets() -> None:
    assert len({r.id for r in ROWS}) == len(ROWS)
    assert all(set(r.fails) <= set(TARGETS) for r in ROWS)
    assert all(r.why for r in ROWS)


@pytest.mark.parametrize(
    ("want", "files", "ids", "same"),
    [
        # job 7's element 7 (`%A_%a`): the task id that equals the job id stays (CI, stop 33)
        (
            tuple(f"log-N_{i}.out" for i in (1, 3, 5, 7, 9)),
            tuple(f"log-7_{i}.out" for i in (1, 3, 5, 7, 9)),
            ("7", "8", "9", "10", "11", "12"),
            True,
        ),
        # array job 3's `a-%a.out`: no job id in the names, element 3 is still element 3
        (
            tuple(f"a-{i}.out" for i in range(4)),
            tuple(f"a-{i}.out" for i in range(4)),
            ("3", "4", "5", "6"),
            True,
        ),
        # a file the job should not have written is still a difference
        (("mpi-N.out",), ("mpi-5.out", "mpi-5.err"), ("5",), False),
        # the wrong index is not made right by an id that happens to match
        (("a-0.out", "a-1.out"), ("a-1.out", "a-2.out"), ("0", "2"), False),
    ],
)
def test_output_names_are_matched_to_the_table_not_rewritten(
    want: tuple[str, ...], files: tuple[str, ...], ids: tuple[str, ...], same: bool
) -> None:
    got = Alloc(outputs=files, job_ids=ids)
    assert ("outputs" not in compare(Alloc(outputs=want), got, "slurm")) is same


def _stated(row_total: totals.Total) -> Fraction | None:
    """A whole-job amount of ``bammmc.totals`` (None when it is per node or partly unstated)."""
    key = row_total.key
    if key is None or key[1] or key[2]:
        return None
    return Fraction(key[0])


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_totals_of_each_source_are_the_documented_allocation(row: Row) -> None:
    """`--explain`'s totals (bammmc/totals.py) of each row's source job are the allocation the
    row documents from the source scheduler's manual, where the job states it (a node count
    the scheduler picks, memory per node on nodes it picks, are left to the run)."""
    job, diagnostics = bammmc.parse(row.script(), row.fmt)
    assert job is not None, diagnostics
    got = totals.of(job)
    want = row.want
    checks: list[tuple[str, Any, Any]] = []
    if want.tasks is not None:
        checks.append(("tasks", got["tasks"].key, want.tasks))
    if want.nodes is not None and got["nodes"].key is not None:
        checks.append(("nodes", got["nodes"].key, want.nodes))
    if want.total_cpus() is not None:
        checks.append(("cpus", got["cpus"].key, want.total_cpus()))
    memory, gpus = _stated(got["memory"]), _stated(got["gpus"])
    if want.mem_mb is not None and memory is not None:
        checks.append(("memory", memory / 2**20, want.mem_mb))
    if want.gpus is not None and gpus is not None:
        checks.append(("gpus", gpus, want.gpus))
    if want.walltime_s is not None:
        checks.append(("walltime", got["walltime"].key, want.walltime_s))
    array = got["array"].key
    if want.array is not None:
        checks.append(("array", array and array[0], len(want.array)))
    if want.throttle is not None:
        checks.append(("throttle", array and array[1], want.throttle))
    assert checks
    assert [c for c in checks if c[1] != c[2]] == []
