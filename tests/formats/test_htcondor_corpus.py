"""Every real-world submit file in ../shared/corpus/htcondor: read without a traceback, errors
only where the file really is at fault, and `htcondor -> splat -> htcondor` reproduces every
command: the written file reads back to the same IR, and HTCondor's own parser (the oracle)
finds every command of the original in it, with the same value once macros are expanded.
The summary is printed at the end of the test run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import bammmc
from tests.conftest import CORPUS, as_written, record_corpus

FILES = (
    sorted(p for p in (CORPUS / "htcondor").glob("*") if p.is_file())
    if (CORPUS / "htcondor").is_dir()
    else []
)

#: Files that are really at fault, and why.
FAULTY: dict[str, tuple[set[str], str]] = {
    "template-fnal-jobsub-jinja.cmd": (
        {"E020", "E021", "E134"},
        "an unrendered Jinja template: `{% … %}` and `{{ … }}` lines are no submit statements, "
        "`queue {{N}}` has no count, the `environment` list holds `{{…|join(';')}}` and "
        "`requirements` ends in `{%if …%}`",
    ),
}


@pytest.mark.skipif(not FILES, reason="../shared/corpus/htcondor is not here")
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_corpus_file(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    job, diags = bammmc.parse(text, "htcondor", filename=path.name)
    record_corpus("htcondor", path.name, diags)
    errors = {d.code for d in diags if d.is_error}
    expected, why = FAULTY.get(path.name, (set(), ""))
    assert errors == expected, f"{path.name}: {why or 'expected to read cleanly'}: {diags}"
    if job is None or path.name in FRAGMENTS:
        return
    out, more = bammmc.emit(job, "htcondor")
    assert out is not None
    assert not [d for d in more if d.is_error], more
    again, _ = bammmc.parse(out, "htcondor")
    assert again is not None
    assert again == as_written(job), (
        f"{path.name}: htcondor -> splat -> htcondor changed the job\n{out}"
    )
    assert bammmc.emit(again, "htcondor")[0] == out


#: Files that are fragments, not jobs: no `executable` and no `queue` (W424). Written back they
#: would gain the `queue` every submit file the writer emits ends with, and condor_submit
#: refuses a queued job without an executable (E103), so they have no round trip.
FRAGMENTS: dict[str, str] = {
    "condor-tests-dagman-set-attr-fragment.sub": "two `+Attr` lines DAGMan adds to a node's job",
}

CLEAN = [p for p in FILES if p.name not in FAULTY and p.name not in FRAGMENTS]


def _commands(result: dict[str, Any]) -> dict[str, str | None]:
    """The oracle's commands, lower-case name -> expanded value (raw when it cannot expand)."""
    keys: dict[str, str] = result["keys"]
    expanded: dict[str, str | None] = result["expanded"]
    return {
        k.lower(): expanded.get(k) if expanded.get(k) is not None else v for k, v in keys.items()
    }


@pytest.mark.oracle
@pytest.mark.skipif(not CLEAN, reason="../shared/corpus/htcondor is not here")
@pytest.mark.parametrize("path", CLEAN, ids=[p.name for p in CLEAN])
def test_round_trip_keeps_every_command(path: Path, condor_oracle: Any) -> None:
    """htcondor2.Submit reads the original and our output; every command of the original is in
    the output (by its name or the name condor_submit also accepts for it)."""
    from bammmc.frontends.htcondor import EXPRESSION_COMMANDS
    from bammmc.passes.lower.htcondor import canonical, is_command

    text = path.read_bytes().decode("utf-8", errors="replace")
    original = condor_oracle.submit(text)
    # a clean file is one HTCondor's parser reads too (it may still warn, e.g. `from FILE`)
    assert original["ok"] or original.get("keys"), original["errors"]
    out, _ = bammmc.convert(text, "htcondor", "htcondor", filename=path.name)
    assert out is not None
    result = condor_oracle.submit(out)
    # `queue x from FILE`: the oracle opens FILE, which is not here, for both files alike
    assert result["ok"] or result["errors"] == original["errors"], (result["errors"], out)
    before = {
        canonical(k): v
        for k, v in _commands(original).items()
        if is_command(canonical(k)) or k.startswith("my.")
    }
    after = {canonical(k): v for k, v in _commands(result).items()}
    missing = sorted(set(before) - set(after))
    assert not missing, f"{path.name}: commands lost: {missing}\n{out}"
    # ClassAd-valued commands are kept verbatim (compared as written: `$RANDOM_INTEGER()`
    # expands to another number each time)
    raw_before = {canonical(k): v for k, v in original["keys"].items()}
    raw_after = {canonical(k): v for k, v in result["keys"].items()}
    changed = {k for k in before if k in EXPRESSION_COMMANDS and raw_before[k] != raw_after.get(k)}
    assert not changed, f"{path.name}: ClassAd expressions changed: {changed}\n{out}"
