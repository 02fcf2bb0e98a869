"""The library keeps the README's promise, and every output is LF (issue #18, items 7 and 8).

* ``parse``, ``emit``, ``emit_files``, ``convert`` and ``convert_files`` return ``None`` whenever
  an error was reported — a writer's refusal (E140) included: the text without the refused
  value would describe another job.
* A script with DOS line ends (CRLF) is written with LF line ends throughout, by every writer
  (a W301 says so): a `#!/bin/bash\\r` first line does not run, and sbatch refuses DOS line
  breaks (checked with the real sbatch below).
"""

from __future__ import annotations

from typing import Any

import pytest

import bammmc
from bammmc.registry import FORMATS

WRITERS = sorted(f for f in FORMATS if f != "splat")
HEAD = "apiVersion: bammm.io/v1alpha1\nkind: Job\n"
#: a job name holding a NUL character, which no script or submit file can carry (E140)
REFUSED = (
    HEAD
    + 'metadata:\n  name: "a\\0b"\nspec:\n  execution:\n    script: "#!/bin/sh\\nhostname\\n"\n'
)


@pytest.mark.parametrize("target", WRITERS)
def test_every_function_returns_none_on_a_writers_error(target: str) -> None:
    out, diags = bammmc.convert(REFUSED, "splat", target)
    assert out is None and "E140" in [d.code for d in diags if d.is_error]
    files, diags = bammmc.convert_files(REFUSED, "splat", target)
    assert files is None and any(d.is_error for d in diags)
    job, diags = bammmc.parse(REFUSED, "splat")
    assert job is not None and diags == []
    text, diags = bammmc.emit(job, target)
    assert text is None and any(d.is_error for d in diags)
    written, diags = bammmc.emit_files(job, target)
    assert written is None and any(d.is_error for d in diags)


@pytest.mark.parametrize("target", WRITERS)
def test_a_clean_job_still_gives_text(target: str) -> None:
    clean = REFUSED.replace("a\\0b", "ab")
    out, diags = bammmc.convert(clean, "splat", target)
    assert out is not None and not [d for d in diags if d.is_error]


CRLF = "#!/bin/bash\r\n#PBS -N crlf\r\n#PBS -l walltime=00:10:00\r\nhostname\r\necho done\r\n"


@pytest.mark.parametrize("target", WRITERS)
def test_crlf_scripts_are_written_lf_throughout(target: str) -> None:
    files, diags = bammmc.convert_files(CRLF, "pbs", target)
    assert files is not None, diags
    for suffix, text in files:
        assert "\r" not in text, (suffix, text)
    approximated = [d for d in diags if d.code == "W301" and d.field == "spec.execution.script"]
    assert len(approximated) == 1 and "CRLF" in approximated[0].message


def test_a_task_script_is_made_lf_too() -> None:
    job = HEAD + (
        "spec:\n  tasks:\n"
        '  - name: a\n    execution:\n      script: "#!/bin/sh\\r\\nhostname\\r\\n"\n'
        '  - name: b\n    execution:\n      script: "#!/bin/sh\\r\\ndate\\r\\n"\n'
    )
    files, diags = bammmc.convert_files(job, "splat", "flux")
    assert files is not None, diags
    assert "\\r" not in files[0][1] and "\r" not in files[0][1]
    fields = [d.field for d in diags if d.code == "W301" and "CRLF" in d.message]
    assert fields == ["spec.tasks[0].execution.script", "spec.tasks[1].execution.script"]


def test_splat_keeps_the_text_as_it_is() -> None:
    out, diags = bammmc.convert(CRLF, "pbs", "splat")
    assert out is not None and "\\r\\n" in out
    assert not [d for d in diags if d.code == "W301"]


@pytest.mark.oracle
@pytest.mark.parametrize("source", ["pbs", "lsf", "sge"])
def test_sbatch_runs_a_converted_crlf_script(source: str, sbatch_check: Any) -> None:
    """The real sbatch refuses a script with DOS line breaks; the converted one it accepts."""
    text = {
        "pbs": CRLF,
        "lsf": CRLF.replace("#PBS -N crlf", "#BSUB -J crlf").replace(
            "#PBS -l walltime=00:10:00", "#BSUB -W 10"
        ),
        "sge": CRLF.replace("#PBS -N crlf", "#$ -N crlf").replace(
            "#PBS -l walltime=00:10:00", "#$ -l h_rt=600"
        ),
    }[source]
    out, diags = bammmc.convert(text, source, "slurm")
    assert out is not None, diags
    accepted, message = sbatch_check(out)
    assert accepted, message
    refused, message = sbatch_check(text)  # the source itself, as it is
    assert not refused and "DOS line breaks" in message
