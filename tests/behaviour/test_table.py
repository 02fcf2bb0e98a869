"""The behavioural table itself: its rows are well formed and docs/fidelity.md shows them."""

from __future__ import annotations

import pytest

from tests.behaviour.observe import Alloc, compare
from tests.behaviour.table import BEGIN, END, ROWS, TARGETS, markdown
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
