"""The behavioural table itself: its rows are well formed and docs/fidelity.md shows them."""

from __future__ import annotations

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
