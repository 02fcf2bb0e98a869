"""No traceback, for every registered format: mutated seed files (byte flips, truncation,
line shuffles and duplicates, CRLF, NUL bytes, invalid UTF-8, huge numbers, deep nesting) read
to a job or to coded diagnostics within a time bound, and a job that reads is written to its
own format without an exception.

The seeds are the project's own ``corpus/<format>/`` (written by us, so every machine fuzzes
every format) and ``../shared/corpus`` when it is there (read, never copied). The mutations are
one function, :func:`mutate`, that draws through a :class:`Pick`; Hypothesis draws here, and
``tools/fuzz.py`` (the long run, docs/robustness.md) draws from a seeded ``random.Random``.

``BAMMMC_FUZZ_EXAMPLES`` sets the number of examples per format (CI: the default below).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bammmc
from bammmc.diagnostics.model import Reporter
from bammmc.registry import FORMATS
from bammmc.source import decode_text
from tests.conftest import CORPUS, ROOT

T = TypeVar("T")

#: every run of ASCII digits (the huge-number property replaces each in turn)
DIGIT_RUNS = re.compile(r"[0-9]+").finditer
#: the start of a SPLAT file
_V = "apiVersion: bammm.io/v1alpha1\nkind: Job\nmetadata:\n  name: x\n"

#: the project's own seeds: corpus/<format>/ (corpus/README.md)
OWN = ROOT / "corpus"

#: where each format's seed files are in ../shared/corpus (when it is here)
SHARED_SEEDS: dict[str, list[Path]] = {
    "splat": [],
    "slurm": sorted((CORPUS / "slurm").glob("*"))[:25],
    "pbs": sorted((CORPUS / "pbs").glob("*"))[:15],
    "torque": sorted((CORPUS / "torque").glob("*"))[:10],
    "lsf": sorted((CORPUS / "lsf").glob("*"))[:15],
    "sge": sorted((CORPUS / "sge").glob("*"))[:10],
    "htcondor": sorted(p for p in (CORPUS / "htcondor").glob("*") if p.is_file())[:20],
    "flux": sorted((CORPUS / "flux" / "valid").glob("*"))[:15],
    "flux-batch": sorted((CORPUS / "flux" / "batch" / "valid").glob("*")),
}


def seeds(fmt: str) -> list[Path]:
    """Every seed file of ``fmt``: its own corpus folder, the examples (SPLAT), the shared one."""
    own = sorted(p for p in (OWN / fmt).glob("*") if p.is_file())
    if fmt == "splat":
        own += sorted((ROOT / "examples").glob("*.yaml"))
    return own + [p for p in SHARED_SEEDS.get(fmt, []) if p.is_file()]


#: examples per format (CI budget: docs/robustness.md); the long run is tools/fuzz.py
EXAMPLES = int(os.environ.get("BAMMMC_FUZZ_EXAMPLES", "150"))
#: no input may take longer than this to read and write back (seconds)
TIME_BOUND = 2.0

SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=EXAMPLES,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

KINDS = ["flip", "truncate", "shuffle", "duplicate", "crlf", "nul", "utf8", "number", "nest"]
FLIP_CHARS = "\\\"'#$%{}[]():=@-\t\n\r\x00é&*|>!`;"
BAD_UTF8 = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80", b"\xfe\xff"]
NUMBERS = ["9" * 40, "-1", "0", "1e309", "0x7fffffffffffffff", "99999999999999999999G", "-0"]


class Pick(Protocol):
    """What :func:`mutate` draws from (Hypothesis' ``draw`` or a seeded ``random.Random``)."""

    def integer(self, lo: int, hi: int) -> int: ...
    def choice(self, options: Sequence[T]) -> T: ...
    def permutation(self, items: list[T]) -> list[T]: ...


def mutate(data: bytes, pick: Pick) -> bytes:
    """One to four mutations of ``data``; bytes in, bytes out (invalid UTF-8 is one of them)."""
    text = data.decode("utf-8", errors="replace")
    bad: tuple[int, bytes] | None = None  # invalid UTF-8, put in after the text mutations
    for _ in range(pick.integer(1, 4)):
        kind = pick.choice(KINDS)
        lines = text.split("\n")
        if kind == "flip" and text:
            i = pick.integer(0, len(text) - 1)
            text = text[:i] + pick.choice(FLIP_CHARS) + text[i + 1 :]
        elif kind == "truncate":
            text = text[: pick.integer(0, len(text))]
        elif kind == "shuffle" and len(lines) > 1:
            text = "\n".join(pick.permutation(lines))
        elif kind == "duplicate" and lines:
            i = pick.integer(0, len(lines) - 1)
            text = "\n".join(lines[: i + 1] + [lines[i]] * pick.integer(1, 50) + lines[i:])
        elif kind == "crlf":
            text = text.replace("\n", "\r\n")
        elif kind == "nul" and text:
            i = pick.integer(0, len(text) - 1)
            text = text[:i] + "\x00" + text[i:]
        elif kind == "utf8":
            bad = (pick.integer(0, len(text)), pick.choice(BAD_UTF8))
        elif kind == "number":
            digits = pick.choice(NUMBERS)
            text = "".join(digits if c.isdigit() and pick.integer(0, 1) else c for c in text[:4000])
        elif kind == "nest" and text:
            i = pick.integer(0, len(text) - 1)
            depth = pick.integer(1, 400)
            text = text[:i] + pick.choice(["[", "{", "(", "- ", "'", '"']) * depth + text[i:]
    if bad is None:
        return text.encode()
    i = min(bad[0], len(text))
    return text[:i].encode() + bad[1] + text[i:].encode()


class _Draw:
    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def choice(self, options: Sequence[T]) -> T:
        return self.draw(st.sampled_from(options))

    def permutation(self, items: list[T]) -> list[T]:
        return list(self.draw(st.permutations(items)))


@st.composite
def mutated(draw: st.DrawFn, files: list[Path]) -> bytes:
    return mutate(draw(st.sampled_from(files)).read_bytes(), _Draw(draw))


def check_one(data: bytes, fmt: str, target: str | None = None) -> Any:
    """Read ``data`` as ``fmt`` (through the CLI's decoder) and write it back (and to
    ``target``): a job or coded diagnostics, never an exception. Returns the job or None."""
    reporter = Reporter("fuzz")
    text = decode_text(data, reporter)
    if text is None:
        assert [d.code for d in reporter.diagnostics] == ["E002"], reporter.diagnostics
        return None
    job, diags = bammmc.parse(text, fmt, filename="fuzz")
    assert job is not None or any(d.is_error for d in diags), diags
    for d in diags:
        assert d.code, d
    if job is not None:
        for dst in {fmt, target or fmt}:
            _, out = bammmc.emit(job, dst)
            for d in out:
                assert d.code, d
    return job


def test_every_format_has_seeds() -> None:
    """A new format must bring its seeds (corpus/<format>/): a test that cannot forget one."""
    missing = [fmt for fmt in FORMATS if not any((OWN / fmt).glob("*"))]
    assert not missing, f"no seed files in corpus/<format>/ for {missing}"


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_mutated_files_never_crash(fmt: str) -> None:
    files = seeds(fmt)
    assert files, f"no seed files for {fmt}"
    targets = sorted(FORMATS)
    for path in files[:1]:  # build the parsers before the clock starts
        check_one(path.read_bytes(), fmt)

    @SETTINGS
    @given(mutated(files), st.sampled_from(targets))
    def run(data: bytes, target: str) -> None:
        start = time.perf_counter()
        check_one(data, fmt, target)
        took = time.perf_counter() - start
        assert took < TIME_BOUND, f"{took:.2f} s for one input"

    run()


#: a number with more digits than Python's int() reads (4,300), and one just past int64
HUGE = "9" * 5000
PAST_INT64 = "9" * 20
#: the jobspec of one task on one core, with room for attributes
JOBSPEC = (
    '{"version": 1, "resources": [{"type": "slot", "count": 1, "label": "task", "with": '
    '[{"type": "core", "count": 1}]}], "tasks": [{"command": ["run"], "slot": "task", '
    '"count": {"per_slot": 1}}], "attributes": {"system": %s}}'
)


@pytest.mark.parametrize(
    ("fmt", "text", "code"),
    [
        # found by the property above: a select with no chunk became nodes: 0 (a traceback)
        ("pbs", "#!/bin/bash\n#PBS -l select=0:ncpus=4\nrun\n", "E134"),
        # an output path longer than the template limit (a traceback in the PBS, Torque and
        # LSF readers)
        ("lsf", "#!/bin/bash\n#BSUB -e " + "x" * 5000 + "\nrun\n", "E108"),
        # tools/fuzz.py: a walltime no scheduler holds read, then OverflowError in the Flux
        # batch writer (format_fsd); refused where it is read (corpus/*/crash-huge-*)
        ("lsf", "#!/bin/bash\n#BSUB -W " + "9" * 400 + "\nrun\n", "E134"),
        ("lsf", "#!/bin/bash\n#BSUB -nnodes " + "9" * 400 + "\nrun\n", "E134"),
        ("slurm", "#!/bin/bash\n#SBATCH --time=" + "9" * 400 + "\nrun\n", "E134"),
        ("pbs", "#!/bin/bash\n#PBS -l walltime=" + PAST_INT64 + "\nrun\n", "E134"),
        ("sge", "#!/bin/bash\n#$ -l h_rt=" + PAST_INT64 + "\nrun\n", "E134"),
        ("flux-batch", "#!/bin/bash\n#flux: -t 1e300\nrun\n", "E134"),
        ("flux", JOBSPEC % '{"duration": 1e300}', "E106"),
        ("splat", _V + "spec:\n  schedule:\n    walltime: '" + PAST_INT64 + "'\n", "E106"),
        # tools/fuzz.py: int() refuses more than 4,300 digits (ValueError in pbs_seconds and
        # every other int() of an option value); one helper refuses them (crash-5000-digits)
        ("torque", "#!/bin/bash\n#PBS -l walltime=" + HUGE + "\nrun\n", "E134"),
        ("torque", "#!/bin/bash\n#PBS -l nodes=" + HUGE + ":ppn=2\nrun\n", "E134"),
        ("pbs", "#!/bin/bash\n#PBS -l select=2:ncpus=" + HUGE + "\nrun\n", "E134"),
        ("slurm", "#!/bin/bash\n#SBATCH --nodes=" + HUGE + "\nrun\n", "E134"),
        ("slurm", "#!/bin/bash\n#SBATCH --gres=gpu:" + HUGE + "\nrun\n", "E134"),
        ("lsf", "#!/bin/bash\n#BSUB -M " + HUGE + "GB\nrun\n", "E134"),
        ("sge", "#!/bin/bash\n#$ -t 1-" + HUGE + "\nrun\n", "E134"),
        ("htcondor", "executable = run\nrequest_memory = " + HUGE + "\nqueue\n", "E134"),
        # a hold subcode of thousands of digits (int() of it raised ValueError)
        ("htcondor", "executable = run\nperiodic_hold_subcode = " + HUGE + "\nqueue\n", "E134"),
        ("flux-batch", "#!/bin/bash\n#flux: --nodes=" + HUGE + "\nrun\n", "E134"),
        # tools/fuzz.py: a begin-time past year 9999 (OverflowError in the Slurm writer)
        (
            "flux-batch",
            "#!/bin/bash\n#flux: --dependency=begin-time:" + "9" * 40 + "\nrun\n",
            "E134",
        ),
        # the same in SPLAT (a Unix timestamp was taken unchecked), found by probing every
        # numeric SPLAT field with huge numbers
        (
            "splat",
            _V
            + "spec:\n  dependencies:\n    - scheme: begin_time\n      value: '9"
            + "9" * 40
            + "'\n",
            "E122",
        ),
        # test_huge_numbers_never_crash: a 5000-digit ClassAd integer (a VisitError); HTCondor
        # reads 0 on overflow
        ("htcondor", "executable = run\nrequirements = (Memory > " + HUGE + ")\nqueue\n", None),
        # tools/fuzz.py: the same with a leading 0 (int() in the help of E021, "no octal")
        ("htcondor", "executable = run\nrequirements = (Memory > 0" + HUGE + ")\nqueue\n", "E021"),
        # $INT() of a macro that reads as infinity (OverflowError), and a format 10^8 wide (a
        # 100 MB string, seconds): left for condor_submit (W423); found reading int() calls
        ("htcondor", "x = 1e999\narguments = $INT(x)\nexecutable = run\nqueue\n", None),
        ("htcondor", "x = 5\narguments = $REAL(x,%.99999999f)\nexecutable = run\nqueue\n", None),
        # tools/fuzz.py: an unclosed queue list over CRLF lines took 2^lines steps (a hang)
        ("htcondor", "executable = run\nqueue x in (\r\n" + "a\r\n" * 40, None),
    ],
)
def test_crashers_found_by_fuzzing(fmt: str, text: str, code: str | None) -> None:
    """Each input reads (to its code, when it has one) and writes to every target in time."""
    for target in sorted(FORMATS):
        start = time.perf_counter()
        check_one(text.encode(), fmt, target)
        took = time.perf_counter() - start
        assert took < TIME_BOUND, f"{took:.2f} s for one input (to {target})"
    if code is not None:
        job, diags = bammmc.parse(text, fmt)
        assert job is None and code in {d.code for d in diags}, diags


CRASH_FILES = sorted(OWN.glob("*/crash-*"))


@pytest.mark.parametrize(
    "path", CRASH_FILES, ids=[f"{p.parent.name}/{p.name}" for p in CRASH_FILES]
)
def test_minimized_crashers_never_crash(path: Path) -> None:
    """corpus/<format>/crash-*: each minimized crasher, read and written to every target."""
    for target in sorted(FORMATS):
        check_one(path.read_bytes(), path.parent.name, target)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("digits", [HUGE, PAST_INT64, "1" + "0" * 18])
def test_huge_numbers_never_crash(fmt: str, digits: str) -> None:
    """Every number in every own seed, one at a time, replaced by a huge one: a job or coded
    diagnostics (a number no scheduler holds is E134/E106 where it is read), never a
    traceback, written to its own format and to one other target (each in turn)."""
    targets = sorted(FORMATS)
    n = 0
    for path in sorted(p for p in (OWN / fmt).glob("*") if not p.name.startswith("crash-")):
        text = path.read_bytes().decode("utf-8", errors="replace")
        for run in DIGIT_RUNS(text):
            data = (text[: run.start()] + digits + text[run.end() :]).encode()
            check_one(data, fmt, targets[n % len(targets)])
            n += 1
    assert n, f"no number in the seeds of {fmt}"
