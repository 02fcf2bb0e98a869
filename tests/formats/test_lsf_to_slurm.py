"""`lsf -> slurm` for the real-world corpus: real `sbatch --test-only` accepts every converted
script of the files that read cleanly.

Checked against the larger oracle cluster (128 nodes × 64 CPUs, no partition limits), as for
PBS. Site names the oracle cannot know — partitions, accounts, node features, reservations,
licenses — are taken out of the converted script before the check (`-p batch` stands in for
the partition); everything else is checked.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import bammmc
from tests.conftest import without_site_names
from tests.formats.test_lsf_corpus import FAULTY, FILES

#: Clean files whose jobs are larger than the oracle cluster, and why.
TOO_BIG: dict[str, str] = {
    "order-resreq.new": "1600 slots, 4 per host: 400 nodes (the oracle has 128)"
}
CLEAN = [p for p in FILES if p.name not in FAULTY and p.name not in TOO_BIG]


@pytest.mark.oracle
@pytest.mark.skipif(not CLEAN, reason="../shared/corpus/lsf is not here")
@pytest.mark.parametrize("path", CLEAN, ids=[p.name for p in CLEAN])
def test_converted_corpus_is_accepted_by_sbatch(
    path: Path, big_sbatch_check: Callable[..., tuple[bool, str]]
) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    out, diags = bammmc.convert(text, "lsf", "slurm", filename=path.name)
    assert out is not None, diags
    checked = without_site_names(out)
    accepted, message = big_sbatch_check(checked, "-p", "batch")
    assert accepted, f"{message}\n{checked}"
