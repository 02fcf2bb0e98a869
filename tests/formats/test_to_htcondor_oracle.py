"""`slurm|pbs|torque|lsf|sge|splat -> htcondor` for the real-world corpus and the SPLAT examples:
HTCondor's own parser (htcondor2.Submit, the `condor_oracle` fixture) accepts every converted
submit file of the files that read cleanly, with exactly the commands the writer meant, and the
values it expands are the ones meant: `$(DOLLAR)` a `$`, `$(Cluster)` the cluster, the array's
first index for the first job. The script of a script job is its body byte for byte after the
`#!` line and the variable block.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import bammmc
from bammmc.backends import WriteOptions
from bammmc.backends.htcondor import Submit, intended, write
from bammmc.diagnostics.model import Diagnostic, Reporter
from bammmc.ir.envvars import END_MARKER
from bammmc.ir.job import Job
from bammmc.ir.launchers import rewritten
from tests.formats import test_lsf_corpus, test_pbs_corpus, test_sge_corpus, test_slurm_corpus
from tests.formats.test_htcondor_writer import meant_keys

ROOT = Path(__file__).parent.parent.parent
CLEAN: list[tuple[str, Path]] = [
    *(("slurm", p) for p in test_slurm_corpus.FILES if p.name not in test_slurm_corpus.FAULTY),
    *((f, p) for f, p in test_pbs_corpus.FILES if p.name not in test_pbs_corpus.FAULTY),
    *(("lsf", p) for p in test_lsf_corpus.FILES if p.name not in test_lsf_corpus.FAULTY),
    *(("sge", p) for p in test_sge_corpus.FILES if p.name not in test_sge_corpus.FAULTY),
    *(("splat", p) for p in sorted((ROOT / "examples").glob("*.yaml"))),
]


@pytest.mark.oracle
@pytest.mark.skipif(not CLEAN, reason="../shared/corpus is not here")
@pytest.mark.parametrize(("fmt", "path"), CLEAN, ids=[f"{f}/{p.name}" for f, p in CLEAN])
def test_converted_job_is_accepted_by_htcondor(fmt: str, path: Path, condor_oracle: Any) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    job, diags = bammmc.parse(text, fmt, filename=path.name)
    assert job is not None, diags
    reporter = Reporter(path.name)
    files = write(job, reporter, WriteOptions(script_stem="job"))
    errors = [(d.code, d.field) for d in reporter.diagnostics if d.is_error]
    if errors == [("E103", "spec.execution")]:
        return  # a job with no program (tasks only): refused, as condor_submit refuses it
    assert not errors, reporter.diagnostics
    assert all(d.field for d in reporter.diagnostics)  # every loss names its field
    submit = intended(job)
    assert files[0].text == submit.text()
    result = condor_oracle.submit(submit.text())
    assert result["ok"], (result["errors"], submit.text())
    statements = sum(line.lower().startswith("queue") for line in submit.queue)
    assert len(result["warnings"]) == (statements > 1), (result["warnings"], submit.text())
    assert result["keys"] == meant_keys(submit), submit.text()
    first = next(q for q in submit.queue if q.lower().startswith("queue"))
    assert result["queue"] == first[len("queue") :].strip()
    for key, value in result["keys"].items():
        meant = expansion(value, job, submit)
        if meant is not None:
            assert result["expanded"][key] == meant, (key, value)
    script = job.spec.execution.script if job.spec and job.spec.execution else None
    if script is not None:
        assert [f.suffix for f in files] == ["", ".sh"]
        kept(script, files[1].text, reporter.diagnostics)
    else:
        assert len(files) == 1


def expansion(value: str, job: Job, submit: Submit) -> str | None:
    """What condor_submit makes of a value for the first job, where the test can tell."""
    first = 0
    if job.spec and job.spec.array and job.spec.array.indices:
        first = min(job.spec.array.indices)
    text = (
        value.replace("$(Cluster)", "1")
        .replace("$(Process)", "0")
        .replace("$INT(bammmc_array_index)", str(first))
    )
    if re.search(r"\$\$|\$[A-Za-z_]*\(", text.replace("$(DOLLAR)", "")):
        return None  # other macros: the writer's own helpers, or HTCondor's own text
    return text.replace("$(DOLLAR)", "$")


def kept(script: str, written: str, diagnostics: list[Diagnostic]) -> None:
    """The body after the `#!` line is the job's, byte for byte (CRLF made LF), but for the
    launcher lines a report says were rewritten (each rewrite undone here)."""
    script = script.replace("\r\n", "\n")
    body = script.partition("\n")[2] if script.startswith("#!") else script
    assert written.startswith("#!")
    after = written.partition("\n")[2]
    if END_MARKER in after:
        after = after.split(END_MARKER, 1)[1]
    for d in diagnostics:
        lines = rewritten(d.message) if d.field == "spec.execution.script" else None
        if lines is not None:
            # the rewritten line where a command starts (not the same text in an `echo "…"`)
            at = re.search(
                rf"(?m)^(?:.*(?:[;&|(]|then|do|else|time|exec))?\s*({re.escape(lines[1])})", after
            )
            assert at is not None, d.message
            after = after[: at.start(1)] + lines[0] + after[at.end(1) :]
    assert after == body


@pytest.mark.skipif(not CLEAN, reason="../shared/corpus is not here")
@pytest.mark.parametrize(("fmt", "path"), CLEAN, ids=[f"{f}/{p.name}" for f, p in CLEAN])
def test_converted_job_reads_back_and_writes_the_same(fmt: str, path: Path) -> None:
    """`X -> htcondor -> htcondor` is stable: the HTCondor reader reads the converted file, and
    the writer writes it again with the same commands (`getenv = False` aside: the reader makes
    HTCondor's default explicit)."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    files, diags = bammmc.convert_files(text, fmt, "htcondor", filename=path.name)
    if files is None:
        # a job with no program: the writer refuses it, as condor_submit does
        assert ("E103", "spec.execution") in {(d.code, d.field) for d in diags}
        return
    submit = files[0][1]
    assert "\nexecutable = " in "\n" + submit
    again, more = bammmc.convert_files(submit, "htcondor", "htcondor")
    assert again is not None, more
    first, second = (
        "".join(line for line in t.splitlines(True) if line != "getenv = False\n")
        for t in (submit, again[0][1])
    )
    assert second == first
