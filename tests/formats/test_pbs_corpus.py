"""Every real-world qsub script in ../shared/corpus/pbs and ../shared/corpus/torque: read without
a traceback, errors only where the file really is at fault, and `pbs -> splat -> pbs` (and the
same for Torque) gives the same IR. The summary is printed at the end of the test run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import bammmc
from tests.conftest import CORPUS, as_written, record_corpus

FILES = [
    (fmt, path)
    for fmt in ("pbs", "torque")
    if (CORPUS / fmt).is_dir()
    for path in sorted((CORPUS / fmt).glob("*"))
]

#: Files that are really at fault, and why.
FAULTY: dict[str, tuple[set[str], str]] = {
    "cray-pbs-nppus-vntype.template": ({"E134"}, "unrendered `@CPU` template placeholders"),
    "edge-ncar-casper-bogus-dash-placeholder-N.sh": ({"E134"}, "`-l -walltime` and `select=N`"),
    "isambard-vasp.sub": ({"E135"}, "`-l ncpus=64` for the whole job beside `-l select=1`"),
    "nec-nqsii-abci-group-long-option.nqs": ({"E130"}, "NEC NQSII, not PBS"),
    "nec-nqsv-aoba-T-b.pbs": ({"E130"}, "NEC NQSV, not PBS"),
    "noaa-wcoss2-debug-prepost.pbs": ({"E134"}, "an ecFlow template: `%` in the job name"),
    "edge-crlf-html-template-placeholders.sh.tmpl": ({"E133"}, "unrendered HTML::Template tags"),
    "template-array-placeholder.sh": ({"E134"}, "an unrendered array placeholder"),
}


@pytest.mark.skipif(not FILES, reason="../shared/corpus/pbs and torque are not here")
@pytest.mark.parametrize(("fmt", "path"), FILES, ids=[f"{f}/{p.name}" for f, p in FILES])
def test_corpus_file(fmt: str, path: Path) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    job, diags = bammmc.parse(text, fmt, filename=path.name)
    record_corpus(fmt, path.name, diags)
    errors = {d.code for d in diags if d.is_error}
    expected, why = FAULTY.get(path.name, (set(), ""))
    assert errors == expected, f"{path.name}: {why or 'expected to read cleanly'}"
    if job is None:
        return
    out, more = bammmc.emit(job, fmt)
    assert out is not None
    assert not [d for d in more if d.is_error], more
    again, _ = bammmc.parse(out, fmt)
    assert again == as_written(job), f"{path.name}: {fmt} -> splat -> {fmt} changed the job\n{out}"
