"""Every real-world Grid Engine script in ../shared/corpus/sge: read without a traceback, errors
only where the file really is at fault, and `sge -> splat -> sge` gives the same IR. The summary
is printed at the end of the test run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import bammmc
from tests.conftest import CORPUS, as_written, record_corpus

FILES = sorted((CORPUS / "sge").glob("*")) if (CORPUS / "sge").is_dir() else []

#: Files that are really at fault, and why.
FAULTY: dict[str, tuple[set[str], str]] = {
    "dual-pbs-sge-jinja.template": (
        {"E133", "E134"},
        "an unrendered Jinja template: `{{ queue }}` is three words, `{{` is no slot count",
    ),
    "starexec-jobscript-template-dollar-placeholders": (
        {"E130", "E134"},
        "an unrendered StarExec template (`$$MAX_WRITE$$G` is no size) and `-u`, which is "
        "qalter's option, not qsub's",
    ),
    "template-uap-qsub-placeholders.sh": (
        {"E131"},
        "an unrendered uap template: qsub cuts `-pe smp #{CORES}` at its `#`, so `-pe smp` has "
        "no slot count (and `-M #{EMAIL}` no address)",
    ),
}


@pytest.mark.skipif(not FILES, reason="../shared/corpus/sge is not here")
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_corpus_file(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    job, diags = bammmc.parse(text, "sge", filename=path.name)
    record_corpus("sge", path.name, diags)
    errors = {d.code for d in diags if d.is_error}
    expected, why = FAULTY.get(path.name, (set(), ""))
    assert errors == expected, f"{path.name}: {why or 'expected to read cleanly'}"
    if job is None:
        return
    out, more = bammmc.emit(job, "sge")
    assert out is not None
    assert not [d for d in more if d.is_error], more
    again, _ = bammmc.parse(out, "sge")
    assert again is not None
    assert again == as_written(job), f"{path.name}: sge -> splat -> sge changed the job\n{out}"
    assert bammmc.emit(again, "sge")[0] == out
