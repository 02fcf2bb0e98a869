"""Scheduler variables of a body on another scheduler (issue 20 item 3): each documented
variable is defined from the target's own, from the value the job decides, or reported; none is
left undefined in silence. Expected values are the documenting scheduler's rules
(bammmc/facts/variables.py, with sources); tests/behaviour's `*-variables` rows run them on the
real Slurm and Grid Engine."""

from __future__ import annotations

import pytest

import bammmc
from bammmc.diagnostics.model import Diagnostic
from bammmc.facts.variables import DOCUMENTED, FAMILY, RULES, STATIC
from bammmc.ir.envvars import MARKER, VARIABLES, static_value

SH = "#!/bin/bash\n"
TARGETS = ("slurm", "pbs", "torque", "sge", "lsf", "flux-batch", "flux", "htcondor")


def _block(out: str) -> str:
    return (
        out.split(MARKER, 1)[1].split("# bammmc: end of variables", 1)[0] if MARKER in out else ""
    )


def _convert(text: str, src: str, target: str) -> tuple[str | None, list[Diagnostic]]:
    """Every file the target writes, as one text (HTCondor's script is a file of its own)."""
    files, diags = bammmc.convert_files(text, src, target)
    return ("\n".join(t for _, t in files) if files is not None else None), diags


# (source format, job, target, lines the block must hold)
ROWS = [
    # sbatch(1): -n, -c, the array's bounds and step
    (
        "slurm",
        "#SBATCH -n 4 -c 2\n#SBATCH --array=1-9:4\n"
        "echo $SLURM_NTASKS $SLURM_CPUS_PER_TASK $SLURM_ARRAY_TASK_COUNT $SLURM_ARRAY_TASK_MAX"
        " $SLURM_ARRAY_TASK_STEP\n",
        "sge",
        [
            "export SLURM_NTASKS=4",
            "export SLURM_CPUS_PER_TASK=2",
            "export SLURM_ARRAY_TASK_COUNT=3",
            "export SLURM_ARRAY_TASK_MAX=9",
            "export SLURM_ARRAY_TASK_STEP=4",
        ],
    ),
    # one task is on one node, whatever its CPUs
    ("slurm", "#SBATCH -c 4\necho $SLURM_JOB_NUM_NODES\n", "pbs", ["export SLURM_JOB_NUM_NODES=1"]),
    # tasks the scheduler places: the target's own count of hosts
    (
        "slurm",
        "#SBATCH -n 8\necho $SLURM_JOB_NUM_NODES\n",
        "sge",
        ['export SLURM_JOB_NUM_NODES="${NHOSTS}"'],
    ),
    # sbatch(1): SLURM_NNODES is SLURM_JOB_NUM_NODES; SLURM_JOBID is SLURM_JOB_ID
    ("slurm", "echo $SLURM_JOBID\n", "sge", ['export SLURM_JOBID="${JOB_ID}"']),
    # a list of indices has step 1 (the Slurm oracle: `--array=1,3,8` gives STEP=1)
    (
        "slurm",
        "#SBATCH -a 1,3,8\necho $SLURM_ARRAY_TASK_STEP\n",
        "pbs",
        ["export SLURM_ARRAY_TASK_STEP=1"],
    ),
    (
        "slurm",
        "#SBATCH -n 8\necho $SLURM_NNODES\n",
        "pbs",
        ['export SLURM_NNODES="$(sort -u "$PBS_NODEFILE" | wc -l)"'],
    ),
    # Grid Engine: slots are tasks × CPUs; -t's range
    (
        "sge",
        "#$ -pe smp 4\n#$ -t 2-7:2\necho $NSLOTS $NHOSTS $SGE_TASK_FIRST $SGE_TASK_LAST\n",
        "slurm",
        [
            "export NSLOTS=4",
            "export NHOSTS=1",
            "export SGE_TASK_FIRST=2",
            # -t 2-7:2 runs 2, 4, 6: the last index is 6
            "export SGE_TASK_LAST=6",
        ],
    ),
    # outside an array Grid Engine sets the range to `undefined` (sge.md §4)
    ("sge", "echo $SGE_TASK_FIRST\n", "slurm", ["export SGE_TASK_FIRST=undefined"]),
    # Torque: PBS_NP is nodes × ppn
    (
        "torque",
        "#PBS -l nodes=2:ppn=4\necho $PBS_NP $PBS_NUM_NODES $PBS_NUM_PPN\n",
        "slurm",
        ["export PBS_NP=8", "export PBS_NUM_NODES=2", "export PBS_NUM_PPN=4"],
    ),
    (
        "torque",
        "#PBS -l walltime=01:00:00\necho $PBS_WALLTIME\n",
        "sge",
        ["export PBS_WALLTIME=3600"],
    ),
    # PBS Pro: NCPUS is the chunk's ncpus
    ("pbs", "#PBS -l select=1:ncpus=6\necho $NCPUS\n", "slurm", ["export NCPUS=6"]),
    (
        "pbs",
        "#PBS -l select=2:ncpus=8:mpiprocs=4\necho $NCPUS\n",
        "slurm",
        ["export NCPUS=8"],
    ),
    # LSF: slots are -n
    ("lsf", "#BSUB -n 6\necho $LSB_DJOB_NUMPROC\n", "sge", ["export LSB_DJOB_NUMPROC=6"]),
    # the submit side's own values
    ("pbs", "cd $PBS_O_HOME\n", "slurm", ['export PBS_O_HOME="${HOME}"']),
    ("sge", "echo $SGE_O_PATH\n", "lsf", ['export SGE_O_PATH="${PATH}"']),
    # a value a shell would split is quoted
    (
        "slurm",
        "#SBATCH -A 'my proj'\necho $SLURM_JOB_ACCOUNT\n",
        "pbs",
        ["export SLURM_JOB_ACCOUNT='my proj'"],
    ),
]


@pytest.mark.parametrize(("src", "job", "target", "lines"), ROWS)
def test_a_variable_is_defined_with_the_value_its_scheduler_gives(
    src: str, job: str, target: str, lines: list[str]
) -> None:
    out, diags = _convert(SH + job, src, target)
    assert out is not None, [d.message for d in diags]
    block = _block(out).splitlines()
    for line in lines:
        assert line in block, out


def test_a_csh_script_gets_setenv_with_the_value() -> None:
    out, _ = bammmc.convert("#!/bin/csh\n#SBATCH -n 3\necho $SLURM_NTASKS\n", "slurm", "sge")
    assert out is not None and "setenv SLURM_NTASKS 3" in _block(out).splitlines(), out


def test_what_the_job_does_not_have_stays_unset_with_a_note() -> None:
    out, diags = bammmc.convert(
        SH + "echo $SLURM_ARRAY_TASK_COUNT $SLURM_JOB_QOS\n", "slurm", "sge"
    )
    assert out is not None and MARKER not in out
    notes = {d.message.split(": ", 1)[1] for d in diags if d.code == "N003"}
    assert "`$SLURM_ARRAY_TASK_COUNT` stays unset, as Slurm leaves it for this job" in notes
    assert "`$SLURM_JOB_QOS` stays unset, as Slurm leaves it for this job" in notes


def test_a_target_that_writes_no_array_reports_the_bounds() -> None:
    # Flux copies a jobspec with `--cc`: the copies are not one array with a count
    out, diags = bammmc.convert(
        SH + "#SBATCH --array=1-4\necho $SLURM_ARRAY_TASK_COUNT\n", "slurm", "flux-batch"
    )
    assert out is not None and "SLURM_ARRAY_TASK_COUNT=" not in out
    (warn,) = [d for d in diags if "SLURM_ARRAY_TASK_COUNT" in d.message]
    assert warn.code == "W301" and "no equivalent" in warn.message


def test_an_undocumented_name_with_a_schedulers_prefix_is_reported() -> None:
    out, diags = bammmc.convert(SH + "echo $SLURM_MY_OWN $PBS_THING\n", "slurm", "sge")
    assert out is not None
    warned = {d.message.split("`")[3] for d in diags if d.code == "W301"}
    assert {"$SLURM_MY_OWN", "$PBS_THING"} <= warned
    assert any(
        d.span is not None and d.span.line == 2 and "SLURM_MY_OWN" in d.message for d in diags
    )
    # a heterogeneous job's copy of a documented variable is documented (sbatch(1))
    _, diags = bammmc.convert(SH + "echo $SLURM_JOB_NODELIST_HET_GROUP_1\n", "slurm", "sge")
    (het,) = [d for d in diags if "HET_GROUP" in d.message]
    assert "(Slurm's) has no equivalent" in het.message
    # one the body sets itself is its own
    out, diags = bammmc.convert(SH + "SLURM_MY_OWN=1\necho $SLURM_MY_OWN\n", "slurm", "sge")
    assert not [d for d in diags if "SLURM_MY_OWN" in d.message]


def test_a_body_with_nothing_foreign_is_untouched() -> None:
    body = "export OMP_NUM_THREADS=4\ncd $TMPDIR\necho $HOME $PATH\n"
    for target in TARGETS:
        out, diags = _convert(SH + body, "slurm", target)
        assert out is not None and MARKER not in out, target
        assert not [d for d in diags if d.field == "spec.execution.script"], target


@pytest.mark.parametrize("target", TARGETS)
def test_no_documented_variable_is_left_undefined_in_silence(target: str) -> None:
    """A body that reads every variable every scheduler documents: each foreign one is defined
    in the block, or named by a diagnostic (N003 unset / W301)."""
    fam = FAMILY.get(target, target)
    names = sorted({n for s, ns in DOCUMENTED.items() for n in ns} - {"TMPDIR", "TMP"})
    body = "".join(f'echo "${{{n}}}"\n' for n in names)
    out, diags = _convert(SH + "#SBATCH -n 2\n" + body, "slurm", target)
    assert out is not None
    own = DOCUMENTED.get(fam, frozenset()) | {v[target] for v in VARIABLES.values() if target in v}
    said = " ".join(d.message for d in diags if d.field == "spec.execution.script")
    for name in names:
        if name in own or name in ("OMP_NUM_THREADS", "HOME", "PATH", "HOSTNAME"):
            continue
        defined = f"export {name}=" in out
        assert defined or f"`${name}`" in said, (target, name)


def test_every_static_rule_is_documented_and_answers() -> None:
    from bammmc.ir.job import Spec

    for name, (scheduler, rule) in STATIC.items():
        assert name in DOCUMENTED[scheduler], name
        assert rule in RULES, rule
        static_value(rule, Spec())  # no rule raises on an empty job
    assert static_value("ntasks", None) == "1"
