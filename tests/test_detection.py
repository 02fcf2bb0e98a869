"""The format bammmc reads is the format the file is written in (issue #18, item 2).

Content beats the extension when they disagree decisively (the file holds none of the
extension's format's markers and those of exactly one other format; a `.pbs`/`.qsub` file with
Torque-only constructs is Torque), with N002; `--from FORMAT` on a file written for another
scheduler is E019 with a did-you-mean, in `convert` and in `check`. docs/cli.md states the rule.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import bammmc
from bammmc.cli import main
from bammmc.diagnostics.model import Reporter
from bammmc.registry import by_extension, detect
from tests.conftest import CORPUS

SBATCH = "#!/bin/bash\n#SBATCH --ntasks=4\n#SBATCH --time=1:00:00\nsrun hostname\n"
TORQUE = "#!/bin/bash\n#PBS -l nodes=2:ppn=4\n#PBS -l walltime=1:00:00\nhostname\n"
PBSPRO = "#!/bin/bash\n#PBS -l select=2:ncpus=4\n#PBS -l walltime=1:00:00\nhostname\n"
SUBMIT = "executable = run.sh\nrequest_cpus = 4\nqueue\n"
BSUB = "#!/bin/bash\n#BSUB -n 4\n#BSUB -W 60\nhostname\n"
SGE = "#!/bin/bash\n#$ -pe smp 4\n#$ -l h_rt=3600\nhostname\n"


def detected(name: str, text: str) -> tuple[str | None, list[str]]:
    reporter = Reporter(name)
    fmt = detect(name, text, reporter)
    return (fmt.name if fmt else None), [d.code for d in reporter.diagnostics]


@pytest.mark.parametrize(
    ("name", "text", "expected", "diags"),
    [
        # the extension is right: no note
        ("job.sbatch", SBATCH, "slurm", []),
        ("job.sub", SUBMIT, "htcondor", []),
        ("job.pbs", PBSPRO, "pbs", []),
        ("job.lsf", BSUB, "lsf", []),
        ("job.sge", SGE, "sge", []),
        # content beats the extension
        ("run.sub", SBATCH, "slurm", ["N002"]),
        ("run.submit", BSUB, "lsf", ["N002"]),
        ("run.pbs", SBATCH, "slurm", ["N002"]),
        ("run.sbatch", BSUB, "lsf", ["N002"]),
        ("run.lsf", SGE, "sge", ["N002"]),
        ("run.pbs", TORQUE, "torque", ["N002"]),
        (
            "run.qsub",
            TORQUE.replace("nodes=2:ppn=4", "nodes=1") + "#PBS -t 1-4\n",
            "torque",
            ["N002"],
        ),
        # the extension's own markers stay decisive: foreign lines are the reader's W404
        ("mixed.sbatch", SBATCH + "#PBS -N x\n", "slurm", []),
        ("mixed.lsf", BSUB.replace("#!/bin/bash\n", "#!/bin/bash\n#SBATCH -n 2\n"), "lsf", []),
        # no markers at all, or of two others: the extension stands
        ("plain.sub", "#!/bin/bash\nhostname\n", "htcondor", []),
        ("two.sub", SBATCH.replace("srun", "#$ -pe smp 2\nsrun"), "htcondor", []),
        # `#BSUB` lines in a Slurm script are foreign there (W404): it is a Slurm script
        ("foreign.sub", SBATCH + "#BSUB -n 2\n", "slurm", ["N002"]),
        # a PBS Pro `.pbs` file stays PBS Pro; a `.torque` file stays Torque
        ("pro.torque", PBSPRO, "torque", []),
    ],
)
def test_detection(name: str, text: str, expected: str, diags: list[str]) -> None:
    assert detected(name, text) == (expected, diags)


def test_the_note_says_why_and_how_to_read_otherwise() -> None:
    reporter = Reporter("run.sub")
    detect("run.sub", SBATCH, reporter)
    (note,) = reporter.diagnostics
    assert note.severity == "note"
    assert "`#SBATCH` lines" in note.message and "`.sub`" in note.message
    reporter = Reporter("run.pbs")
    detect("run.pbs", TORQUE, reporter)
    assert "--from pbs" in (reporter.diagnostics[0].help or "")


def _manifest() -> list[tuple[Path, str]]:
    path = CORPUS / "MANIFEST.tsv"
    if not path.is_file():
        return []
    rows = csv.DictReader(path.open(encoding="utf-8"), delimiter="\t")
    return [(CORPUS / r["file"], r["format"]) for r in rows if (CORPUS / r["file"]).is_file()]


@pytest.mark.skipif(not _manifest(), reason="../shared/corpus is not here")
def test_real_files_whose_extension_misleads() -> None:
    """The corpus files named for another format (a PBS job `.sub`, Torque jobs `.pbs`, an LSF
    job `.submit`) read as the format MANIFEST.tsv gives, by content; every other file with a
    known extension reads as its extension says."""
    fixed = []
    for path, fmt in _manifest():
        ext = by_extension(path.name)
        if ext is None or fmt not in ("slurm", "pbs", "torque", "lsf", "sge", "htcondor"):
            continue
        got, diags = detected(path.name, path.read_bytes().decode("utf-8", "replace"))
        if ext.name != fmt and got == fmt:
            fixed.append(path.name)
            assert diags[-1:] == ["N002"]
        elif ext.family != fmt or (ext.name == "pbs" and fmt == "torque"):
            continue  # a Torque `.pbs` file without Torque-only constructs: PBS Pro (N001)
        else:
            assert got == ext.name, path
    assert {"isambard-vasp.sub", "ke-attached.pbs", "cern-batch-F-template.submit"} <= set(fixed)


# ── an explicit --from on a file written for another scheduler ───────────────────────────


def _run(*argv: str) -> tuple[int, list[dict[str, object]]]:
    result = CliRunner().invoke(main, [*argv, "--diagnostics", "json"], catch_exceptions=False)
    return result.exit_code, [json.loads(line) for line in result.stderr.splitlines() if line]


@pytest.mark.parametrize(
    ("given", "text", "meant"),
    [
        ("pbs", SBATCH, "slurm"),
        ("slurm", TORQUE, "torque"),
        ("slurm", PBSPRO, "pbs"),
        ("pbs", SGE, "sge"),
        ("htcondor", BSUB, "lsf"),
        ("lsf", SUBMIT, "htcondor"),
    ],
)
def test_from_another_format_is_an_error(given: str, text: str, meant: str, tmp_path: Path) -> None:
    src = tmp_path / "job.txt"
    src.write_text(text)
    for argv in (
        ("check", "--from", given, str(src)),
        (str(src), "--from", given, "--to", "splat"),
    ):
        status, diags = _run(*argv)
        assert status == 1 and [d["code"] for d in diags] == ["E019"], diags
        assert diags[0]["help"] == f"did you mean `--from {meant}`?"
    job, read = bammmc.parse(text, given)
    assert job is None and [d.code for d in read] == ["E019"]


@pytest.mark.parametrize(
    ("given", "text"),
    [
        ("slurm", "#!/bin/bash\nhostname\n"),  # no directives at all: a valid job
        ("pbs", TORQUE),  # one family: `--from pbs` on a Torque file reads it as PBS Pro
        ("torque", PBSPRO),
        ("lsf", BSUB + "#SBATCH -n 2\n"),  # its own markers are there
        ("slurm", SBATCH + "#PBS -N x\n"),
        # a `#PBS` line after the first command is no directive (qsub stops at the command)
        ("slurm", "#!/bin/bash\nhostname\n#PBS -l walltime=1:00:00\n"),
    ],
)
def test_from_is_obeyed_when_the_file_may_be_that_format(given: str, text: str) -> None:
    _, diags = bammmc.parse(text, given)
    assert "E019" not in [d.code for d in diags]
