"""`--preserve` round trips: ``X -> Y -> X`` for every pair of registered formats.

For a job read from its ``X`` text (``J``), the ``Y`` output written with ``--preserve`` must
read back as ``J`` wherever a block may carry the field, and as the target's reading of its
text (``J'``, the ``Y`` output read without a block) elsewhere — the rule of
:func:`round_trip_problems` — with no W411–W414, or the ``Y`` writer refused the job with a
coded error. Over the examples (examples/*.yaml and hello.sbatch, each converted to every
``X``) and over generated jobs (the SPLAT job strategy of tests/property/test_splat_props.py).
Docs: docs/preserve.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bammmc import preserve
from bammmc.backends import WriteOptions
from bammmc.diagnostics.model import Diagnostic, Reporter
from bammmc.ir.job import Job
from bammmc.pipeline import compile_text, emit_job, get_format
from bammmc.registry import FORMATS
from tests.strategies import documents

ROOT = Path(__file__).parent.parent.parent
EXAMPLES = [*sorted((ROOT / "examples").glob("*.yaml")), ROOT / "examples" / "hello.sbatch"]
NAMES = list(FORMATS)

#: ``(example, Y)`` pairs whose ``Y`` text bammmc writes without an error but cannot read back:
#: a writer bug outside `--preserve` (no block can be embedded then: W411, and reading ``Y`` is
#: an error). A pair not listed here that is unreadable fails the test; a listed one that is
#: fixed is simply checked like the others.
UNREADABLE: dict[tuple[str, str], str] = {
    ("multi-task-job.yaml", "htcondor"): "the submit file of a multi-task job has no "
    "`executable` (E103 on reading it back)",
}


#: the codes a block read back by the bammmc that wrote it on the file it wrote never gives
BLOCK_CODES = ("W411", "W412", "W413", "W414")


def _at(data: Any, path: preserve.Path) -> Any:
    for part in path:
        if isinstance(data, dict):
            if part not in data:
                return preserve.ABSENT
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
        else:
            return preserve.ABSENT
    return data


def carriable(lossy: Job, path: preserve.Path, target: Any, source: Any) -> bool:
    """May a block carry the source's value ``source`` at ``path``, where the target's text
    reads ``target`` (``lossy``: the job it reads as)? Only at a place that does not decide
    what runs (under ``preserve.RESTORABLE``: tests/test_preserve.py checks that the tables
    cover every field of the IR), and only where the target's text leaves the field unset or
    sets it to the same typed value spelled otherwise."""
    entry = preserve.Entry(path, target, source)
    return preserve.restorable(entry) and (
        target is preserve.ABSENT or preserve.respelled(lossy, entry)
    )


def round_trip_problems(job: Job, lossy: Job, back: Job) -> list[str]:
    """How ``back`` (``job`` written as ``Y`` with ``--preserve`` and read back) breaks the
    round-trip rule, ``lossy`` being the same ``Y`` text read without its block:

    * wherever ``back`` differs from ``job``, it holds the target's reading (``lossy``'s value,
      or nothing where ``lossy`` has nothing), and that is a place no block may carry: it
      decides what runs, or the target's text sets it to a value that is not the source's;
    * wherever ``back`` differs from ``lossy``, it holds the source's value, at a place a block
      may carry.

    So everything a block may carry round-trips exactly, and the rest reads as the target reads
    it; none of the two is loosened."""
    w_job, w_lossy, w_back = preserve.wire(job), preserve.wire(lossy), preserve.wire(back)
    out = []
    for d in preserve.diff(w_back, w_job):  # y: back, x: the source
        target = _at(w_lossy, d.path)
        if preserve.diff(target, d.y) != []:
            out.append(f"{preserve.field_path(d.path)}: {d.y!r} is neither the source's nor Y's")
        elif carriable(lossy, d.path, target, d.x):
            out.append(f"{preserve.field_path(d.path)}: not restored, but a block may carry it")
    for d in preserve.diff(w_lossy, w_back):  # y: Y's reading, x: back
        # back holds the source's value there (or a part of it: a block may carry some keys
        # of a map and not others, which the first loop judges)
        if any(e.x is not preserve.ABSENT for e in preserve.diff(_at(w_job, d.path), d.x)):
            out.append(f"{preserve.field_path(d.path)}: {d.x!r} is neither the source's nor Y's")
        elif not carriable(lossy, d.path, d.y, d.x):
            out.append(f"{preserve.field_path(d.path)}: restored, but no block may carry it")
    return out


def read(text: str, fmt: str) -> tuple[Job | None, list[Diagnostic]]:
    reporter = Reporter("y")
    compiled = compile_text(text, get_format(fmt), reporter)
    job = compiled[0].job if len(compiled) == 1 else None
    return job, reporter.diagnostics


def write(job: Job, fmt: str, keep: bool) -> tuple[str | None, list[Diagnostic]]:
    reporter = Reporter("x")
    files = emit_job(job, get_format(fmt), reporter, None, WriteOptions(preserve=keep))
    return (None if reporter.has_errors else files[0].text), reporter.diagnostics


def round_trip(job: Job, y: str) -> tuple[str | None, Job | None, list[Diagnostic]]:
    """``(Y text or None when the writer refused, the job read back, the diagnostics)``."""
    out, written = write(job, y, keep=True)
    if out is None:
        assert any(d.is_error and d.code[0] == "E" for d in written)
        return None, None, written
    back, diagnostics = read(out, y)
    return out, back, written + diagnostics


def target_reading(job: Job, y: str) -> Job | None:
    """``J'``: the job the ``Y`` output without ``--preserve`` reads as."""
    plain, _ = write(job, y, keep=False)
    return read(plain, y)[0] if plain is not None else None


def source_jobs(example: Path) -> list[tuple[str, Job]]:
    """The example read, then converted to each format it converts to, and read from there."""
    src = "slurm" if example.suffix == ".sbatch" else "splat"
    job, _ = read(example.read_text(), src)
    assert job is not None
    out = []
    for x in NAMES:
        text, _ = write(job, x, keep=False)
        if text is None:
            continue
        again, _diagnostics = read(text, x)
        if again is not None:
            out.append((x, again))
    return out


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_examples_round_trip_through_every_pair(example: Path) -> None:
    failures = []
    pairs = 0
    for x, job in source_jobs(example):
        for y in NAMES:
            out, back, diagnostics = round_trip(job, y)
            if out is None:
                continue
            pairs += 1
            if back is None and (example.name, y) in UNREADABLE:
                assert any(d.code == "W411" for d in diagnostics)
                assert any(d.is_error for d in diagnostics)
                continue
            warned = sorted({d.code for d in diagnostics if d.code in BLOCK_CODES})
            lossy = target_reading(job, y)
            if back is None or lossy is None:
                failures.append(f"{x} -> {y}: unreadable")
                continue
            problems = round_trip_problems(job, lossy, back)
            if warned or problems:
                failures.append(f"{x} -> {y}: {warned} {problems[:5]}")
    assert pairs >= len(NAMES)
    assert not failures, "\n".join(failures)


SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(documents(), st.sampled_from(NAMES))
def test_generated_jobs_round_trip(text: str, x: str) -> None:
    """A generated job, converted to ``X`` and read from there, then through every ``Y``."""
    source, _ = read(text, "splat")
    assume(source is not None)
    assert source is not None
    x_text, _ = write(source, x, keep=False)
    assume(x_text is not None)
    assert x_text is not None
    job, _ = read(x_text, x)
    assume(job is not None)
    assert job is not None
    for y in NAMES:
        out, back, diagnostics = round_trip(job, y)
        if out is None:  # the Y writer refused the job with a coded error
            continue
        if back is None:  # bammmc refuses its own Y output (a writer bug, see UNREADABLE):
            # no block could be written (W411), and reading Y is an error, never a wrong job
            assert any(d.code == "W411" for d in diagnostics), diagnostics
            assert any(d.is_error for d in diagnostics), diagnostics
            continue
        if any(d.code == "W411" for d in diagnostics):  # no block could be written: say why
            assert "here-document" in " ".join(d.message for d in diagnostics), diagnostics
            continue
        assert not [d for d in diagnostics if d.code in BLOCK_CODES], (x, y, diagnostics)
        lossy = target_reading(job, y)
        assert lossy is not None
        assert not round_trip_problems(job, lossy, back), (x, y, out)


_MUTATED_JOB = ROOT / "examples" / "hpc-mpi-job.yaml"


@settings(derandomize=True, deadline=None, max_examples=100)
@given(
    st.sampled_from(NAMES[1:]),
    st.integers(0, 10_000),
    st.sampled_from(["A", "-", "_", "#", "\n", "", "=", "#SBATCH -n 9\n", " ", "\r"]),
)
def test_a_damaged_block_never_restores_a_wrong_value(y: str, at: int, insert: str) -> None:
    """One character of the block replaced (or a line inserted): the file reads without a
    traceback, as the target reads it (W411: ignored), or — the damage missed the payload, e.g.
    an `A` over an `A` — exactly as the undamaged file."""
    job, _ = read(_MUTATED_JOB.read_text(), "splat")
    assert job is not None
    out, _ = write(job, y, keep=True)
    assert out is not None
    plain, _ = write(job, y, keep=False)
    assert plain is not None
    lossy, _ = read(plain, y)
    undamaged, _ = read(out, y)
    start = out.index("# bammmc-preserve" if preserve.placement(y) == "comment" else "payload")
    at = start + at % (len(out) - start)
    damaged = out[:at] + insert + out[at + 1 :]
    back, diagnostics = read(damaged, y)
    if back is None:  # the damage broke the file itself (a Flux jobspec's quotes)
        assert any(d.is_error for d in diagnostics)
        return
    if any(d.code == "W411" for d in diagnostics):  # ignored: nothing restored
        assert codes_of(diagnostics) == ["W411"]
        assert _as_read(lossy, back)
    elif "bammmc-preserve v" not in damaged:  # its name is gone: only comments, as if deleted
        assert codes_of(diagnostics) == []
        assert _as_read(lossy, back)
    else:  # the block still verified: the damage changed nothing it holds
        assert codes_of(diagnostics) == []
        assert back == undamaged


@settings(derandomize=True, deadline=None, max_examples=100)
@given(
    st.sampled_from([n for n in NAMES if preserve.placement(n) == "comment"]),
    st.integers(0, 10_000),
    st.sampled_from(["A", "-", "#", "\n", "", " ", "\r", "x", "\t"]),
)
def test_an_edit_of_the_visible_text_ignores_the_block(y: str, at: int, insert: str) -> None:
    """One character of the text before the block replaced (or removed): the block no longer
    describes the file, so it is ignored with W411, which says the file was edited — whatever
    the edit, a directive, the script or a blank line."""
    job, _ = read(_MUTATED_JOB.read_text(), "splat")
    assert job is not None
    out, _ = write(job, y, keep=True)
    assert out is not None
    start = out.index("# bammmc-preserve")
    at %= start
    edited = out[:at] + insert + out[at + 1 :]
    assume(edited != out)
    back, diagnostics = read(edited, y)
    assert codes_of(diagnostics) == ["W411"], diagnostics
    assert preserve.EDITED in next(d.message for d in diagnostics if d.code == "W411")
    # nothing restored: the job is the edited text's own (the block's lines are taken off
    # with the blank line before them)
    head = edited[: edited.index("# bammmc-preserve")]
    plain, _ = read(head[:-1] if head.endswith("\n\n") else head, y)
    assert back == plain


def _as_read(lossy: Job | None, back: Job) -> bool:
    """``back`` is the target's reading: ``lossy``, but for a script that may hold the lines of
    a block left in place (a damaged header is not taken off: they are comments)."""
    assert lossy is not None
    return all(
        e.path == ("spec", "execution", "script")
        for e in preserve.diff(preserve.wire(lossy), preserve.wire(back))
    )


def codes_of(diagnostics: list[Diagnostic]) -> list[str]:
    return [d.code for d in diagnostics if d.code in BLOCK_CODES]
