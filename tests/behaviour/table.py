"""The behavioural table: one row per case, sqlglot-style. A row is a source job in a format,
the allocation its own scheduler gives it *as that scheduler documents it* (``want``, with the
rule and its source in ``why``), and the targets it is run on after conversion. A row that
fails today on a target says so in ``fails`` (a strict xfail: it must fail, with the reason,
until the fix lands and the mark goes).

Sheets cited: ``../shared/docs/formats/<format>.md`` (§ numbers), each with its sources."""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.behaviour.observe import PARSED, RUN, Alloc, Files

#: the targets a converted job runs on here, then those whose own parser reads it
#: (tests/behaviour/observe.py)
TARGETS = (*RUN, *PARSED)


@dataclass(frozen=True)
class Row:
    id: str
    fmt: str  #: the source format
    text: str
    want: Alloc
    why: str  #: the documented rules that give ``want``
    fails: dict[str, str] = field(default_factory=dict)  #: target → why it fails today
    files: Files = ()  #: files beside the job in its submit directory (a program it runs)

    def script(self) -> str:
        return self.text if self.text.endswith("\n") else self.text + "\n"


def _sh(*lines: str, body: str = "echo ok") -> str:
    return "\n".join(("#!/bin/bash", *lines, body)) + "\n"


G = 1024  # MiB
#: why a multi-node row cannot be an HTCondor job here
ONE_MACHINE = (
    "a vanilla universe job is one slot on one machine: its nodes become one (W201, W301); "
    "the parallel universe's `machine_count` needs a pool with a dedicated scheduler"
)
#: why GPUs per node shared by more slots cannot be a Flux batch job's
WHOLE_GPUS_PER_SLOT = "2 GPUs over 4 slots: Flux allocates whole GPUs per slot, 4 in all (W301)"
#: the body of an array row: the index the element sees, read back by the observer
INDEX = "echo index=$%s"
#: where the Slurm oracle unpacks Debian's Open MPI (`SLURM_ORACLE_OPENMPI=1`, its README)
OPENMPI = "/tmp/bammmc-slurm-run/openmpi"
#: the site's MPI, as `module load openmpi` gives it, beside a launcher row's job: on the Grid
#: Engine host the real Open MPI the Slurm oracle unpacked (its gridengine component reads
#: `$PE_HOSTFILE`); a Slurm job's PATH has the oracle's own mpiexec already (probe-bin).
#: Grid Engine starts the job's shell as a login shell, whose profile resets PATH: a site's
#: module, like this file, is loaded by the script itself.
MPI_ENV: Files = (
    (
        "mpi-env.sh",
        f"""if [ -z "$SLURM_JOB_ID" ] && [ -r {OPENMPI}/env ]; then
  . {OPENMPI}/env
  PATH={OPENMPI}/bin:$PATH
  LD_LIBRARY_PATH=$(cat {OPENMPI}/libpath)
  export PATH LD_LIBRARY_PATH
fi
""",
    ),
)
#: a launcher row's body: the site's MPI, then %s, a launcher line whose tasks print `rank`
LAUNCH = ". ./mpi-env.sh\n%s echo rank"


def probe(*names: str) -> str:
    """A body that prints each of its scheduler's variables as `var NAME=VALUE` (empty when
    unset), read back by the observer (`Alloc.printed`)."""
    return "\n".join(f'echo "var {n}=${n}"' for n in names)


def printed(**values: object) -> tuple[str, ...]:
    """The lines :func:`probe` prints when the variables have ``values``."""
    return tuple(sorted(f"var {n}={v}" for n, v in values.items()))


ROWS: tuple[Row, ...] = (
    # ---------------------------------------------------------------- Slurm (slurm.md §2)
    Row(
        "slurm-default-output",
        "slurm",
        _sh("#SBATCH -n 1 -t 5"),
        Alloc(tasks=1, walltime_s=300, outputs=("slurm-N.out",)),
        "sbatch(1) --output: without it both streams go to slurm-%j.out in the submit directory",
    ),
    Row(
        "slurm-tasks-cpus-mem-per-node",
        "slurm",
        _sh(
            "#SBATCH -J t1",
            "#SBATCH -n 4 -c 2 --mem=8G -t 10",
            "#SBATCH -o t1.out",
        ),
        Alloc(tasks=4, nodes=1, cpus_per_task=2, mem_mb=8 * G, walltime_s=600, outputs=("t1.out",)),
        "sbatch(1): --mem is per node; 8 CPUs fit one 16-CPU node, so Slurm gives one node",
    ),
    Row(
        "slurm-mem-per-cpu",
        "slurm",
        _sh("#SBATCH -n 8 --mem-per-cpu=2G -t 5", "#SBATCH -o m.out"),
        Alloc(tasks=8, nodes=1, cpus_per_task=1, mem_mb=16 * G, walltime_s=300, outputs=("m.out",)),
        "sbatch(1): --mem-per-cpu × allocated CPUs (8)",
    ),
    Row(
        "slurm-multi-node-mpi",
        "slurm",
        _sh(
            "#SBATCH -N 2 --ntasks-per-node=4 -c 2 --mem=16G -t 10",
            "#SBATCH -o mpi-%j.out",
            body=LAUNCH % "srun",
        ),
        Alloc(tasks=8, nodes=2, cpus_per_task=2, mem_mb=32 * G, outputs=("mpi-N.out",), ranks=8),
        "sbatch(1): -N 2 × --ntasks-per-node=4 tasks; --mem per node × 2; %j is the job id; "
        "srun.1: a bare srun starts the job's tasks (SLURM_NTASKS)",
        fails={"htcondor": ONE_MACHINE},
        files=MPI_ENV,
    ),
    Row(
        "slurm-gres-gpu",
        "slurm",
        _sh("#SBATCH -n 1 -c 8 --mem=32G --gres=gpu:2 -t 10", "#SBATCH -o g.out"),
        Alloc(tasks=1, nodes=1, cpus_per_task=8, mem_mb=32 * G, gpus=2, outputs=("g.out",)),
        "sbatch(1): --gres is per node; one node, so 2 GPUs in all",
        fails={
            "sge": "2 GPUs over 8 slots: Grid Engine counts "
            "a consumable per slot, in whole units (W201)"
        },
    ),
    Row(
        "slurm-gpus-per-task",
        "slurm",
        _sh("#SBATCH -n 2 --gpus-per-task=1 --mem=4G -t 5", "#SBATCH -o g.out"),
        Alloc(tasks=2, nodes=1, cpus_per_task=1, mem_mb=4 * G, gpus=2, outputs=("g.out",)),
        "sbatch(1): --gpus-per-task × tasks",
    ),
    Row(
        "slurm-array-step-throttle",
        "slurm",
        _sh(
            "#SBATCH --array=1-9:2%2 -t 5",
            "#SBATCH -o log-%A_%a.out",
            body=INDEX % "SLURM_ARRAY_TASK_ID",
        ),
        Alloc(
            tasks=1,
            array=(1, 3, 5, 7, 9),
            throttle=2,
            outputs=tuple(f"log-N_{i}.out" for i in (1, 3, 5, 7, 9)),
        ),
        "sbatch(1) --array: 1-9:2 is 1,3,5,7,9; %2 runs two at once; %A the array's id, %a "
        "the index",
    ),
    Row(
        "slurm-array-zero-based",
        "slurm",
        _sh("#SBATCH --array=0-3 -t 5", "#SBATCH -o a-%a.out", body=INDEX % "SLURM_ARRAY_TASK_ID"),
        Alloc(tasks=1, array=(0, 1, 2, 3), outputs=tuple(f"a-{i}.out" for i in range(4))),
        "sbatch(1) --array: indices from 0; Grid Engine's start at 1, so a writer shifts them "
        "(and names the files in the body: `-o` has no arithmetic)",
    ),
    Row(
        "slurm-variables",
        "slurm",
        _sh(
            "#SBATCH -n 2 -c 2 -t 5",
            "#SBATCH --array=1-5:2",
            "#SBATCH -o v-%A_%a.out",
            body=INDEX % "SLURM_ARRAY_TASK_ID"
            + "\n"
            + probe(
                "SLURM_NTASKS",
                "SLURM_CPUS_PER_TASK",
                "SLURM_JOB_NUM_NODES",
                "SLURM_ARRAY_TASK_COUNT",
                "SLURM_ARRAY_TASK_MIN",
                "SLURM_ARRAY_TASK_MAX",
                "SLURM_ARRAY_TASK_STEP",
            ),
        ),
        Alloc(
            tasks=2,
            cpus_per_task=2,
            array=(1, 3, 5),
            printed=printed(
                SLURM_NTASKS=2,
                SLURM_CPUS_PER_TASK=2,
                SLURM_JOB_NUM_NODES=1,
                SLURM_ARRAY_TASK_COUNT=3,
                SLURM_ARRAY_TASK_MIN=1,
                SLURM_ARRAY_TASK_MAX=5,
                SLURM_ARRAY_TASK_STEP=2,
            ),
        ),
        "sbatch(1) OUTPUT ENVIRONMENT VARIABLES (slurm.md §6): -n, -c, the array's count, "
        "lowest and highest index and step; 2 tasks of 2 CPUs fit on one node",
    ),
    # ---------------------------------------------------------------- PBS Pro (pbs.md §2)
    Row(
        "pbs-select-mpi",
        "pbs",
        _sh(
            "#PBS -N mpi",
            "#PBS -l select=2:ncpus=4:mpiprocs=4:mem=8gb",
            "#PBS -l walltime=00:10:00",
            "#PBS -o mpi.out",
            "#PBS -j oe",
        ),
        Alloc(
            tasks=8, nodes=2, cpus_per_task=1, mem_mb=16 * G, walltime_s=600, outputs=("mpi.out",)
        ),
        "pbs.md §2: 2 chunks of 4 CPUs and 4 MPI processes each; mem is per chunk; a relative "
        "-o is the submit directory's",
        fails={"htcondor": ONE_MACHINE},
    ),
    Row(
        "pbs-select-openmp",
        "pbs",
        _sh(
            "#PBS -N omp",
            "#PBS -l select=1:ncpus=8:ompthreads=8:mem=16gb",
            "#PBS -o omp.out -j oe",
        ),
        Alloc(tasks=1, nodes=1, cpus_per_task=8, mem_mb=16 * G, outputs=("omp.out",)),
        "pbs.md §2.1: mpiprocs defaults to 1, so one process with 8 CPUs",
    ),
    Row(
        "pbs-nodes-ppn",
        "pbs",
        _sh("#PBS -N old", "#PBS -l nodes=2:ppn=4", "#PBS -l mem=8gb", "#PBS -o old.out -j oe"),
        Alloc(tasks=8, nodes=2, cpus_per_task=1, mem_mb=8 * G, outputs=("old.out",)),
        "pbs.md §2: PBS Pro converts nodes=2:ppn=4 to select=2:ncpus=4:mpiprocs=4; a job-wide "
        "mem is the whole job's",
        fails={"htcondor": ONE_MACHINE},
    ),
    Row(
        "pbs-job-wide-ncpus-mem",
        "pbs",
        _sh("#PBS -N wide", "#PBS -l ncpus=4,mem=8gb", "#PBS -o wide.out -j oe"),
        Alloc(tasks=1, nodes=1, cpus_per_task=4, mem_mb=8 * G, outputs=("wide.out",)),
        "pbs.md §2: job-wide ncpus/mem become select=1:ncpus=4:mem=8gb (one process)",
    ),
    Row(
        "pbs-mem-in-bytes",
        "pbs",
        _sh("#PBS -N bytes", "#PBS -l select=1:ncpus=1:mem=1073741824", "#PBS -o b.out -j oe"),
        Alloc(tasks=1, nodes=1, mem_mb=1 * G, outputs=("b.out",)),
        "pbs.md §2.3: a size without a unit is bytes",
    ),
    Row(
        "pbs-ngpus",
        "pbs",
        _sh("#PBS -N gpu", "#PBS -l select=1:ncpus=4:ngpus=2:mem=8gb", "#PBS -o g.out -j oe"),
        Alloc(tasks=1, nodes=1, cpus_per_task=4, mem_mb=8 * G, gpus=2, outputs=("g.out",)),
        "pbs.md §2.1: ngpus is the site's conventional per-chunk GPU count",
        fails={
            "sge": "2 GPUs over 4 slots: Grid Engine counts "
            "a consumable per slot, in whole units (W201)"
        },
    ),
    Row(
        "pbs-csh-body",
        "pbs",
        "\n".join(
            (
                "#!/bin/csh",
                "#PBS -N csh",
                "#PBS -l select=1:ncpus=2",
                "#PBS -o csh.out -j oe",
                "cd $PBS_O_WORKDIR",
                'echo "job $PBS_JOBID in $PBS_O_WORKDIR"',
            )
        ),
        Alloc(tasks=1, cpus_per_task=2, outputs=("csh.out",)),
        "pbs.md §2 (select); a csh script sets variables with `setenv`: an `export` line stops "
        "it (`export: Command not found.`), and an unset `$PBS_O_WORKDIR` is an error in csh",
    ),
    Row(
        "pbs-array-step",
        "pbs",
        _sh(
            "#PBS -N arr",
            "#PBS -J 1-9:2",
            "#PBS -l select=1:ncpus=1",
            body=INDEX % "PBS_ARRAY_INDEX",
        ),
        Alloc(tasks=1, array=(1, 3, 5, 7, 9)),
        "pbs.md §4: -J X-Y:Z, elements X, X+Z, … ≤ Y",
    ),
    Row(
        "pbs-variables",
        "pbs",
        _sh("#PBS -N pv", "#PBS -l select=1:ncpus=4", "#PBS -o pv.out -j oe", body=probe("NCPUS")),
        Alloc(tasks=1, cpus_per_task=4, outputs=("pv.out",), printed=printed(NCPUS=4)),
        "pbs.md §7: NCPUS is the ncpus of the job's chunk on its first host",
    ),
    # ---------------------------------------------------------------- Torque (torque.md §2, §3)
    Row(
        "torque-nodes-ppn-mem",
        "torque",
        _sh("#PBS -N tq", "#PBS -l nodes=2:ppn=4,mem=8gb", "#PBS -o tq.out -j oe"),
        Alloc(tasks=8, nodes=2, cpus_per_task=1, mem_mb=8 * G, outputs=("tq.out",)),
        "torque.md §2: ppn processors on each of 2 nodes; mem is the job total",
        fails={"htcondor": ONE_MACHINE},
    ),
    Row(
        "torque-pmem",
        "torque",
        _sh("#PBS -N pm", "#PBS -l nodes=1:ppn=4,pmem=2gb", "#PBS -o pm.out -j oe"),
        Alloc(tasks=4, nodes=1, cpus_per_task=1, mem_mb=8 * G, outputs=("pm.out",)),
        "torque.md §2: pmem per process, 4 processes",
    ),
    Row(
        "torque-gpus",
        "torque",
        _sh("#PBS -N tg", "#PBS -l nodes=1:ppn=4:gpus=2", "#PBS -o tg.out -j oe"),
        Alloc(tasks=4, nodes=1, gpus=2, outputs=("tg.out",)),
        "torque.md §2: gpus= in a node spec is per node",
        fails={
            "flux-batch": WHOLE_GPUS_PER_SLOT,
            "sge": "2 GPUs over 4 slots: Grid Engine counts "
            "a consumable per slot, in whole units (W201)",
        },
    ),
    Row(
        "torque-array-throttle",
        "torque",
        _sh("#PBS -N ta", "#PBS -t 1-5%2", "#PBS -l nodes=1:ppn=1", body=INDEX % "PBS_ARRAYID"),
        Alloc(tasks=1, array=(1, 2, 3, 4, 5), throttle=2),
        "torque.md §3: -t 1-5%2, at most 2 running",
    ),
    Row(
        "torque-procs-pmem",
        "torque",
        _sh("#PBS -N tp", "#PBS -l procs=8,pmem=1gb,walltime=00:05:00", "#PBS -o tp.out -j oe"),
        Alloc(tasks=8, cpus_per_task=1, mem_mb=8 * G, walltime_s=300, outputs=("tp.out",)),
        "torque.md §2: procs is total processors in any layout; pmem per process",
    ),
    Row(
        "torque-variables",
        "torque",
        _sh(
            "#PBS -N tv",
            "#PBS -l nodes=1:ppn=4",
            "#PBS -o tv.out -j oe",
            body=probe("PBS_NP", "PBS_NUM_NODES", "PBS_NUM_PPN"),
        ),
        Alloc(
            tasks=4,
            nodes=1,
            outputs=("tv.out",),
            printed=printed(PBS_NP=4, PBS_NUM_NODES=1, PBS_NUM_PPN=4),
        ),
        "torque.md §5: pbs_mom sets PBS_NP (nodes × ppn), PBS_NUM_NODES and PBS_NUM_PPN",
    ),
    # ---------------------------------------------------------------- LSF (lsf.md §2)
    Row(
        "lsf-rusage-one-host",
        "lsf",
        _sh(
            "#BSUB -J l1",
            '#BSUB -n 4 -R "span[hosts=1] rusage[mem=4000]"',
            "#BSUB -W 10",
            "#BSUB -o l1.out",
        ),
        Alloc(tasks=4, nodes=1, cpus_per_task=1, mem_mb=4000, walltime_s=600, outputs=("l1.out",)),
        "lsf.md §2.3: rusage mem in LSF_UNIT_FOR_LIMITS, MB as lsfinstall writes it, reserved "
        "per host (IBM: 'By default, memory is reserved for parallel jobs on a per-host basis')",
    ),
    Row(
        "lsf-ptile-two-hosts",
        "lsf",
        _sh("#BSUB -J l2", '#BSUB -n 8 -R "span[ptile=4] rusage[mem=2000]"', "#BSUB -o l2.out"),
        Alloc(tasks=8, nodes=2, cpus_per_task=1, mem_mb=4000, outputs=("l2.out",)),
        "lsf.md §2.3: ptile=4 puts 4 slots on each of 2 hosts; rusage mem per host",
        fails={"htcondor": ONE_MACHINE},
    ),
    Row(
        "lsf-memory-limit-only",
        "lsf",
        _sh("#BSUB -J l3", "#BSUB -n 1 -M 4000", "#BSUB -o l3.out"),
        Alloc(tasks=1, mem_mb=4000, outputs=("l3.out",)),
        "lsf.md §2.3: -M is a memory limit in LSF_UNIT_FOR_LIMITS (MB); Slurm's --mem is a limit "
        "too",
    ),
    Row(
        "lsf-rusage-per-task",
        "lsf",
        _sh("#BSUB -J l4", '#BSUB -n 4 -R "span[ptile=2] rusage[mem=1GB/task]"', "#BSUB -o l4.out"),
        Alloc(tasks=4, nodes=2, cpus_per_task=1, mem_mb=4096, outputs=("l4.out",)),
        "LSF 10.1.0.9 release notes: mem=1GB/task reserves 1 GB for each task, whatever "
        "RESOURCE_RESERVE_PER_TASK says",
        fails={"htcondor": ONE_MACHINE},
    ),
    Row(
        "lsf-memory-limit-tasks",
        "lsf",
        _sh("#BSUB -J l5", "#BSUB -n 4 -R span[hosts=1] -M 1GB", "#BSUB -o l5.out"),
        Alloc(tasks=4, nodes=1, mem_mb=4096, outputs=("l5.out",)),
        "IBM bsub -M: a per-process limit (each task's; with cgroups LSF multiplies it by the "
        "tasks on the host, bsub -hl)",
    ),
    Row(
        "lsf-array-throttle",
        "lsf",
        _sh('#BSUB -J "la[1-9:2]%2"', "#BSUB -o la.%I.out", body=INDEX % "LSB_JOBINDEX"),
        Alloc(
            tasks=1,
            array=(1, 3, 5, 7, 9),
            throttle=2,
            outputs=tuple(f"la.{i}.out" for i in (1, 3, 5, 7, 9)),
        ),
        "lsf.md §2.1: 1-9:2 with %2 running at once; %I is the index",
    ),
    Row(
        "lsf-gpu",
        "lsf",
        _sh("#BSUB -J lg", '#BSUB -n 1 -gpu "num=2"', "#BSUB -o lg.out"),
        Alloc(tasks=1, nodes=1, gpus=2, outputs=("lg.out",)),
        "lsf.md §2: -gpu num is per host",
    ),
    Row(
        "lsf-variables",
        "lsf",
        _sh(
            "#BSUB -J lv",
            '#BSUB -n 2 -R "span[hosts=1]"',
            "#BSUB -o lv.out",
            body=probe("LSB_DJOB_NUMPROC", "LSB_MAX_NUM_PROCESSORS"),
        ),
        Alloc(
            tasks=2,
            nodes=1,
            outputs=("lv.out",),
            printed=printed(LSB_DJOB_NUMPROC=2, LSB_MAX_NUM_PROCESSORS=2),
        ),
        "lsf.md §3: LSB_DJOB_NUMPROC is the slots allocated, LSB_MAX_NUM_PROCESSORS the "
        "`-n` maximum; a fixed -n 2 is 2 slots",
    ),
    # ---------------------------------------------------------------- Grid Engine (sge.md)
    Row(
        "sge-pe-smp-h_vmem",
        "sge",
        _sh("#$ -N g1", "#$ -pe smp 4", "#$ -l h_vmem=2G,h_rt=600", "#$ -cwd -j y -o g1.out"),
        Alloc(cpus=4, mem_mb=8 * G, walltime_s=600, outputs=("g1.out",)),
        "sge.md: h_vmem is per slot, 4 slots; -cwd runs in and writes to the submit directory",
    ),
    Row(
        "sge-pe-mpi",
        "sge",
        _sh("#$ -N g2", "#$ -pe mpi 8", "#$ -l h_vmem=1G", "#$ -cwd -j y -o g2.out"),
        Alloc(cpus=8, mem_mb=8 * G, outputs=("g2.out",)),
        "sge.md: 8 slots of the mpi PE, 1G each",
    ),
    Row(
        "sge-array-step-throttle",
        "sge",
        _sh("#$ -N ga", "#$ -t 1-9:2", "#$ -tc 2", "#$ -cwd", body=INDEX % "SGE_TASK_ID"),
        Alloc(
            cpus=1,
            array=(1, 3, 5, 7, 9),
            throttle=2,
            outputs=tuple(f"ga.{s}N.{i}" for s in "eo" for i in (1, 3, 5, 7, 9)),
        ),
        "sge.md: -t 1-9:2, -tc 2; default files <name>.o<job>.<task> in the -cwd directory",
    ),
    Row(
        "sge-gpu",
        "sge",
        _sh("#$ -N gg", "#$ -l gpu=2", "#$ -cwd -j y -o gg.out"),
        Alloc(cpus=1, gpus=2, outputs=("gg.out",)),
        "sge.md: a consumable complex (gpu, site-named) is per slot; one slot",
    ),
    Row(
        "sge-variables",
        "sge",
        _sh(
            "#$ -N sv",
            "#$ -pe smp 4",
            "#$ -t 2-6:2",
            "#$ -cwd -j y",
            body=INDEX % "SGE_TASK_ID"
            + "\n"
            + probe("NSLOTS", "NHOSTS", "SGE_TASK_FIRST", "SGE_TASK_LAST", "SGE_TASK_STEPSIZE"),
        ),
        Alloc(
            cpus=4,
            array=(2, 4, 6),
            printed=printed(
                NSLOTS=4, NHOSTS=1, SGE_TASK_FIRST=2, SGE_TASK_LAST=6, SGE_TASK_STEPSIZE=2
            ),
        ),
        "sge.md §4: NSLOTS is the slots granted, NHOSTS the hosts; SGE_TASK_FIRST, _LAST, "
        "_STEPSIZE the -t range",
    ),
    # ---------------------------------------------------------------- HTCondor (htcondor.md)
    Row(
        "htcondor-cpus-memory",
        "htcondor",
        "executable = /bin/echo\narguments = ok\nrequest_cpus = 4\nrequest_memory = 8GB\n"
        "output = h1.out\nerror = h1.err\nlog = h1.log\nqueue\n",
        Alloc(tasks=1, nodes=1, cpus_per_task=4, mem_mb=8 * G),
        "htcondor.md: request_cpus and request_memory (MB, or with a unit) of one slot",
    ),
    Row(
        "htcondor-queue-10",
        "htcondor",
        "executable = /bin/echo\narguments = index=$(Process)\n"
        "output = q.$(Process).out\nqueue 10\n",
        Alloc(tasks=1, array=tuple(range(10)), outputs=tuple(f"q.{i}.out" for i in range(10))),
        "htcondor.md: queue 10 makes procs 0-9; $(Process) is each one's number; without "
        "`error` stderr goes to /dev/null (condor_submit(1))",
    ),
    Row(
        "htcondor-gpus",
        "htcondor",
        "executable = /bin/echo\narguments = ok\nrequest_gpus = 2\nrequest_memory = 1024\nqueue\n",
        Alloc(tasks=1, nodes=1, mem_mb=1 * G, gpus=2),
        "htcondor.md: request_gpus of the slot; request_memory in MB",
    ),
    Row(
        "htcondor-cluster-process-files",
        "htcondor",
        "executable = /bin/sh\narguments = \"-c 'echo index=$(Process); echo e >&2'\"\n"
        "output = o.$(Cluster).$(Process)\nerror = e.$(Cluster).$(Process)\nqueue 3\n",
        Alloc(
            tasks=1,
            array=(0, 1, 2),
            outputs=tuple(f"{s}.N.{i}" for s in "eo" for i in range(3)),
        ),
        "htcondor.md: queue 3 makes procs 0-2 of one cluster; $(Cluster) is the cluster id "
        "they share, $(Process) each one's number",
    ),
    Row(
        "htcondor-executable-in-submit-dir",
        "htcondor",
        "executable = run.sh\narguments = hi\noutput = r.out\nqueue\n",
        Alloc(tasks=1, outputs=("r.out",)),
        "htcondor.md §3: `executable` is a path from the submit directory (condor_submit "
        "refuses a name that is no file there), not a command looked up on PATH",
        files=(("run.sh", '#!/bin/sh\necho ran "$1"\n'),),
    ),
    # ---------------------------------------------------------------- Flux (flux.md)
    Row(
        "flux-batch-nodes-tasks-cores",
        "flux-batch",
        _sh("#flux: -N 2 -n 8 -c 2", "#flux: -t 10m", "#flux: --output=fb.out"),
        Alloc(tasks=8, nodes=2, cpus_per_task=2, walltime_s=600, outputs=("fb.out",)),
        "flux.md: -N nodes, -n tasks, -c cores per task (flux-batch(1))",
        fails={"htcondor": ONE_MACHINE},
    ),
    Row(
        "flux-batch-gpus-per-task",
        "flux-batch",
        _sh("#flux: -n 2 -g 1", "#flux: --output=fg.out"),
        Alloc(tasks=2, gpus=2, outputs=("fg.out",)),
        "flux-batch(1): -g GPUs per slot (task)",
    ),
    Row(
        "flux-jobspec-slots-cores",
        "flux",
        "version: 1\nresources:\n  - type: slot\n    count: 4\n    label: task\n"
        "    with:\n      - {type: core, count: 2}\n"
        "tasks:\n  - command: [sh, -c, echo ok]\n    slot: task\n    count: {per_slot: 1}\n"
        "attributes:\n  system:\n    duration: 600\n    shell:\n      options:\n"
        "        output:\n          stdout: {type: file, path: js.out}\n",
        Alloc(tasks=4, nodes=1, cpus_per_task=2, walltime_s=600, outputs=("js.out",)),
        "flux.md (RFC 14): 4 slots of 2 cores, one task per slot; duration in seconds; the "
        "shell's output.stdout.path; 8 CPUs fit one node",
    ),
    # ---------------------------------------------------------------- SPLAT (docs/ir.md)
    Row(
        "splat-memory-per-task",
        "splat",
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nmetadata: {name: sp}\nspec:\n"
        "  resources: {tasks: 4, cpusPerTask: 2, memoryPerTask: 2Gi}\n"
        "  output: {stdout: sp.out, mergeStderr: true}\n  execution: {script: 'echo ok'}\n",
        Alloc(tasks=4, cpus_per_task=2, mem_mb=8 * G, outputs=("sp.out",)),
        "docs/ir.md: memoryPerTask × tasks",
    ),
    Row(
        "splat-memory-per-node",
        "splat",
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nmetadata: {name: spn}\nspec:\n"
        "  resources: {nodes: 2, tasksPerNode: 2, memoryPerTask: 3Gi/node}\n"
        "  output: {stdout: spn.out, mergeStderr: true}\n  execution: {script: 'echo ok'}\n",
        Alloc(tasks=4, nodes=2, cpus_per_task=1, mem_mb=6 * G, outputs=("spn.out",)),
        "docs/ir.md: a size's `/node` scope is per node; 2 nodes of 2 tasks",
        fails={"htcondor": ONE_MACHINE},
    ),
    Row(
        "splat-array-step-throttle",
        "splat",
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nmetadata: {name: spa}\nspec:\n"
        "  array: {indices: '0-6:3', maxConcurrent: 2}\n"
        "  output: {stdout: 'spa-{array_index}.out', mergeStderr: true}\n"
        '  execution: {script: "#!/bin/bash\\necho index=$BAMMM_ARRAY_INDEX\\n"}\n',
        Alloc(
            tasks=1,
            array=(0, 3, 6),
            throttle=2,
            outputs=tuple(f"spa-{i}.out" for i in (0, 3, 6)),
        ),
        "docs/ir.md: indices 0-6:3 are 0, 3, 6; maxConcurrent 2; `$BAMMM_ARRAY_INDEX` is the index",
    ),
)


BEGIN = "<!-- behaviour table: generated by `python -m tests.behaviour.table`; do not edit -->"
END = "<!-- end of the behaviour table -->"


def markdown() -> str:
    """The rows passing per source format × target, and each failing row with its reason
    (docs/fidelity.md holds it; a test fails when it is stale)."""
    formats = list(dict.fromkeys(r.fmt for r in ROWS))
    heads = [*RUN, *(f"{t} (read)" for t in PARSED)]
    lines = [BEGIN, "", "| source | rows | " + " | ".join(heads) + " |", "|---|---|"]
    lines[-1] += "---|" * len(TARGETS)
    for fmt in formats:
        rows = [r for r in ROWS if r.fmt == fmt]
        cells = [f"{sum(t not in r.fails for r in rows)}/{len(rows)}" for t in TARGETS]
        lines.append(f"| {fmt} | {len(rows)} | " + " | ".join(cells) + " |")
    lines.append("")
    for targets, verb in ((RUN, "run as the original asked"), (PARSED, "read as it asked")):
        total = len(ROWS) * len(targets)
        passing = sum(t not in r.fails for r in ROWS for t in targets)
        lines.append(
            f"{passing} of {total} conversions to {' and '.join(targets)} {verb} "
            f"({100 * passing // total}%)."
        )
    lines += ["", "The others, each a strict xfail until it is fixed:", ""]
    for r in ROWS:
        for target, why in r.fails.items():
            lines.append(f"- `{r.id}` → {target}: {why}")
    return "\n".join([*lines, "", END]) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
