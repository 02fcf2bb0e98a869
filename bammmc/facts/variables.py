"""The variables each scheduler documents for a batch job's script, and the ones whose value the
job as written decides.

`DOCUMENTED` lists, per scheduler, every variable its documentation says a job sees (sources in
`SOURCES`; the sheets of shared/docs/formats cite the pages). A body that reads one of them on
another scheduler gets it defined there (:mod:`bammmc.ir.envvars`): from the target's own
variable for the same thing (`VARIABLES` there), or, for the variables in `STATIC`, from the
value the documenting scheduler gives this job — its task count, CPUs per task, nodes, array
bounds — which the compiler knows from the job's resources; or from an expression (`ANYWHERE`);
or it is reported. A variable with a scheduler's prefix that is in no list is reported too.

`STATIC` rules (computed by :func:`bammmc.ir.envvars.static_value`). A value the job decides
is defined even where the scheduler would set it only when asked (sbatch sets
`SLURM_CPUS_PER_TASK` only with `--cpus-per-task`): the body gets the job's real count, and a
conversion gives the same block whichever reader stated the default; what a job does not have
(an array's bounds outside an array, an account it names none of) stays unset. Each rule
was checked on a real scheduler where one runs here (Slurm 22.05 run mode, Son of Grid Engine
8.1.9: the behaviour rows `*-variables` of tests/behaviour, and env dumps of jobs of each
geometry: sbatch sets SLURM_NTASKS only for `-n`/`--ntasks-per-node`, SLURM_PROCID and
SLURM_GTIDS are 0 in the batch script, `--array=1,3,8` has STEP 1; Grid Engine's array
variables are the string `undefined` outside an array) and otherwise follows the
documentation:

| rule | value |
|---|---|
| `ntasks` | the job's tasks (`--ntasks`, or nodes × `--ntasks-per-node`, else 1) |
| `cpus_per_task` | the CPUs of each task (1 without `--cpus-per-task`) |
| `tasks_per_node` | `--ntasks-per-node`, or tasks ÷ nodes when they divide; 1 for one task |
| `nodes` | the job's node count; 1 for a job of one task of one CPU; else the allocation's |
| `array_count`, `array_min`, `array_max`, `array_step` | the indices; unset outside an array |
| `zero` | 0: the batch script is task 0 on node 0 (SLURM_PROCID, _NODEID, _LOCALID, _GTIDS) |
| `slots` | tasks × CPUs per task (Grid Engine's PE slots, Torque's `nodes × ppn`); 1 when serial |
| `slots_per_node` | slots ÷ nodes (Torque's `ppn`) |
| `chunk_cpus` | the CPUs of the first chunk (PBS Pro's `NCPUS`): CPUs per task × tasks per node |
| `sge_first` / `sge_last` / `sge_step` | the array's range; `undefined` outside an array |
| `walltime_seconds` | the walltime in seconds (Torque's `PBS_WALLTIME`) |
| `account` / `qos` / `reservation` | the job's own; unset when it names none |
"""

from __future__ import annotations

from typing import Final


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: where each scheduler's list comes from
SOURCES: Final = {
    "slurm": "sbatch(1) OUTPUT ENVIRONMENT VARIABLES (formats/slurm.md §6)",
    "pbs": "PBS Professional Reference Guide, ENVIRONMENT; start_exec.c (formats/pbs.md §7)",
    "torque": "Torque qsub(1) and pbs_mom start_exec.c (formats/torque.md §5)",
    "sge": "Grid Engine submit(1) ENVIRONMENTAL VARIABLES (formats/sge.md §4)",
    "lsf": "IBM LSF 10.1 'Environment variables set for job execution' (formats/lsf.md §3)",
    "flux": "flux-environment(7), flux-run(1) (formats/flux.md §9)",
    "htcondor": "HTCondor manual, 'Environment variables' of a job (formats/htcondor.md)",
}

DOCUMENTED: Final[dict[str, frozenset[str]]] = {
    "slurm": _names(
        """SLURM_ARRAY_JOB_ID SLURM_ARRAY_TASK_COUNT SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_MAX
        SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_STEP SLURM_CLUSTER_NAME SLURM_CPUS_ON_NODE
        SLURM_CPUS_PER_GPU SLURM_CPUS_PER_TASK SLURM_CONTAINER SLURM_DIST_PLANESIZE
        SLURM_DISTRIBUTION SLURM_EXPORT_ENV SLURM_GPU_BIND SLURM_GPU_FREQ SLURM_GPUS
        SLURM_GPUS_ON_NODE SLURM_GPUS_PER_NODE SLURM_GPUS_PER_SOCKET SLURM_GPUS_PER_TASK
        SLURM_GTIDS SLURM_HET_SIZE SLURM_JOB_ACCOUNT SLURM_JOB_CPUS_PER_NODE
        SLURM_JOB_DEPENDENCY SLURM_JOB_END_TIME SLURM_JOB_GPUS SLURM_JOB_ID SLURM_JOB_NAME
        SLURM_JOB_NODELIST SLURM_JOB_NUM_NODES SLURM_JOB_PARTITION SLURM_JOB_QOS
        SLURM_JOB_RESERVATION SLURM_JOB_START_TIME SLURM_JOB_UID SLURM_JOB_USER
        SLURM_JOB_GID SLURM_JOBID SLURM_LOCALID SLURM_MEM_PER_CPU SLURM_MEM_PER_GPU
        SLURM_MEM_PER_NODE SLURM_NNODES SLURM_NODE_ALIASES SLURM_NODEID SLURM_NODELIST
        SLURM_NPROCS SLURM_NTASKS SLURM_NTASKS_PER_CORE SLURM_NTASKS_PER_GPU
        SLURM_NTASKS_PER_NODE SLURM_NTASKS_PER_SOCKET SLURM_OVERCOMMIT SLURM_PRIO_PROCESS
        SLURM_PROCID SLURM_PROFILE SLURM_RESTART_COUNT SLURM_SHARDS_ON_NODE SLURM_SUBMIT_DIR
        SLURM_SUBMIT_HOST SLURM_TASK_PID SLURM_TASKS_PER_NODE SLURM_THREADS_PER_CORE
        SLURM_TOPOLOGY_ADDR SLURM_TOPOLOGY_ADDR_PATTERN SLURM_TRES_PER_TASK SLURMD_NODENAME
        SLURM_CONF SLURM_JOB_LICENSES SLURM_JOB_GROUP"""
    ),
    "pbs": _names(
        """PBS_ENVIRONMENT PBS_JOBID PBS_JOBNAME PBS_JOBDIR PBS_NODEFILE PBS_QUEUE
        PBS_ARRAY_INDEX PBS_ARRAY_ID PBS_ACCOUNT PBS_NODENUM PBS_TASKNUM PBS_MOMPORT
        PBS_JOBCOOKIE NCPUS TMPDIR OMP_NUM_THREADS PBS_O_HOME PBS_O_HOST PBS_O_LANG
        PBS_O_LOGNAME PBS_O_MAIL PBS_O_PATH PBS_O_QUEUE PBS_O_SHELL PBS_O_SYSTEM PBS_O_TZ
        PBS_O_WORKDIR"""
    ),
    "torque": _names(
        """PBS_O_HOME PBS_O_LANG PBS_O_LOGNAME PBS_O_PATH PBS_O_MAIL PBS_O_SHELL PBS_O_TZ
        PBS_O_HOST PBS_O_QUEUE PBS_O_WORKDIR PBS_O_INITDIR PBS_O_ROOTDIR PBS_SERVER
        PBS_ARRAYID PBS_ENVIRONMENT PBS_JOBID PBS_JOBNAME PBS_NODEFILE PBS_QUEUE PBS_GPUFILE
        PBS_MICFILE PBS_NNODES PBS_NUM_NODES PBS_NUM_PPN PBS_NP PBS_NODENUM PBS_VNODENUM
        PBS_TASKNUM PBS_MOMPORT PBS_JOBCOOKIE PBS_VERSION PBS_WALLTIME"""
    ),
    "sge": _names(
        """JOB_ID JOB_NAME REQUEST SGE_TASK_ID SGE_TASK_FIRST SGE_TASK_LAST SGE_TASK_STEPSIZE
        NSLOTS NHOSTS NQUEUES PE PE_HOSTFILE QUEUE SGE_O_HOME SGE_O_HOST SGE_O_LOGNAME
        SGE_O_MAIL SGE_O_PATH SGE_O_SHELL SGE_O_TZ SGE_O_WORKDIR SGE_STDOUT_PATH
        SGE_STDERR_PATH SGE_STDIN_PATH TMPDIR TMP RESTARTED JOB_SCRIPT SGE_BINARY_PATH
        SGE_ROOT SGE_CELL SGE_ARCH SGE_CWD_PATH SGE_JOB_SPOOL_DIR SGE_CKPT_ENV
        SGE_CKPT_DIR"""
    ),
    "lsf": _names(
        """LSB_JOBID LSB_JOBINDEX LSB_JOBNAME LSB_QUEUE LSB_HOSTS LSB_MCPU_HOSTS
        LSB_DJOB_NUMPROC LSB_DJOB_HOSTFILE LSB_DJOB_RANKFILE LSB_ERRORFILE LSB_OUTPUTFILE
        LSB_EFFECTIVE_RSRCREQ LSB_JOBFILENAME LSB_RESTART LSB_CHKPNT_DIR LSB_RESIZABLE
        LSB_EXIT_PRE_ABORT LSB_MAX_NUM_PROCESSORS LS_SUBCWD LS_EXECCWD LSB_SUB_HOST
        LSB_BATCH_JID LSB_JOB_EXECUSER LSB_OUTDIR"""
    ),
    "flux": _names(
        """FLUX_JOB_ID FLUX_JOB_SIZE FLUX_JOB_NNODES FLUX_TASK_RANK FLUX_TASK_LOCAL_ID
        FLUX_JOB_TMPDIR FLUX_URI FLUX_JOB_CC FLUX_KVS_NAMESPACE FLUX_ENCLOSING_ID"""
    ),
    "htcondor": _names(
        """_CONDOR_SCRATCH_DIR _CONDOR_SLOT _CONDOR_JOB_AD _CONDOR_MACHINE_AD _CONDOR_JOB_IWD
        _CONDOR_WRAPPER_ERROR_FILE _CONDOR_JOB_PIDS _CONDOR_PROCNO _CONDOR_NPROCS
        _CONDOR_REMOTE_SPOOL_DIR _CONDOR_CHIRP_CONFIG _CONDOR_CREDS BATCH_SYSTEM"""
    ),
}


def documented_by(name: str) -> str | None:
    """The scheduler that documents ``name`` for its jobs: its lists, and Slurm's
    heterogeneous-job copies `SLURM_<X>_HET_GROUP_<n>` (sbatch(1))."""
    owner = next((s for s, names in DOCUMENTED.items() if name in names), None)
    if owner is None and name.startswith("SLURM_") and "_HET_GROUP_" in name:
        head, _, number = name.rpartition("_HET_GROUP_")
        if number.isdigit() and head in DOCUMENTED["slurm"]:
            return "slurm"
    return owner


#: the name prefixes only a scheduler's own variables have: a body that reads one the
#: scheduler does not document still reads a variable the target does not set
PREFIXES: Final = {
    "slurm": ("SLURM_", "SLURMD_"),
    "pbs": ("PBS_",),
    "torque": ("PBS_",),
    "sge": ("SGE_",),
    "lsf": ("LSB_",),
    "flux": ("FLUX_",),
    "htcondor": ("_CONDOR_",),
}

#: variable -> (the scheduler that documents it, the rule that gives its value for the job)
STATIC: Final[dict[str, tuple[str, str]]] = {
    "SLURM_NTASKS": ("slurm", "ntasks"),
    "SLURM_NPROCS": ("slurm", "ntasks"),
    "SLURM_CPUS_PER_TASK": ("slurm", "cpus_per_task"),
    "SLURM_NTASKS_PER_NODE": ("slurm", "tasks_per_node"),
    "SLURM_JOB_NUM_NODES": ("slurm", "nodes"),
    "SLURM_NNODES": ("slurm", "nodes"),
    "SLURM_ARRAY_TASK_COUNT": ("slurm", "array_count"),
    "SLURM_ARRAY_TASK_MIN": ("slurm", "array_min"),
    "SLURM_ARRAY_TASK_MAX": ("slurm", "array_max"),
    "SLURM_ARRAY_TASK_STEP": ("slurm", "array_step"),
    "SLURM_JOB_ACCOUNT": ("slurm", "account"),
    "SLURM_JOB_QOS": ("slurm", "qos"),
    "SLURM_JOB_RESERVATION": ("slurm", "reservation"),
    "SLURM_PROCID": ("slurm", "zero"),
    "SLURM_NODEID": ("slurm", "zero"),
    "SLURM_LOCALID": ("slurm", "zero"),
    "SLURM_GTIDS": ("slurm", "zero"),
    "PBS_NP": ("torque", "slots"),
    "PBS_NUM_NODES": ("torque", "nodes"),
    "PBS_NUM_PPN": ("torque", "slots_per_node"),
    "PBS_WALLTIME": ("torque", "walltime_seconds"),
    "NCPUS": ("pbs", "chunk_cpus"),
    "PBS_ACCOUNT": ("pbs", "account"),
    # LSF's slots are its tasks (`-n`); a task's CPUs are an affinity request, not slots
    "LSB_DJOB_NUMPROC": ("lsf", "ntasks"),
    "LSB_MAX_NUM_PROCESSORS": ("lsf", "ntasks"),
    "NSLOTS": ("sge", "slots"),
    "NHOSTS": ("sge", "nodes"),
    "SGE_TASK_FIRST": ("sge", "sge_first"),
    "SGE_TASK_LAST": ("sge", "sge_last"),
    "SGE_TASK_STEPSIZE": ("sge", "sge_step"),
}

#: a second name of a variable (sbatch(1): "SLURM_JOBID … same as SLURM_JOB_ID"; Torque's
#: PBS_NNODES beside PBS_NUM_NODES; Grid Engine's REQUEST is the job name)
ALIASES: Final = {
    "SLURM_JOBID": "SLURM_JOB_ID",
    "SLURM_NNODES": "SLURM_JOB_NUM_NODES",
    "SLURM_NPROCS": "SLURM_NTASKS",
    "SLURM_NODELIST": "SLURM_JOB_NODELIST",
    "PBS_NNODES": "PBS_NUM_NODES",
    "REQUEST": "JOB_NAME",
}

#: what each rule's value is, for the notes
RULES: Final = {
    "ntasks": "the job's task count",
    "cpus_per_task": "the job's CPUs per task",
    "tasks_per_node": "the job's tasks per node",
    "nodes": "the job's node count",
    "array_count": "the number of array elements",
    "array_min": "the array's lowest index",
    "array_max": "the array's highest index",
    "array_step": "the array's step",
    "account": "the job's account",
    "qos": "the job's QOS",
    "reservation": "the job's reservation",
    "zero": "the batch script is task 0 on the job's first node",
    "slots": "tasks × CPUs per task",
    "slots_per_node": "tasks × CPUs per task on each node",
    "chunk_cpus": "CPUs per task × tasks per node",
    "sge_first": "the array's first index",
    "sge_last": "the array's last index",
    "sge_step": "the array's step",
    "walltime_seconds": "the job's walltime in seconds",
}

#: variable -> a shell expression for it that holds on any scheduler: the submit side's
#: values of a job submitted from the host and account it runs under
ANYWHERE: Final[dict[str, str]] = {
    "PBS_O_HOME": "${HOME}",
    "SGE_O_HOME": "${HOME}",
    "PBS_O_LOGNAME": "${LOGNAME:-${USER}}",
    "SGE_O_LOGNAME": "${LOGNAME:-${USER}}",
    "PBS_O_PATH": "${PATH}",
    "SGE_O_PATH": "${PATH}",
    "PBS_O_SHELL": "${SHELL}",
    "SGE_O_SHELL": "${SHELL}",
    "SLURM_JOB_USER": "${USER:-$(id -un)}",
    "SLURM_JOB_UID": "$(id -u)",
    "SLURM_JOB_GID": "$(id -g)",
    "SLURMD_NODENAME": "$(hostname -s)",
    "SLURM_TASK_PID": "$$",
}

#: names several schedulers set and sites and users set as often (a per-job `TMPDIR`, the
#: threads of OpenMP): a body's use of them is never reported
COMMON: Final = frozenset({"TMPDIR", "TMP", "OMP_NUM_THREADS", "HOME", "PATH", "HOSTNAME"})

#: the scheduler whose lists a target uses (flux batch scripts and jobspecs see the same)
FAMILY: Final = {"flux-batch": "flux"}

#: the scheduler's name in a message
NAMES: Final = {
    "slurm": "Slurm",
    "pbs": "PBS",
    "torque": "Torque",
    "sge": "Grid Engine",
    "lsf": "LSF",
    "flux": "Flux",
    "htcondor": "HTCondor",
}
