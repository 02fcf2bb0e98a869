"""No value adds to what the target's real parser reads (issue 18, item 4), as a property.

Every string leaf of the IR (tests/property/injection_fields.py) × every writer, with values
drawn from every sub-language's separators (tests/judges.py `SEPARATORS`): the writer refuses
the value (E140), or the target's own parser reads exactly the plain job's table with the value
where the plain value was, and our reader reads the value back as one value, the same
(tests/judges.py `verdict`). The hypothesis sample here is small (CI); tools/injection_survey.py
runs the same verdict on ≥ 100,000 values per writer (figures in docs/robustness.md).

`OPEN` lists what the survey found and is not fixed yet, each with a value that shows it: the
property leaves those (target, leaf) pairs out, and :func:`test_open_findings_still_fail` checks
that each still fails — a fixed one fails that test until it is taken off the list.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.conftest import _start_sge, _start_slurm
from tests.judges import LETTERS, SEPARATORS, judged, judges, verdict
from tests.property.injection_fields import display, string_leaves

TARGETS = ["slurm", "pbs", "torque", "lsf", "sge", "htcondor", "flux-batch", "flux"]

#: (target, leaf) -> (a value that shows it, what is wrong)
OPEN: dict[tuple[str, str], tuple[str, str]] = {}


@pytest.fixture(scope="module")
def parsers() -> dict[str, Any]:
    slurm = _start_slurm()
    return judges(
        None if isinstance(slurm, str) else {**os.environ, **slurm},
        None if isinstance(sge := _start_sge(), str) else sge,
    )


LEAVES = [display(leaf) for leaf in string_leaves()]
BY_NAME = dict(zip(LEAVES, string_leaves(), strict=True))
values = st.text(alphabet=SEPARATORS + LETTERS, min_size=1, max_size=8)


@pytest.mark.oracle
@pytest.mark.parametrize("target", TARGETS)
def test_the_real_parser_reads_the_plain_table(target: str, parsers: dict[str, Any]) -> None:
    if target not in parsers:
        pytest.skip(f"no real parser of {target} runs here")
    table = parsers[target]

    @settings(
        derandomize=True,
        deadline=None,
        max_examples=120,
        suppress_health_check=[HealthCheck.too_slow],
        database=None,
    )
    @given(st.sampled_from(LEAVES), values)
    def run(name: str, value: str) -> None:
        assume((target, name) not in OPEN and judged(target, name))
        wrong = verdict(BY_NAME[name], value, target, table)
        assert wrong is None, f"{name} = {value!r}: {wrong}"

    run()


@pytest.mark.oracle
@pytest.mark.parametrize(("target", "name"), sorted(OPEN))
def test_open_findings_still_fail(target: str, name: str, parsers: dict[str, Any]) -> None:
    value, _ = OPEN[(target, name)]
    assert verdict(BY_NAME[name], value, target, parsers.get(target)) is not None
