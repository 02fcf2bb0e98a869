"""No PBS or Torque value adds to what Slurm's own `#PBS` reader reads (issue 18, item 4).

sbatch reads a script's `#PBS` lines when it has no `#SBATCH` line (src/sbatch/xlate.c,
../shared/oracles/slurm/sbatch-inspect): for each value of the tables below with each
separator of the sub-language it goes into, the PBS/Torque writer either refuses it (E140
only, nothing reaches sbatch) or writes a script whose option table, as sbatch reads it, is
exactly the table of the same job with a plain value, with the value itself where the plain
value was: nothing added, nothing else changed.

The payloads are the separators qsub itself reads (`set_resources()`, `parse_equal_string()`,
the `-v` list). Slurm's translator is not qsub: `_parse_pbs_resource_list()` looks for its
keywords (`walltime=`, `mem=`, `file=`…) at *every* position of a `-l` list, so it finds
`walltime=` inside the value `advres=r1=walltime=1` (or inside Torque's blank-holding
`advres="r1 walltime=1"`), where qsub reads one value; such text is not a separator of PBS,
and the writer keeps it (tests/formats/test_pbs.py `KEPT_PBS`).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.formats.separators import emit

#: (SPLAT spec with `{v}` for the value, targets, the plain value, the payloads)
CASES: list[tuple[str, tuple[str, ...], str, tuple[str, ...]]] = [
    (
        "{{schedule: {{reservation: {v}}}}}",
        ("pbs", "torque"),
        "plainres",
        ("r1,walltime=99:00:00", "r1 walltime=99:00:00,mem=1", 'a"b,walltime=9"', "a&b"),
    ),
    (
        "{{extensions: {{pbs: {{resources: {{software: {v}}}}}}}}}",
        ("pbs", "torque"),
        "plainsw",
        ("x,walltime=99:00:00", "x walltime=99:00:00", "'x',nodes=4"),
    ),
    (
        "{{extensions: {{pbs: {{resources: {{{v}: '1'}}}}}}}}",
        ("pbs", "torque"),
        "plainlic",
        ("lic,walltime=99:00:00", "lic=2,nodes=4"),
    ),
    (
        "{{extensions: {{pbs: {{select: {v}}}}}}}",
        ("pbs",),
        "1:ncpus=2",
        ("1:ncpus=2,walltime=99:00:00", "1:ncpus=2 walltime=99:00:00"),
    ),
    (
        "{{extensions: {{pbs: {{nodes: {v}}}}}}}",
        ("torque",),
        "1:ppn=2",
        ("1:ppn=2,walltime=99:00:00",),
    ),
    (
        "{{resources: {{tasks: 2, genericResources: {{{v}: 1}}}}}}",
        ("pbs",),
        "plainfpga",
        ("fpga:ncpus", "fpga+4:ncpus", "fpga,walltime"),
    ),
    (
        "{{extensions: {{pbs: {{umask: {v}}}}}}}",
        ("pbs", "torque"),
        "077",
        ("077,depend=afterok:1", "077,umask=000"),
    ),
    (
        "{{extensions: {{pbs: {{group_list: {v}}}}}}}",
        ("pbs", "torque"),
        "plaingroup",
        ("g1,umask=000", "g1,depend=afterok:1", "g1@h1,g2@h2"),
    ),
    (
        "{{extensions: {{pbs: {{dependency: {v}}}}}}}",
        ("pbs", "torque"),
        "afterok:1",
        ("afterok:1,umask=000", "afterok:1:2,afterany:3"),
    ),
    (
        "{{execution: {{environment: {{vars: {{{v}: '/x.so'}}}}}}}}",
        ("pbs", "torque"),
        "PLAINVAR",
        ("a,LD_PRELOAD", "A=B"),
    ),
    (
        "{{execution: {{environment: {{vars: {{A: {v}}}}}}}}}",
        ("pbs", "torque"),
        "plainval",
        ("x,LD_PRELOAD=/x.so", "x=y", "x y"),
    ),
]

PAIRS = [
    (template, target, plain, payload)
    for template, targets, plain, payloads in CASES
    for target in targets
    for payload in payloads
]


def quoted(value: str) -> str:
    """``value`` as a YAML flow scalar."""
    return json.dumps(value)


@pytest.mark.oracle
@pytest.mark.parametrize(("template", "target", "plain", "payload"), PAIRS)
def test_sbatch_reads_what_the_plain_value_gives(
    template: str, target: str, plain: str, payload: str, sbatch_options: Any
) -> None:
    text, diags = emit(template.format(v=quoted(payload)), target)
    errors = [d for d in diags if d.is_error]
    if errors:  # refused: nothing reaches sbatch
        assert {d.code for d in errors} == {"E140"}, errors
        return
    assert text is not None
    reference, ref_diags = emit(template.format(v=quoted(plain)), target)
    assert reference is not None and not [d for d in ref_diags if d.is_error]
    # the value may only stand where the plain value stands in sbatch's table (a `-v` value
    # with a `,` is written quoted, pbs.md §3, and sbatch keeps the quotes of that item:
    # find_quote_token() of src/common/env.c splits `--export` at unquoted commas only)
    got = sbatch_options(text)
    variants = [
        [
            {k: _swap(v, plain, q + payload + q) for k, v in c.items()}
            for c in sbatch_options(reference)
        ]
        for q in ("", "'", '"')
    ]
    assert got in variants, text


def _swap(value: Any, plain: str, payload: str) -> Any:
    """An option of the reference table with the plain value put back as the payload."""
    return value.replace(plain, payload) if isinstance(value, str) else value
