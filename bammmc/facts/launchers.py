"""Facts of the launchers a job's body calls to start its tasks (`srun`, `flux run`, `aprun`,
`pbsdsh`, `mpiexec` …): which scheduler each belongs to, how its options read, and what a
bare one starts. Read by :mod:`bammmc.ir.launchers`, which rewrites a launcher line for the
target scheduler.

Sources (each launcher's own parser, read at the commits named):

- srun: SchedMD/slurm `doc/man/man1/srun.1`, `src/common/slurm_opt.c` (getopt_long with a `+`
  optstring: options end at the first word that is not one; `--` ends them too),
  `src/srun/srun_job.c` `_set_ntasks`: inside a batch job srun reads `SLURM_NTASKS`,
  `SLURM_NNODES`, `SLURM_CPUS_PER_TASK` as its `-n`, `-N`, `-c`, so a bare `srun prog` starts
  the job's tasks, each with the job's CPUs per task.
- flux run: flux-framework/flux-core `doc/man1/flux-run.rst`, `src/bindings/python/flux/cli/
  base.py` (argparse, posix: options end at the first word that is not one; no abbreviation):
  "If --ntasks is unspecified, a value of N=1 is assumed", so a bare `flux run prog` is one
  task; `-c` is cores per task, `-g` GPUs per task.
- mpiexec: the MPI standard (MPI-4.0 §11.5.1, "mpiexec -n <maxprocs> … <command>"), which Open
  MPI's `mpirun`/`mpiexec` (open-mpi/ompi `docs/man-openmpi/man1/mpirun.1.rst`) and MPICH's Hydra
  (`src/pm/hydra/mansrc/mpiexec.adoc`) both take. Under a scheduler integration (Open MPI's
  gridengine, tm, lsf and slurm components; Hydra's sge, pbs, lsf, slurm) it starts its ranks
  on the job's slots: the launcher of the schedulers that have none of their own.
- aprun: HPE Cray "Run Applications Using the aprun Command" (`-n` PEs, `-N` PEs per node, `-d`
  CPUs per PE; without `-n`, one PE).
- pbsdsh: openpbs/openpbs `doc/man1/pbsdsh.1B` ("runs one task for each line in the
  $PBS_NODEFILE"; `--` before the program on Linux), adaptivecomputing/torque
  `doc/man1/pbsdsh.1.in` (`-u`: once per node).
- blaunch: IBM LSF 10.1 blaunch(8): "When no host names are specified, LSF runs tasks on all
  allocated hosts, one remote task per job slot."
- ibrun: TACC's Slurm wrapper (TACC/TACC-Docs `docs/hpc/3stampede/launching.md`): "your Slurm
  #SBATCH directives will determine the number of ranks".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Launcher:
    """How one launcher's command line reads."""

    #: the command's words before its options (`flux run` is two)
    name: tuple[str, ...]
    #: the schedulers it belongs to: there it is kept as written
    home: frozenset[str]
    #: option -> the geometry it gives (`tasks`, `nodes`, `per_node`, `cpus`, `gpus`)
    geometry: dict[str, str]
    #: options that take the next word as their value (when not written `--opt=value`)
    values: frozenset[str]
    #: options that only tune how the tasks are placed, bound or logged: left out of the
    #: rewritten line, and named in its report
    hints: frozenset[str]
    #: flags (no value) that are hints
    hint_flags: frozenset[str]
    #: what a bare one starts: `job` (the job's tasks, as the scheduler laid them out) or
    #: `one` (a single task)
    default: str
    #: short options whose value may be attached (`-n4`)
    attached: bool = True


SRUN: Final = Launcher(
    name=("srun",),
    home=frozenset({"slurm"}),
    geometry={
        "-n": "tasks",
        "--ntasks": "tasks",
        "-N": "nodes",
        "--nodes": "nodes",
        "--ntasks-per-node": "per_node",
        "--tasks-per-node": "per_node",
        "-c": "cpus",
        "--cpus-per-task": "cpus",
        "--gpus-per-task": "gpus",
    },
    values=frozenset(
        {
            *("-n", "--ntasks", "-N", "--nodes", "--ntasks-per-node", "--tasks-per-node"),
            *("-c", "--cpus-per-task", "--gpus-per-task", "-m", "--distribution"),
            *("--cpu-bind", "--mem-bind", "--gpu-bind", "--mpi", "--hint", "--cpu-freq"),
            *("-W", "--wait", "--threads-per-core", "--export", "--accel-bind"),
        }
    ),
    hints=frozenset(
        {
            *("-m", "--distribution", "--cpu-bind", "--mem-bind", "--gpu-bind", "--mpi"),
            *("--hint", "--cpu-freq", "-W", "--wait", "--threads-per-core", "--accel-bind"),
            *("--exclusive", "--kill-on-bad-exit", "-K", "--overlap", "--export"),
        }
    ),
    hint_flags=frozenset(
        {
            *("-l", "--label", "-u", "--unbuffered", "-Q", "--quiet", "-v", "--verbose"),
            *("--exact", "--whole", "--exclusive", "--overlap", "-K", "--kill-on-bad-exit"),
        }
    ),
    default="job",
)

FLUX_RUN: Final = Launcher(
    name=("flux", "run"),
    home=frozenset({"flux", "flux-batch"}),
    geometry={
        "-n": "tasks",
        "--ntasks": "tasks",
        "-N": "nodes",
        "--nodes": "nodes",
        "--tasks-per-node": "per_node",
        "-c": "cpus",
        "--cores-per-task": "cpus",
        "-g": "gpus",
        "--gpus-per-task": "gpus",
    },
    values=frozenset(
        {
            *("-n", "--ntasks", "-N", "--nodes", "--tasks-per-node", "-c", "--cores-per-task"),
            *("-g", "--gpus-per-task", "-o", "--setopt", "--taskmap"),
        }
    ),
    hints=frozenset({"-o", "--setopt", "--taskmap"}),
    hint_flags=frozenset({"-l", "--label-io", "-v", "--verbose", "-u", "--unbuffered"}),
    default="one",
)

APRUN: Final = Launcher(
    name=("aprun",),
    home=frozenset({"pbs", "torque"}),
    geometry={"-n": "tasks", "-N": "per_node", "-d": "cpus"},
    values=frozenset({"-n", "-N", "-d", "-cc", "-j", "-S"}),
    hints=frozenset({"-cc", "-j", "-S"}),
    hint_flags=frozenset({"-q", "-b", "-ss"}),
    default="one",
    attached=False,
)

PBSDSH: Final = Launcher(
    name=("pbsdsh",),
    home=frozenset({"pbs", "torque"}),
    geometry={},
    values=frozenset(),
    hints=frozenset(),
    hint_flags=frozenset({"-s", "-v"}),
    default="job",
)

BLAUNCH: Final = Launcher(
    name=("blaunch",),
    home=frozenset({"lsf"}),
    geometry={},
    values=frozenset(),
    hints=frozenset(),
    hint_flags=frozenset({"-use-login-shell", "-no-shell"}),
    default="job",
)

IBRUN: Final = Launcher(
    name=("ibrun",),
    home=frozenset({"slurm"}),
    geometry={"-n": "tasks"},
    values=frozenset({"-n"}),
    hints=frozenset(),
    hint_flags=frozenset(),
    default="job",
    attached=False,
)

#: the launchers a body can call, by their first word (`flux` is `flux run` only)
LAUNCHERS: Final = {
    launcher.name[0]: launcher for launcher in (SRUN, FLUX_RUN, APRUN, PBSDSH, BLAUNCH, IBRUN)
}

#: launchers kept on every target, and why: the MPI's own, which its scheduler integration
#: places on the job's slots wherever the job runs
MPI_LAUNCHERS: Final = frozenset({"mpirun", "mpiexec"})

#: launchers of one scheduler that have no counterpart a line can be rewritten to: kept, and
#: reported on another target
UNMAPPED: Final = {
    "jsrun": (
        frozenset({"lsf"}),
        "IBM's jsrun lays tasks out in resource sets (`-n` sets × `-a` tasks)",
    ),
    "qrsh": (frozenset({"sge"}), "`qrsh -inherit` starts a task on one named host of the job"),
}

#: the target's own launcher: the words of a rewritten line before its geometry
TARGET_LAUNCHER: Final = {
    "slurm": "srun",
    "flux": "flux run",
    "flux-batch": "flux run",
}
#: the launcher written for a target without one of its own (MPI-4.0 §11.5.1)
MPIEXEC: Final = "mpiexec"
