"""The SPLAT v1alpha1 job model (``apiVersion: bammm.io/v1alpha1``) as msgspec Structs.

This is bammmc's IR: every field of the specification (``shared/docs/seeds/000_…``), Tier 1,
Tier 2, Tier 3 extension blocks, nothing else. Structs are frozen, unknown keys are rejected,
defaults are omitted on output, and the wire names are the specification's (camelCase in the
portable part, the specification's own spelling inside ``extensions``). Sizes, durations,
templates and index ranges are typed values from :mod:`bammmc.ir.values`.

Siblings: ``frontends/splat.py`` reads this model from YAML, ``backends/splat.py`` writes it,
``passes/validate.py`` checks the specification's cross-field rules.
"""

from typing import Annotated, Any, Final, Literal

import msgspec

from bammmc.ir.values import Count, Cpu, DateTime, Duration, IndexSpec, Signal, Size, Template

API_VERSION: Final = "bammm.io/v1alpha1"

NonNegInt = Annotated[int, msgspec.Meta(ge=0)]
PosInt = Annotated[int, msgspec.Meta(ge=1)]
Port = Annotated[int, msgspec.Meta(ge=1, le=65535)]


class Splat(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    omit_defaults=True,
    forbid_unknown_fields=True,
    rename="camel",
):
    """Base of every portable SPLAT struct: immutable, camelCase on the wire, unknown keys
    rejected."""


class Ext(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    omit_defaults=True,
    forbid_unknown_fields=True,
):
    """Base of the ``extensions`` structs: the specification spells their keys itself (mostly
    snake_case), so no renaming."""


# ── metadata ──────────────────────────────────────────────────────────────────────────────


class Metadata(Splat):
    name: str | None = None
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    client_id: str | None = None


# ── spec.schedule ─────────────────────────────────────────────────────────────────────────


class Schedule(Splat):
    queue: str | None = None
    priority: int | None = None
    priority_class: str | None = None
    account: str | None = None
    project: str | None = None
    walltime: Duration | None = None
    qos: str | None = None
    partition: str | None = None
    hold: bool | None = None
    reservation: str | None = None
    begin_after: DateTime | None = None
    deadline: DateTime | None = None
    walltime_min: Duration | None = None
    signal_before_end: Signal | None = None


# ── spec.resources ────────────────────────────────────────────────────────────────────────


class Gpu(Splat):
    count: Count | None = None
    type: str | None = None
    memory: Size | None = None
    fraction: float | None = None
    mig_profile: str | None = None


class Limits(Splat):
    cpus_per_task: Cpu | None = None
    memory_per_task: Size | None = None


class Resources(Splat):
    cpus_per_task: Cpu | None = None
    memory_per_task: Size | None = None
    tasks: PosInt | None = None
    nodes: PosInt | None = None
    tasks_per_node: PosInt | None = None
    gpu: Gpu | None = None
    disk_per_task: Size | None = None
    generic_resources: dict[str, Count] | None = None
    limits: Limits | None = None

    @property
    def task_count(self) -> int:
        """The tasks these resources start (SPLAT's defaults): `tasks`, else `nodes` ×
        `tasksPerNode` (one task per node without it), else `tasksPerNode` on the one node a
        job gets (sbatch: `--ntasks-per-node=3` alone runs 3 tasks on one node), else one."""
        if self.tasks is not None:
            return self.tasks
        if self.nodes is not None:
            return self.nodes * (self.tasks_per_node or 1)
        return self.tasks_per_node or 1


# ── spec.execution ────────────────────────────────────────────────────────────────────────


class Container(Splat):
    image: str | None = None
    image_pull_policy: Literal["Always", "IfNotPresent", "Never"] | None = None
    image_pull_secrets: list[str] | None = None
    command: list[str] | None = None
    args: list[str] | None = None


class SecretEnv(Splat):
    name: str
    secret_name: str
    secret_key: str


class ConfigMapEnv(Splat):
    name: str
    config_map_name: str
    config_map_key: str


class Environment(Splat):
    vars: dict[str, str] | None = None
    secrets: list[SecretEnv] | None = None
    config_maps: list[ConfigMapEnv] | None = None
    inherit_from_submitter: bool | None = None


class Execution(Splat):
    container: Container | None = None
    script: str | None = None
    executable: str | None = None
    arguments: str | None = None
    shell: str | None = None
    working_dir: str | None = None
    environment: Environment | None = None
    stdin: str | None = None


# ── spec.output ───────────────────────────────────────────────────────────────────────────


class Output(Splat):
    stdout: Template | None = None
    stderr: Template | None = None
    merge_stderr: bool | None = None
    open_mode: Literal["truncate", "append"] | None = None


# ── spec.gang / array / dependencies / lifecycle ──────────────────────────────────────────


class Gang(Splat):
    min_available: PosInt | None = None
    style: Literal["soft", "hard"] | None = None
    timeout: Duration | None = None


class Array(Splat):
    indices: IndexSpec | None = None
    max_concurrent: PosInt | None = None


DependencyScheme = Literal["afterok", "afternotok", "afterany", "after", "singleton", "begin_time"]


class Dependency(Splat):
    scheme: DependencyScheme | None = None
    value: str | None = None
    count: PosInt | None = None


class Lifecycle(Splat):
    max_retries: NonNegInt | None = None
    requeue_on_failure: bool | None = None
    success_exit_codes: list[Annotated[int, msgspec.Meta(ge=0, le=255)]] | None = None
    ttl_after_finished: Duration | None = None


# ── spec.placement ────────────────────────────────────────────────────────────────────────


class Placement(Splat):
    node_selector: dict[str, str] | None = None
    tolerations: list[dict[str, Any]] | None = None
    affinity: dict[str, Any] | None = None
    topology_spread: list[dict[str, Any]] | None = None
    topology: Literal["scatter", "pack", "free"] | None = None
    group_by: str | None = None
    constraint: str | None = None
    prefer: str | None = None
    exclusive: bool | None = None
    node_pools: list[str] | None = None


# ── spec.notifications / fileStaging / volumes ────────────────────────────────────────────

NotificationEvent = Literal[
    "begin", "end", "fail", "requeue", "time_limit_50", "time_limit_80", "time_limit_90"
]


class Notifications(Splat):
    email: str | None = None
    events: list[NotificationEvent] | None = None


class StagedFile(Splat):
    src: str
    dst: str


class EmbeddedFile(Splat):
    name: str
    content: str
    encoding: Literal["utf-8", "base64"] | None = None
    permissions: str | None = None


class FileStaging(Splat):
    inputs: list[StagedFile] | None = None
    outputs: list[StagedFile] | None = None
    embedded_files: list[EmbeddedFile] | None = None
    transfer_policy: Literal["always", "if_needed", "never"] | None = None
    checkpoint_files: list[str] | None = None


class Nfs(Splat):
    server: str
    path: str


class Volume(Splat):
    name: str
    mount_path: str
    read_only: bool | None = None
    pvc: str | None = None
    config_map: str | None = None
    secret: str | None = None
    host_path: str | None = None
    empty_dir: bool | None = None
    nfs: Nfs | None = None


VOLUME_SOURCES: Final = ("pvc", "config_map", "secret", "host_path", "empty_dir", "nfs")


# ── spec.tasks ────────────────────────────────────────────────────────────────────────────


class TaskPolicy(Splat):
    event: str
    action: str
    timeout: Duration | None = None


class TaskLifecycle(Splat):
    max_retries: NonNegInt | None = None
    policies: list[TaskPolicy] | None = None


class TaskRef(Splat):
    name: str


class Task(Splat):
    name: str
    replicas: PosInt | None = None
    min_replicas: NonNegInt | None = None
    resources: Resources | None = None
    execution: Execution | None = None
    lifecycle: TaskLifecycle | None = None
    placement: Placement | None = None
    depends_on: list[TaskRef] | None = None


# ── spec.extensions ───────────────────────────────────────────────────────────────────────


class SlurmHetComponent(Splat):
    resources: Resources | None = None
    schedule: Schedule | None = None
    execution: Execution | None = None
    placement: Placement | None = None
    #: this component's Slurm-only options (bammmc addition; see docs/ir.md)
    slurm: "SlurmExt | None" = None


class SlurmExt(Ext):
    partition: str | None = None
    mpi: str | None = (
        None  # the specification lists pmix_v4 | openmpi | pmi2 | none; sites add more
    )
    burst_buffer: str | None = None
    burst_buffer_file: str | None = None
    time_min: Duration | None = None
    wckey: str | None = None
    profile: list[str] | None = None
    switches: PosInt | None = None
    switches_max_wait: Duration | None = None
    kill_on_bad_exit: bool | None = None
    spread_job: bool | None = None
    no_kill: bool | None = None
    overcommit: bool | None = None
    sockets_per_node: PosInt | None = None
    cores_per_socket: PosInt | None = None
    threads_per_core: PosInt | None = None
    ntasks_per_socket: PosInt | None = None
    ntasks_per_core: PosInt | None = None
    ntasks_per_gpu: PosInt | None = None
    cpus_per_gpu: PosInt | None = None
    mem_per_gpu: Size | None = None
    gpu_bind: str | None = None  # closest | none | single:N | map_gpu:… | mask_gpu:…
    gres_flags: str | None = None
    network: str | None = None
    het_components: list[SlurmHetComponent] | None = None
    # ── bammmc additions: sbatch options the specification does not list (docs/ir.md) ──
    #: memory per node (`--mem`); `0` means all of each node's memory
    mem: Size | None = None
    #: memory per allocated CPU (`--mem-per-cpu`), when it could not become per-task memory
    mem_per_cpu: Size | None = None
    #: minimum temporary disk per node (`--tmp`)
    tmp: Size | None = None
    #: node count range or list (`--nodes=2-4`), when not a single number
    nodes: str | None = None
    nodelist: str | None = None
    exclude: str | None = None
    licenses: str | None = None
    export: str | None = None
    get_user_env: str | None = None  # "" for the bare flag
    comment: str | None = None
    distribution: str | None = None
    mem_bind: str | None = None
    cpu_freq: str | None = None
    gpu_freq: str | None = None
    hint: str | None = None
    nice: int | None = None
    mincpus: PosInt | None = None
    contiguous: bool | None = None
    oversubscribe: bool | None = None
    #: `--exclusive=user|mcs|topo` (a bare `--exclusive` is `placement.exclusive`)
    exclusive: Literal["user", "mcs", "topo", "exclusive", "oversubscribe"] | None = None
    #: raw `--gres` list (GPUs are also in `resources.gpu`, others in `genericResources`)
    gres: str | None = None
    #: GPUs per job (`--gpus`), per node (`--gpus-per-node`), per socket, per task when typed
    gpus: str | None = None
    gpus_per_node: str | None = None
    gpus_per_socket: str | None = None
    gpus_per_task: str | None = None
    #: `--begin` / `--deadline` when not an absolute ISO 8601 time (`now+1hour`, `teatime`)
    begin: str | None = None
    deadline: str | None = None
    #: raw `--dependency` when the portable list cannot hold it (`?` = any, `aftercorr`, `+min`)
    dependency: str | None = None
    #: raw `--mail-type` when it has types without a portable event (ALL, ARRAY_TASKS…)
    mail_type: str | None = None
    #: raw `--signal` when it has `B:`/`R:` flags
    signal: str | None = None
    #: raw `-o`/`-e`/`-i` patterns when they use tokens without a template variable
    output: str | None = None
    error: str | None = None
    input: str | None = None
    kill_on_invalid_dep: bool | None = None
    ignore_pbs: bool | None = None
    priority: str | None = None  # `--priority=TOP`
    #: every other sbatch option, long name -> value ("" for a flag), in the order written
    options: dict[str, str] | None = None


class PbsExt(Ext):
    place: str | None = None
    stagein: list[str] | None = None
    stageout: list[str] | None = None
    aoe: str | None = None
    checkpoint_interval: NonNegInt | None = None
    mpiprocs_per_chunk: PosInt | None = None
    ompthreads_per_chunk: PosInt | None = None
    mixed_chunks: str | None = None
    # ── bammmc additions: qsub options the specification does not list (docs/ir.md) ──
    #: `-q queue@server`: the server part
    server: str | None = None
    #: raw `select=` when the chunk holds resources SPLAT has no field for
    select: str | None = None
    #: Torque `nodes=` spec when it is not a plain `N:ppn=M[:gpus=G]`
    nodes: str | None = None
    #: CPU time limits: never walltime (pitfall 16)
    cput: Duration | None = None
    pcput: Duration | None = None
    #: job-wide memory (Torque `-l mem`) when it cannot become per-task memory
    mem: Size | None = None
    #: every other `-l` resource, name -> value as written
    resources: dict[str, str] | None = None
    #: `-j eo` (stdout into stderr); `-j oe` is `output.mergeStderr`
    join: Literal["oe", "eo"] | None = None
    keep: str | None = None
    #: raw `-m` when it has letters without a portable event (`j`, Torque `f`/`p`)
    mail_points: str | None = None
    group_list: str | None = None
    umask: str | None = None
    sandbox: Literal["PRIVATE", "HOME"] | None = None
    #: native `-p` when the priority band cannot carry it exactly
    priority: Annotated[int, msgspec.Meta(ge=-1024, le=1023)] | None = None
    #: raw `-a` when it is not a full date and time
    begin: str | None = None
    #: raw `-W depend=` when the portable list cannot hold it (`before*`, `on`, arrays…)
    dependency: str | None = None
    #: raw `-o`/`-e` with a `host:` part
    output: str | None = None
    error: str | None = None
    #: every other qsub option, letter -> value ("" for a flag)
    options: dict[str, str] | None = None


class LsfComputeUnit(Ext):
    type: Literal["rack", "chassis", "enclosure", "switch"] | None = None
    policy: Literal["pack", "balance", "any"] | None = None
    max_units: PosInt | None = None
    exclusive: bool | None = None


class LsfExt(Ext):
    app_profile: str | None = None
    service_class: str | None = None
    license_project: str | None = None
    rusage_string: str | None = None
    compute_unit: LsfComputeUnit | None = None
    same_resource: list[str] | None = None
    order_expression: str | None = None
    autoresizable: bool | None = None
    frequency: str | None = None
    pre_exec: str | None = None
    post_exec: str | None = None
    cpu_time_limit: Duration | None = None
    stack_limit: Size | None = None
    thread_limit: PosInt | None = None
    run_window: str | None = None
    gpu_options: str | None = None
    # ── bammmc additions: bsub options the specification does not list (docs/ir.md) ──
    #: `-M` memory limit: per process, or per job with `LSB_JOB_MEMLIMIT=y` (pitfall 3)
    mem_limit: Size | None = None
    #: `-M N!`: a hard limit LSF enforces by killing the job
    mem_limit_hard: bool | None = None
    #: `resources.memoryPerTask` is the `-M` limit: the job reserved no memory (`rusage[mem]`)
    memory_from_limit: bool | None = None
    #: raw `select[…]` expression when it is not a plain `&&` of host features
    select: str | None = None
    #: raw `span[…]` contents when not `hosts=1` or `ptile=N`
    span: str | None = None
    #: raw `cu[…]` contents when `compute_unit` cannot hold them (`pref=`, other types)
    cu: str | None = None
    #: raw `affinity[…]` contents when not `core(N)` (that is `resources.cpusPerTask`)
    affinity: str | None = None
    #: the `-R` strings as written when the fields cannot rebuild them (compound `N*{…}`,
    #: alternative `{…} || {…}`, one section in several `-R` options)
    resreq: list[str] | None = None
    #: `-n MIN,MAX`: the maximum (`resources.tasks` holds the minimum)
    max_tasks: PosInt | None = None
    #: the node count was given with `-nnodes` (IBM CSM clusters such as Summit)
    nnodes: bool | None = None
    #: `-alloc_flags` as written (CSM: `gpumps`, `smt4`, `nvme`…)
    alloc_flags: str | None = None
    #: `-q "q1 q2"`: every queue, in order (`schedule.queue` holds the first)
    queues: list[str] | None = None
    #: `-m` candidate hosts and host groups (with `+N` preferences), as written
    hosts: str | None = None
    #: native `-sp` when the priority band cannot carry it exactly
    priority: PosInt | None = None
    #: raw `-w` when the portable list cannot hold it (`||`, `!`, exit codes, `num*()`,
    #: wildcards, array elements, `post_*`)
    dependency: str | None = None
    #: raw `-b` / `-t` when not a full `year:month:day:hour:minute` time
    begin: str | None = None
    deadline: str | None = None
    #: raw `-W` when it has a `/host` normalization part
    run_limit: str | None = None
    #: every `-f` transfer as written, when one is not a plain copy in (`>`) or out (`<`)
    files: list[str] | None = None
    #: raw `-env` when it excludes (`~VAR`) or passes names without values
    env: str | None = None
    #: `-L`: the login shell that initializes the job's environment
    login_shell: str | None = None
    #: `-outdir` (may hold `%J`, `%I`, `%U`… patterns)
    outdir: str | None = None
    #: open mode of stderr when it differs from stdout's (`-o` with `-eo`, `-oo` with `-e`)
    error_open_mode: Literal["truncate", "append"] | None = None
    #: every other bsub option, name without `-` -> value ("" for a flag)
    options: dict[str, str] | None = None


HtcondorUniverse = Literal[
    "vanilla", "docker", "container", "parallel", "java", "vm", "grid", "local", "scheduler"
]


class HtcondorQueue(Ext):
    """A `queue` statement that is more than `queue [N]` (bammmc addition; docs/ir.md)."""

    #: COUNT as written, when it is not a plain number (`$(N)`, an expression)
    count: str | None = None
    #: the item variables (`Item` when none is named)
    vars: list[str] | None = None
    mode: Literal["in", "from", "matching"] | None = None
    #: the items as written in the file (`from`: one line each)
    items: list[str] | None = None
    #: `from FILE` or `from CMD |`: where the items come from at submit time
    source: str | None = None
    #: `[start:end:step]` contents
    slice: str | None = None
    #: `matching files|dirs|any`, `from table(…)`
    qualifier: str | None = None


class HtcondorCluster(Ext):
    """A later `queue` statement of the same file: a cluster of its own (bammmc addition)."""

    #: the commands set between the previous `queue` and this one, name as written -> value
    commands: dict[str, str] | None = None
    #: the statement's arguments as written (`3`, `x from (…)`); "" for a bare `queue`
    queue: str = ""


class HtcondorExt(Ext):
    universe: HtcondorUniverse | None = None
    requirements: str | None = None
    rank: str | None = None
    periodic_hold: str | None = None
    periodic_hold_reason: str | None = None
    periodic_hold_subcode: int | None = None
    periodic_release: str | None = None
    periodic_remove: str | None = None
    periodic_vacate: str | None = None
    on_exit_hold: str | None = None
    on_exit_remove: str | None = None
    checkpoint_exit_code: int | None = msgspec.field(default=None, name="checkpointExitCode")
    concurrency_limits: list[str] | None = None
    max_materialize: PosInt | None = None
    max_idle: PosInt | None = None
    retry_request_memory: list[Size] | None = None
    retry_request_disk: list[Size] | None = None
    project_name: str | None = None
    accounting_group: str | None = None
    batch_name: str | None = None
    log: str | None = None
    keep_claim_idle: NonNegInt | None = None
    stream_output: bool | None = None
    stream_error: bool | None = None
    encrypt_input_files: list[str] | None = None
    encrypt_output_files: list[str] | None = None
    transfer_output_remaps: dict[str, str] | None = None
    output_destination: str | None = None
    grid_resource: str | None = None
    machine_count: PosInt | None = None
    dagman: dict[str, Any] | None = None
    # ── bammmc additions: submit commands the specification does not list (docs/ir.md) ──
    #: the queue statement when it is more than `queue [N]`: items, variables, slices
    queue: HtcondorQueue | None = None
    #: the file's later `queue` statements, each a cluster of its own
    clusters: list[HtcondorCluster] | None = None
    #: `+Attr` / `MY.Attr` job attributes, name as written (`+` or `MY.` kept) -> expression
    attributes: dict[str, str] | None = None
    #: `getenv` when it is a list of names/patterns, not True/False
    getenv: str | None = None
    #: `notification` as written when the portable events cannot say it (`Always`)
    notification: str | None = None
    #: the command that named `execution.container.image` when it is not the one the universe
    #: implies (`docker_image` in the container universe)
    image_command: Literal["docker_image", "container_image"] | None = None
    #: the file's own macros that no command uses, name as written -> value
    macros: dict[str, str] | None = None
    #: every other submit command, name as written -> value as written
    commands: dict[str, str] | None = None
    #: the submit commands (lower case; `+projectname`) whose portable field holds macro
    #: references the reader kept as written (`$(input)`, `$$(Memory)`, `$ENV(…)`, queue
    #: variables): the writer writes their `$` as it is; elsewhere a `$` is literal text
    kept_macros: list[str] | None = None
    #: statements kept as written: `include` lines and `if` blocks whose condition only the
    #: submitting machine decides (written just before `queue`)
    verbatim: list[str] | None = None


class FluxSymbolicDependency(Ext):
    scheme: str
    value: str
    type: Literal["in", "out", "inout"] | None = None
    scope: Literal["user", "global"] | None = None


class FluxEmbeddedFile(Ext, kw_only=True):
    encoding: Literal["utf-8", "base64"] | None = None
    data: str
    size: NonNegInt | None = None
    #: the file's POSIX `st_mode` (RFC 37; bammmc addition, docs/ir.md)
    mode: NonNegInt | None = None


class FluxCountExpression(Ext):
    min: NonNegInt | None = None
    max: NonNegInt | None = None
    operator: Literal["+", "*", "^"] | None = None
    operand: int | None = None


class FluxExt(Ext):
    bank: str | None = None
    urgency: Annotated[int, msgspec.Meta(ge=0, le=31)] | None = None
    resource_graph: list[dict[str, Any]] | None = None
    symbolic_dependencies: list[FluxSymbolicDependency] | None = None
    embedded_files: dict[str, FluxEmbeddedFile] | None = msgspec.field(
        default=None, name="embeddedFiles"
    )
    preemptible_after: Annotated[float, msgspec.Meta(ge=0)] | None = None
    count_expression: FluxCountExpression | None = None
    constraints_spec: dict[str, Any] | None = None
    shell_options: dict[str, Any] | None = None
    user_attributes: dict[str, Any] | None = None
    #: `flux batch` options no portable field holds, as written: long name -> values in order
    #: ("" for a flag); bammmc addition (docs/ir.md), read and written by `flux-batch`
    batch_options: dict[str, list[str]] | None = None
    #: the batch script has neither `-n` nor `-N`, which `flux batch` then needs on its command
    #: line; the `flux-batch` writer leaves the count off again (bammmc addition, docs/ir.md)
    slots_from_command_line: bool | None = None
    # ── bammmc additions: jobspec parts the specification does not list (docs/ir.md) ──
    #: the jobspec `version` when it is not 1 (canonical RFC 14 jobspecs)
    version: PosInt | None = None
    #: the task as written, without its `command` (`slot`, `count`, `attributes`…)
    task: dict[str, Any] | None = None
    #: every task as written, when the jobspec has more than one
    tasks: list[dict[str, Any]] | None = None
    #: `attributes.system` keys no field holds (unknown ones, `duration: 0`, `job.*` but name)
    system: dict[str, Any] | None = None
    #: environment variables the jobspec unsets (`NAME: null`)
    env_unset: list[str] | None = None


class ArmadaIngress(Ext):
    ports: list[Port] | None = None
    tls_enabled: bool | None = None
    cert_name: str | None = None
    use_cluster_ip: bool | None = None
    annotations: dict[str, str] | None = None


class ArmadaService(Ext):
    type: Literal["NodePort", "Headless"] | None = None
    ports: list[Port] | None = None
    name: str | None = None


class ArmadaExt(Ext):
    job_set_id: str | None = None
    scheduler_name: str | None = None
    ingress: list[ArmadaIngress] | None = None
    services: list[ArmadaService] | None = None
    namespace: str | None = None


VolcanoPlugin = Literal[
    "gang", "svc", "ssh", "env", "pytorch", "tensorflow", "mpi", "paddle", "mxnet", "ray"
]
VolcanoEvent = Literal[
    "PodFailed",
    "PodEvicted",
    "PodPending",
    "PodRunning",
    "TaskCompleted",
    "TaskFailed",
    "Unknown",
    "OutOfSync",
    "CommandIssued",
    "JobUpdated",
    "*",
]
VolcanoAction = Literal[
    "AbortJob",
    "TerminateJob",
    "CompleteJob",
    "ResumeJob",
    "RestartJob",
    "RestartTask",
    "RestartPod",
    "RestartPartition",
    "SyncJob",
    "EnqueueJob",
]


class VolcanoPolicy(Ext, kw_only=True):
    event: VolcanoEvent | None = None
    action: VolcanoAction
    timeout: Duration | None = None
    events: list[VolcanoEvent] | None = None
    exit_code: int | None = None


class VolcanoExt(Ext):
    min_success: PosInt | None = None
    max_retry: NonNegInt | None = None
    ttl_seconds: NonNegInt | None = None
    running_estimate: Duration | None = None
    plugins: list[VolcanoPlugin] | None = None
    policies: list[VolcanoPolicy] | None = None
    network_topology: dict[str, Any] | None = None


class KueueReclaimPods(Ext):
    pod_set_name: str
    count: NonNegInt


class KueueExt(Ext):
    local_queue: str | None = None
    workload_priority_class: str | None = None
    max_execution_time: PosInt | None = None
    min_count: PosInt | None = None
    reclaim_pods: list[KueueReclaimPods] | None = None


class YunikornExt(Ext):
    app_id: str | None = None
    disable_state_aware: bool | None = None
    gang_scheduling_style: Literal["Soft", "Hard"] | None = None
    gang_timeout: NonNegInt | None = None


class RunaiExt(Ext):
    project: str | None = None
    department: str | None = None
    interactive: bool | None = None
    large_shm: bool | None = None
    min_replicas: NonNegInt | None = msgspec.field(default=None, name="minReplicas")
    max_replicas: PosInt | None = None
    node_pools: list[str] | None = msgspec.field(default=None, name="nodePools")
    mig_profile: str | None = msgspec.field(default=None, name="migProfile")
    pod_group_policy: Literal["all", "none"] | None = None
    run_as_user: bool | None = None
    service_account: str | None = None


class SgeExt(Ext):
    """Grid Engine: not in the SPLAT specification; a bammmc addition (docs/ir.md, docs/sge.md)."""

    #: `-pe NAME …`: the parallel environment (site configuration; decides thread vs task slots)
    pe: str | None = None
    #: `-pe NAME RANGE` when the slots are a range (`2-8`, `4-`, `-8`), as written
    pe_slots: str | None = None
    #: the `-l` resource that held the job's memory (`h_vmem`, `mem_free`, `m_mem_free`…)
    memory_resource: str | None = None
    #: other memory limits (`s_vmem`, `h_rss`, `h_fsize`…): per slot, scope `slot`
    slot_memory: dict[str, Size] | None = None
    #: every other hard `-l` resource, name -> value as written (`gpu`, `arch`, `h_cpu`…)
    resources: dict[str, str] | None = None
    #: `-soft -l …` requests and `-soft -q …`: preferences, not requirements
    soft_resources: dict[str, str] | None = None
    soft_queue: str | None = None
    #: `-l s_rt`: the soft wall-clock limit (SIGUSR1 first)
    s_rt: Duration | None = None
    #: `-hold_jid` when it names jobs or patterns (numeric ids are `dependencies`)
    hold_jid: list[str] | None = None
    #: `-hold_jid_ad`: task i waits for task i of the listed array jobs
    hold_jid_ad: list[str] | None = None
    #: `-cwd`: run in the submission directory (Grid Engine's default is the home directory)
    cwd: bool | None = None
    #: `-b y|n`: the job is a binary (qsub takes it only on the command line)
    binary: bool | None = None
    #: `-R y|n`: resource reservation for this job
    reserve: bool | None = None
    #: `-notify`: SIGUSR1/SIGUSR2 before SIGSTOP/SIGKILL
    notify: bool | None = None
    #: `-now y|n`: schedule immediately or fail
    now: bool | None = None
    #: `-ckpt NAME`: checkpointing environment
    ckpt: str | None = None
    #: native `-p` (-1023..1024) when the priority band cannot carry it exactly
    priority: Annotated[int, msgspec.Meta(ge=-1023, le=1024)] | None = None
    #: raw `-a` without century and year (`MMDDhhmm`)
    begin: str | None = None
    #: `-dl`: the deadline initiation time, as written (not SPLAT's `schedule.deadline`)
    deadline: str | None = None
    #: raw `-o`/`-e`/`-i` with a `host:` part, a list, a directory or `$HOME`-style variables
    output: str | None = None
    error: str | None = None
    input: str | None = None
    #: raw `-S` with a `host:` part or a list
    shell: str | None = None
    #: raw `-m` with `s` (mail on suspend), which has no portable event
    mail_points: str | None = None
    #: `-v NAME` without a value: copies the submitter's value
    export: list[str] | None = None
    #: every other qsub option, name -> value ("" for a flag)
    options: dict[str, str] | None = None


class Extensions(Ext):
    slurm: SlurmExt | None = None
    pbs: PbsExt | None = None
    lsf: LsfExt | None = None
    htcondor: HtcondorExt | None = None
    flux: FluxExt | None = None
    armada: ArmadaExt | None = None
    volcano: VolcanoExt | None = None
    kueue: KueueExt | None = None
    yunikorn: YunikornExt | None = None
    runai: RunaiExt | None = None
    sge: SgeExt | None = None


# ── spec / Job ────────────────────────────────────────────────────────────────────────────


class Spec(Splat):
    schedule: Schedule | None = None
    resources: Resources | None = None
    execution: Execution | None = None
    tasks: list[Task] | None = None
    gang: Gang | None = None
    array: Array | None = None
    dependencies: list[Dependency] | None = None
    lifecycle: Lifecycle | None = None
    placement: Placement | None = None
    output: Output | None = None
    notifications: Notifications | None = None
    file_staging: FileStaging | None = None
    volumes: list[Volume] | None = None
    workload_type: Literal["training", "interactive", "inference", "batch"] | None = None
    distributed_framework: (
        Literal["pytorch", "tensorflow", "mpi", "horovod", "xgboost", "none"] | None
    ) = None
    extensions: Extensions | None = None


class Job(Splat):
    """A SPLAT job: ``apiVersion``, ``kind``, ``metadata``, ``spec``."""

    api_version: Literal["bammm.io/v1alpha1"] = msgspec.field(name="apiVersion")
    kind: Literal["Job"]
    metadata: Metadata | None = None
    spec: Spec | None = None


def new_job(**spec: Any) -> Job:
    """A job with the given ``spec`` fields (a convenience for tests and frontends).

    >>> new_job(schedule=Schedule(queue="batch")).spec.schedule.queue
    'batch'
    """
    return Job(api_version=API_VERSION, kind="Job", spec=Spec(**spec) if spec else None)
