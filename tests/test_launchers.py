"""Launcher lines of a body, rewritten for the target (bammmc/ir/launchers.py): one row per
launcher and target, the expected line from each launcher's own documentation.

- srun.1 (INPUT ENVIRONMENT VARIABLES): inside a batch job srun takes `SLURM_NTASKS`,
  `SLURM_NNODES` and `SLURM_CPUS_PER_TASK` as its `-n`, `-N`, `-c`: a bare `srun` starts the
  job's tasks with the job's CPUs per task.
- flux-run(1): "If --ntasks is unspecified, a value of N=1 is assumed"; `-N n` alone is n tasks.
- aprun: `-n` PEs, `-N` PEs per node, `-d` CPUs per PE.
- pbsdsh.1B: "runs one task for each line in the $PBS_NODEFILE" (one per MPI rank).
- blaunch(8): "one remote task per job slot" when no host is named.
- MPI-4.0 §11.5.1: `mpiexec -n <maxprocs> <command>`, the launcher of the schedulers without one.
"""

from __future__ import annotations

import pytest

import bammmc
from bammmc.diagnostics.model import Diagnostic

SCRIPT = "spec.execution.script"
SLURM = "#!/bin/bash\n#SBATCH -N 2 --ntasks-per-node=4 -c 2 -t 10\n"
SLURM_ONE = "#!/bin/bash\n#SBATCH -n 1 -t 10\n"
FLUX = "#!/bin/bash\n#flux: -N 2 -n 8 -c 2 -t 10m\n"
PBS = "#!/bin/bash\n#PBS -l select=2:ncpus=8:mpiprocs=4\n#PBS -l walltime=00:10:00\n"
LSF = "#!/bin/bash\n#BSUB -n 8\n#BSUB -W 10\n"


def _body(out: str, fmt: str) -> list[str]:
    """The lines of the written script after its directives and compatibility block."""
    prefixes = {"slurm": "#SBATCH", "sge": "#$", "pbs": "#PBS", "torque": "#PBS"}
    prefixes |= {"lsf": "#BSUB", "flux-batch": "#flux:"}
    own = prefixes.get(fmt, "#")
    return [
        line
        for line in out.splitlines()
        if line and not line.startswith(("#!", own, "# bammmc", "export ", ": # bammmc"))
    ]


def _script(diags: list[Diagnostic]) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in diags if d.field == SCRIPT]


def _convert(text: str, src: str, dst: str) -> tuple[list[str], list[tuple[str, str]]]:
    out, diags = bammmc.convert(text, src, dst)
    assert out is not None, diags
    if dst == "htcondor":  # the script is the second file
        from bammmc.backends.htcondor import write
        from bammmc.diagnostics.model import Reporter

        job, _ = bammmc.parse(text, src)
        assert job is not None
        files = write(job, Reporter(None))
        out = files[-1].text
    return _body(out, dst), _script(diags)


ROWS = [
    # (id, source, format, target, written line, code of its report)
    ("srun-sge", SLURM + "srun ./a\n", "slurm", "sge", "mpiexec -n 8 ./a", "W301"),
    ("srun-pbs", SLURM + "srun ./a\n", "slurm", "pbs", "mpiexec -n 8 ./a", "W301"),
    ("srun-torque", SLURM + "srun ./a\n", "slurm", "torque", "mpiexec -n 8 ./a", "W301"),
    ("srun-lsf", SLURM + "srun ./a\n", "slurm", "lsf", "mpiexec -n 8 ./a", "W301"),
    ("srun-htcondor", SLURM_ONE + "srun ./a\n", "slurm", "htcondor", "./a", "N003"),
    (
        "srun-flux",
        SLURM + "srun ./a\n",
        "slurm",
        "flux-batch",
        "flux run -n 8 -N 2 -c 2 ./a",
        "N003",
    ),
    ("srun-n-sge", SLURM + "srun -n 4 ./a x\n", "slurm", "sge", "mpiexec -n 4 ./a x", "W301"),
    ("srun-attached", SLURM + "srun -n4 ./a\n", "slurm", "lsf", "mpiexec -n 4 ./a", "W301"),
    ("srun-one", SLURM + "srun -n 1 ./prep\n", "slurm", "pbs", "./prep", "N003"),
    (
        "srun-flux-n",
        SLURM + "srun --ntasks=3 -c 1 ./a\n",
        "slurm",
        "flux-batch",
        "flux run -n 3 -c 1 ./a",
        "N003",
    ),
    ("srun-time", SLURM + "time srun ./a\n", "slurm", "sge", "time mpiexec -n 8 ./a", "W301"),
    ("srun-pipe", SLURM + "srun ./a | sort\n", "slurm", "sge", "mpiexec -n 8 ./a | sort", "W301"),
    (
        "srun-bind",
        SLURM + "srun --cpu-bind=cores ./a\n",
        "slurm",
        "flux-batch",
        "flux run -n 8 -N 2 -c 2 ./a",
        "W301",
    ),
    ("flux-run-slurm", FLUX + "flux run ./a\n", "flux-batch", "slurm", "srun -n 1 ./a", "N003"),
    (
        "flux-run-n-slurm",
        FLUX + "flux run -n 8 -c 2 ./a\n",
        "flux-batch",
        "slurm",
        "srun -n 8 -c 2 ./a",
        "N003",
    ),
    (
        "flux-run-N-slurm",
        FLUX + "flux run -N 2 ./a\n",
        "flux-batch",
        "slurm",
        "srun -n 2 -N 2 ./a",
        "N003",
    ),
    ("flux-run-sge", FLUX + "flux run -n 8 ./a\n", "flux-batch", "sge", "mpiexec -n 8 ./a", "W301"),
    ("flux-run-one-sge", FLUX + "flux run ./a\n", "flux-batch", "sge", "./a", "N003"),
    (
        "aprun-slurm",
        PBS + "aprun -n 8 -N 4 -d 2 ./a\n",
        "pbs",
        "slurm",
        "srun -n 8 --ntasks-per-node=4 -c 2 ./a",
        "N003",
    ),
    ("pbsdsh-slurm", PBS + "pbsdsh -- hostname\n", "pbs", "slurm", "srun hostname", "N003"),
    ("blaunch-slurm", LSF + "blaunch hostname\n", "lsf", "slurm", "srun hostname", "N003"),
    (
        "blaunch-flux",
        LSF + "blaunch hostname\n",
        "lsf",
        "flux-batch",
        "flux run -n 8 hostname",
        "N003",
    ),
]


@pytest.mark.parametrize(
    ("text", "src", "dst", "line", "code"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS]
)
def test_launcher_line_is_written_for_the_target(
    text: str, src: str, dst: str, line: str, code: str
) -> None:
    body, reports = _convert(text, src, dst)
    assert body[-1] == line
    assert [c for c, _ in reports if "is written" in _] == [code]


def test_mpiexec_report_says_what_the_target_needs() -> None:
    """A target without a launcher of its own gets the MPI's: the report says which, and that
    the MPI must be there; what it cannot say (nodes, tasks per node) is named."""
    _, reports = _convert(SLURM + "srun -N 2 --ntasks-per-node=4 ./a\n", "slurm", "sge")
    ((code, message),) = [r for r in reports if "is written" in r[1]]
    assert code == "W301"
    assert message == (
        "`srun -N 2 --ntasks-per-node=4 ./a` is written `mpiexec -n 8 ./a`: Grid Engine has "
        "no launcher of its own; it leaves out `2 nodes`, `4 tasks per node`"
    )


KEPT = [
    # (id, body, target, why the line is kept)
    (
        "multi-prog",
        "srun --multi-prog tasks.conf\n",
        "sge",
        "`--multi-prog` has no counterpart in `mpiexec`",
    ),
    ("options-in-variable", "srun $OPTS ./a\n", "pbs", "`$OPTS` may hold options"),
    ("mpmd", "srun -n 1 ./a : -n 2 ./b\n", "lsf", "several programs"),
    ("no-program", "srun\n", "sge", "it starts no program"),
    ("flux-multi-prog", "srun --multi-prog c\n", "flux-batch", "in `flux run`"),
]


@pytest.mark.parametrize(("body", "dst", "why"), [k[1:] for k in KEPT], ids=[k[0] for k in KEPT])
def test_line_that_cannot_be_rewritten_is_kept_and_reported(body: str, dst: str, why: str) -> None:
    lines, reports = _convert(SLURM + body, "slurm", dst)
    assert lines[-1] == body.strip()
    ((code, message),) = [r for r in reports if "kept as written" in r[1]]
    assert code == "W301" and why in message


UNTOUCHED = [
    # (id, source, format, target): no line changes and nothing is reported about launchers
    ("slurm-on-slurm", SLURM + "srun -n 4 ./a\n", "slurm", "slurm"),
    ("flux-on-flux", FLUX + "flux run -n 2 ./a\n", "flux-batch", "flux-batch"),
    ("mpirun", SLURM + "mpirun -np 8 ./a\n", "slurm", "sge"),
    ("mpiexec", PBS + "mpiexec -n 8 ./a\n", "pbs", "slurm"),
    ("comment", SLURM + "# srun ./a\necho done\n", "slurm", "sge"),
    ("string", SLURM + "echo 'srun ./a'\n", "slurm", "sge"),
    ("heredoc", SLURM + "cat > x.sh <<'EOF'\nsrun ./a\nEOF\n", "slurm", "sge"),
    (
        "guarded",
        SLURM + "if command -v srun >/dev/null; then srun ./a; else ./a; fi\n",
        "slurm",
        "sge",
    ),
    ("csh", "#!/bin/csh\n#SBATCH -n 4\nsrun ./a\n", "slurm", "sge"),
    ("word-srun", SLURM + "echo srun ./a\n", "slurm", "pbs"),
]


@pytest.mark.parametrize(
    ("text", "src", "dst"), [u[1:] for u in UNTOUCHED], ids=[u[0] for u in UNTOUCHED]
)
def test_line_that_is_not_a_foreign_launcher_is_kept_silently(
    text: str, src: str, dst: str
) -> None:
    out, diags = bammmc.convert(text, src, dst)
    assert out is not None
    body = text.split("\n", 1)[1]
    for line in body.splitlines():
        if not line.startswith(("#SBATCH", "#flux:", "#PBS")):
            assert line in out.splitlines()
    assert not [d for d in diags if d.field == SCRIPT and ("written" in d.message)]


def test_continued_line_keeps_its_program_on_its_own_line() -> None:
    body, reports = _convert(SLURM + "srun -n 8 \\\n    ./a \\\n    --x 1\n", "slurm", "sge")
    assert body[-3:] == ["mpiexec -n 8 \\", "    ./a \\", "    --x 1"]
    assert [c for c, m in reports if "is written" in m] == ["W301"]


def test_no_rewrite_body_keeps_the_line_and_says_what_it_would_be() -> None:
    from click.testing import CliRunner

    from bammmc.cli import main

    r = CliRunner().invoke(
        main,
        ["-", "--from", "slurm", "--to", "sge", "--no-rewrite-body"],
        input=SLURM + "srun ./a\n",
    )
    assert r.exit_code == 0, r.output
    assert r.stdout.endswith("\nsrun ./a\n")
    assert "PBS" not in r.stderr and "Grid Engine has no `srun`" in r.stderr
    assert "written for Grid Engine it would be `mpiexec -n 8 ./a`" in r.stderr


def test_report_points_at_the_line_of_the_source_file() -> None:
    _, diags = bammmc.convert(SLURM + "echo start\n  srun ./a\n", "slurm", "sge")
    ((d,),) = [[d for d in diags if d.field == SCRIPT and "is written" in d.message]]
    assert d.span is not None and (d.span.line, d.span.column) == (4, 3)


def test_explain_shows_the_line_before_and_after() -> None:
    from bammmc import explain
    from bammmc.diagnostics.model import Reporter
    from bammmc.pipeline import compile_text, emit_job, get_format

    text = SLURM + "srun ./a\n"
    r = Reporter("job.sh")
    (compiled,) = compile_text(text, get_format("slurm"), r)
    assert compiled.job is not None
    emit_job(compiled.job, get_format("sge"), r, compiled.source_map)
    rows = explain.rows(compiled, "sge", r.diagnostics, source=text, file="job.sh")
    (row,) = [row for row in rows if row["field"] == SCRIPT]
    assert (row["source"], row["got"], row["status"]) == (
        "srun ./a",
        "mpiexec -n 8 ./a",
        "approximated",
    )
    assert row["line"] == 3
