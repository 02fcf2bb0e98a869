"""No Slurm value adds to what sbatch reads (issue 18, item 4).

For each value of the tables below with each separator of the sub-language it goes into
(`--gres`/`--gpus*` `type:count` lists, `--dependency` lists, `--export` lists, feature
expressions, the `#SBATCH` line's own words, quotes and `#`), the Slurm writer either refuses
it (E140 only, nothing reaches sbatch) or writes a script whose option table, as sbatch itself
reads it (../shared/oracles/slurm/sbatch-inspect), is exactly the table of the same job with a
plain value, with the value itself where the plain value was: nothing added, nothing else
changed. An `--export` item whose value holds a `,` is written in quotes, which sbatch takes
off the item (`find_quote_token()` of src/common/env.c; a real job of the run-mode oracle
printed `A=[x,LD_PRELOAD=/x.so]` for `--export="ALL,\\"A=x,LD_PRELOAD=/x.so\\""`), so the item
may stand quoted in the table.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.formats.separators import emit

#: (SPLAT spec with `{v}` for the value, the plain value, the payloads)
CASES: list[tuple[str, str, tuple[str, ...]]] = [
    (
        "{{resources: {{tasks: 2, gpu: {{type: {v}, count: 1}}}}}}",
        "plaingpu",
        ("a100:4,gpu", "a100,gpu", "a1 00", "x:2", "a1=00", "a#b", "a\tb"),
    ),
    (
        "{{resources: {{gpu: {{type: {v}, count: 2/node}}}}}}",
        "plaingpu",
        ("a100:4,gpu", "x:2", "a1=00"),
    ),
    ("{{resources: {{gpu: {{type: {v}, count: 2/job}}}}}}", "plaingpu", ("a100,gpu:8", "a1=00")),
    (
        "{{resources: {{genericResources: {{{v}: 1/node}}}}}}",
        "plainfpga",
        ("fpga,gpu:4", "c d", "fpga:x:9", "plainfpga:x", "f#g"),
    ),
    (
        "{{dependencies: [{{scheme: afterok, value: {v}}}]}}",
        "12",
        ("1_[2,afterany:3]", "1?afterany:2", "1:2", "12 afterany:3", "12_[1-3]", "12_7"),
    ),
    (
        "{{execution: {{environment: {{vars: {{A: {v}}}}}}}}}",
        "plainval",
        ("x,LD_PRELOAD=/x.so", "it's", 'x",B=2', 'p"q"r', "a b", "a#b", "x=y", "a\\b", "'a',\"b\""),
    ),
    (
        "{{execution: {{environment: {{vars: {{{v}: '/x.so'}}}}}}}}",
        "PLAINVAR",
        ("a,LD_PRELOAD", "A=B", "A B", 'A"B'),
    ),
    (
        "{{placement: {{constraint: {v}}}}}",
        "plainfeat",
        ("a,b", "a&b", "a b", "a|b,c", "[a|b]*2", "a#b"),
    ),
    ("{{placement: {{prefer: {v}}}}}", "plainfeat", ("a,b", "a&b", "a b", "a#b")),
    ("{{schedule: {{reservation: {v}}}}}", "plainres", ("r1 --time=9", "a#b", 'a"b')),
    ("{{schedule: {{account: {v}}}}}", "plainacct", ("a --time=9", "a#b --qos=x", "a\\ b")),
    ("{{execution: {{workingDir: {v}}}}}", "/tmp/plain", ("/tmp/a%j", "/tmp/a b", "/tmp/a#b")),
]

PAIRS = [(template, plain, payload) for template, plain, payloads in CASES for payload in payloads]


@pytest.mark.oracle
@pytest.mark.parametrize(("template", "plain", "payload"), PAIRS)
def test_sbatch_reads_what_the_plain_value_gives(
    template: str, plain: str, payload: str, sbatch_options: Any
) -> None:
    text, diags = emit(template.format(v=json.dumps(payload)), "slurm")
    errors = [d for d in diags if d.is_error]
    if errors:  # refused: nothing reaches sbatch
        assert {d.code for d in errors} == {"E140"}, errors
        return
    assert text is not None
    reference, ref_diags = emit(template.format(v=json.dumps(plain)), "slurm")
    assert reference is not None and not [d for d in ref_diags if d.is_error]
    expected = sbatch_options(reference)
    variants = [
        [{k: _swap(v, plain, payload, q) for k, v in c.items()} for c in expected]
        for q in ("", "'", '"')
    ]
    assert sbatch_options(text) in variants, text


def _swap(value: Any, plain: str, payload: str, quote: str) -> Any:
    """An option of the reference table with the plain value put back as the payload; with a
    ``quote``, the `,`-separated item holding it is in those quotes (`--export`)."""
    if not isinstance(value, str) or plain not in value:
        return value
    if not quote:
        return value.replace(plain, payload)
    items = value.split(",")
    return ",".join(
        quote + item.replace(plain, payload) + quote if plain in item else item for item in items
    )
