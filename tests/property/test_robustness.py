"""No traceback, for every registered format: mutated real-world files (byte flips, truncation,
line shuffles and duplicates, CRLF, NUL bytes, huge numbers, deep nesting) read to a job or to
coded diagnostics, and a job that reads is written to its own format without an exception.

A first piece of issue #9; the seeds are ../shared/corpus (read, never copied), per format.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bammmc
from bammmc.registry import FORMATS
from tests.conftest import CORPUS, ROOT

#: where each format's seed files are (the first that exists)
SEEDS: dict[str, list[Path]] = {
    "splat": sorted((ROOT / "examples").glob("*.yaml")),
    "slurm": sorted((CORPUS / "slurm").glob("*"))[:25],
    "pbs": sorted((CORPUS / "pbs").glob("*"))[:15],
    "torque": sorted((CORPUS / "torque").glob("*"))[:10],
    "lsf": sorted((CORPUS / "lsf").glob("*"))[:15],
    "sge": sorted((CORPUS / "sge").glob("*"))[:10],
    "htcondor": sorted(p for p in (CORPUS / "htcondor").glob("*") if p.is_file())[:20],
    "flux": sorted((CORPUS / "flux" / "valid").glob("*"))[:15],
    "flux-batch": sorted((CORPUS / "flux" / "batch" / "valid").glob("*")),
}

SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def test_every_format_has_seeds() -> None:
    """A new format must bring its seeds here (a test that cannot forget one)."""
    assert set(FORMATS) <= set(SEEDS)


@st.composite
def mutated(draw: st.DrawFn, seeds: list[Path]) -> str:
    text = draw(st.sampled_from(seeds)).read_bytes().decode("utf-8", errors="replace")
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(
            st.sampled_from(
                ["flip", "truncate", "shuffle", "duplicate", "crlf", "nul", "number", "nest"]
            )
        )
        lines = text.split("\n")
        if kind == "flip" and text:
            i = draw(st.integers(0, len(text) - 1))
            text = text[:i] + draw(st.sampled_from("\\\"'#$%{}[]():=@-\t\n\x00é")) + text[i + 1 :]
        elif kind == "truncate":
            text = text[: draw(st.integers(0, len(text)))]
        elif kind == "shuffle" and len(lines) > 1:
            text = "\n".join(draw(st.permutations(lines)))
        elif kind == "duplicate" and lines:
            i = draw(st.integers(0, len(lines) - 1))
            text = "\n".join(lines[: i + 1] + [lines[i]] * draw(st.integers(1, 50)) + lines[i:])
        elif kind == "crlf":
            text = text.replace("\n", "\r\n")
        elif kind == "nul" and text:
            i = draw(st.integers(0, len(text) - 1))
            text = text[:i] + "\x00" + text[i:]
        elif kind == "number":
            digits = draw(st.sampled_from(["9" * 40, "-1", "0", "1e309", "0x7fffffffffffffff"]))
            text = "".join(
                digits if c.isdigit() and draw(st.booleans()) else c for c in text[:4000]
            )
        elif kind == "nest" and text:
            i = draw(st.integers(0, len(text) - 1))
            depth = draw(st.integers(1, 400))
            text = text[:i] + "[" * depth + "{" * depth + text[i:]
    return text


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_mutated_files_never_crash(fmt: str) -> None:
    seeds = [p for p in SEEDS.get(fmt, []) if p.is_file()]
    if not seeds:
        pytest.skip(f"no seed files for {fmt} (../shared/corpus is not here)")

    @SETTINGS
    @given(mutated(seeds))
    def run(text: str) -> None:
        job, diags = bammmc.parse(text, fmt, filename="fuzz")
        assert job is not None or any(d.is_error for d in diags)
        for d in diags:
            assert d.code, d
        if job is not None:
            bammmc.emit(job, fmt)

    run()


@pytest.mark.parametrize(
    ("fmt", "text", "code"),
    [
        # found by the property above: a select with no chunk became nodes: 0 (a traceback)
        ("pbs", "#!/bin/bash\n#PBS -l select=0:ncpus=4\nrun\n", "E134"),
        # an output path longer than the template limit (a traceback in the PBS, Torque and
        # LSF readers)
        ("lsf", "#!/bin/bash\n#BSUB -e " + "x" * 5000 + "\nrun\n", "E108"),
    ],
)
def test_crashers_found_by_fuzzing(fmt: str, text: str, code: str) -> None:
    job, diags = bammmc.parse(text, fmt)
    assert job is None and code in {d.code for d in diags}, diags
