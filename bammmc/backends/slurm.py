"""The Slurm writer (format ``slurm``): IR -> sbatch script.

Long options in a fixed order, one per `#SBATCH` line, values quoted by sbatch's own tokenizer
rules (shared/docs/formats/slurm.md §1.1) so that no value can end the directive or inject
another; values no directive can carry (a newline) are errors. `extensions.slurm` wins over the
portable field it refines (SPLAT specification). The script body is written byte for byte after
the directives; a body with `#PBS`/`#BSUB` lines gets `--ignore-pbs`, since sbatch would obey them.

Siblings: ``frontends/slurm.py``, ``passes/lower/slurm.py``, ``backends/slurm_options.py``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Final

from bammmc.backends import OutputFile, WriteOptions
from bammmc.backends.common import (
    BLANK,
    LossReports,
    camel,
    read_own,
    refuse_separator,
    refuse_unreadable,
    report_foreign,
    report_separator,
    report_shadowed,
    report_unsupported,
    rewrite_launchers,
    separator_in,
)
from bammmc.backends.container import refuser, script_body
from bammmc.backends.slurm_options import (
    EXT_FLAGS,
    EXT_INTS,
    EXT_STRINGS,
    OPTIONS,
    PLUGIN_OPTIONS,
    SLURM_MAX_SECONDS,
    SLURM_SIGNALS,
)
from bammmc.capabilities import EXACT, Capabilities, Capability, approx, exact, lost
from bammmc.diagnostics.model import Reporter
from bammmc.facts.slurm import default_output
from bammmc.ir.envvars import compatibility_block, job_shell
from bammmc.ir.job import Execution, Job, Output, Resources, Schedule, SlurmExt, Spec
from bammmc.ir.priority import to_native
from bammmc.ir.values import Count, Duration, Size, Template, human_size, is_digits

MIB: Final = 1024 * 1024

#: template variable -> sbatch filename token
PATTERN_TOKENS: Final = {
    "job_id": "%j",
    "array_job_id": "%A",
    "array_index": "%a",
    "job_name": "%x",
    "node_hostname": "%N",
    "task_index": "%t",
}
MAIL_TYPES: Final = {
    "begin": "BEGIN",
    "end": "END",
    "fail": "FAIL",
    "requeue": "REQUEUE",
    "time_limit_50": "TIME_LIMIT_50",
    "time_limit_80": "TIME_LIMIT_80",
    "time_limit_90": "TIME_LIMIT_90",
}

#: extensions.slurm key -> option, from the one table the reader uses too
EXT_STRING_OPTIONS: Final = {key: option for option, key in EXT_STRINGS.items()}
EXT_INT_OPTIONS: Final = {key: option for option, key in EXT_INTS.items()}
EXT_FLAG_OPTIONS: Final = {
    **{key: option for option, key in EXT_FLAGS.items()},
    "no_kill": "no-kill",  # read as `--no-kill` without a value
    "spread_job": "spread-job",  # read as placement.topology scatter; written when set here
}

#: IR fields written exactly, approximated, or not at all (for the fidelity pass)
CAPABILITIES: Final = Capabilities(
    "slurm",
    ("slurm",),
    {
        "apiVersion": EXACT,
        "kind": EXACT,
        "metadata.name": EXACT,
        "metadata.labels": lost("sbatch has no option for it"),
        "metadata.annotations": lost("sbatch has no option for it"),
        "metadata.clientId": lost("sbatch has no option for it"),
        "spec.schedule.queue": EXACT,
        "spec.schedule.priority": exact(
            "",
            (
                (
                    "only Slurm operators and administrators may set `--priority`; for "
                    "other users Slurm ignores it (checked)"
                ),
                "W301",
            ),
        ),
        "spec.schedule.priorityClass": lost("sbatch has no option for it"),
        "spec.schedule.account": EXACT,
        "spec.schedule.project": lost("sbatch has no option for it"),
        "spec.schedule.walltime": EXACT,
        "spec.schedule.qos": EXACT,
        "spec.schedule.partition": EXACT,
        "spec.schedule.hold": EXACT,
        "spec.schedule.reservation": EXACT,
        "spec.schedule.beginAfter": approx(
            "written in UTC; sbatch reads times in the cluster's local time zone"
        ),
        "spec.schedule.deadline": approx(
            "written in UTC; sbatch reads times in the cluster's local time zone"
        ),
        "spec.schedule.walltimeMin": EXACT,
        "spec.schedule.signalBeforeEnd": EXACT,
        "spec.resources.cpusPerTask": exact(
            "",
            (("sbatch refuses --cpus-per-task beside --cpus-per-gpu (extensions.slurm)"), "W201"),
        ),
        "spec.resources.memoryPerTask": exact(
            "",
            ("rounded up to whole MiB (7248M)", "W301"),
        ),
        "spec.resources.tasks": EXACT,
        "spec.resources.nodes": EXACT,
        "spec.resources.tasksPerNode": EXACT,
        "spec.resources.gpu.count": exact(
            "",
            (
                (
                    "the raw `extensions.slurm.gres` is written instead, and it says "
                    "something else for Slurm"
                ),
                "W301",
            ),
        ),
        "spec.resources.gpu.type": exact(
            "",
            ("a GPU type without a count requests one GPU per node", "W301"),
        ),
        "spec.resources.gpu.memory": Capability(
            "lost",
            "Slurm cannot request GPU memory",
            "W201",
            (
                (
                    (
                        "the raw `extensions.slurm.gres` is written instead, and it says "
                        "something else for Slurm"
                    ),
                    "W301",
                ),
            ),
            by_writer=True,
        ),
        "spec.resources.gpu.fraction": approx(
            "Slurm allocates whole GPUs: a fraction alone is rounded up to one GPU; beside a "
            "count it is dropped (W201)"
        ),
        "spec.resources.gpu.migProfile": EXACT,
        "spec.resources.diskPerTask": exact(
            "",
            (
                ("`--tmp` is a minimum of node-local disk per node, not a per-task reservation"),
                "W301",
            ),
        ),
        "spec.resources.genericResources": exact(
            "",
            ("the raw `--gres` of extensions.slurm is written instead", "W301"),
            ("a count per task or job is written per node, a fraction rounded up", "W301"),
            ("a name `--gres` cannot hold, `none`, a `gpu` beside the GPU request", "W201"),
        ),
        "spec.resources.limits": lost("sbatch has no option for it"),
        "spec.execution.container.image": exact(
            "",
            ("a container without an image or command runs nothing", "W201"),
            ("run through `apptainer exec docker://…`; the cluster needs Apptainer", "W301"),
        ),
        "spec.execution.container.imagePullPolicy": exact(
            "",
            ("a container without an image or command runs nothing", "W201"),
        ),
        "spec.execution.container.imagePullSecrets": exact(
            "",
            ("a container without an image or command runs nothing", "W201"),
        ),
        "spec.execution.container.command": exact(
            "",
            ("a container without an image or command runs nothing", "W201"),
        ),
        "spec.execution.container.args": exact(
            "",
            ("a container without an image or command runs nothing", "W201"),
        ),
        "spec.execution.script": exact(
            "",
            ("`$BAMMM_ARRAY_INDEX` is defined from `$SLURM_ARRAY_TASK_ID`", "N003"),
            (
                "`$LSB_MCPU_HOSTS` has no equivalent here: it is empty in the converted script",
                "W301",
            ),
        ),
        "spec.execution.executable": EXACT,
        "spec.execution.arguments": EXACT,
        "spec.execution.shell": exact(
            "",
            ("the script's own `#!/bin/sh ` line names its interpreter", "W201"),
        ),
        "spec.execution.workingDir": EXACT,
        "spec.execution.environment.vars": exact(
            "",
            ("the raw `--export` of extensions.slurm is written instead", "W301"),
        ),
        "spec.execution.environment.secrets": Capability(
            "lost",
            "Kubernetes secrets and config maps do not exist on Slurm",
            "W201",
            (("the raw `--export` of extensions.slurm is written instead", "W301"),),
            by_writer=True,
        ),
        "spec.execution.environment.configMaps": Capability(
            "lost",
            "Kubernetes secrets and config maps do not exist on Slurm",
            "W201",
            (("the raw `--export` of extensions.slurm is written instead", "W301"),),
            by_writer=True,
        ),
        "spec.execution.environment.inheritFromSubmitter": exact(
            "",
            ("the raw `--export` of extensions.slurm is written instead", "W301"),
        ),
        "spec.execution.stdin": exact(
            "",
            (
                (
                    "the raw `extensions.slurm.input` is written instead, and it says "
                    "something else for Slurm"
                ),
                "W301",
            ),
        ),
        "spec.tasks": lost("sbatch has no option for it"),
        "spec.gang": lost("sbatch has no option for it"),
        "spec.array.indices": EXACT,
        "spec.array.maxConcurrent": lost(
            "a throttle without indices has no array to limit", by_writer=True
        ),
        "spec.dependencies": exact(
            "",
            ("`e3sm-spinup-m07` is not a Slurm job id; Slurm depends on ids only", "W201"),
            (
                (
                    "the raw `extensions.slurm.dependency` is written instead, and it "
                    "says something else for Slurm"
                ),
                "W301",
            ),
        ),
        "spec.lifecycle.maxRetries": lost("sbatch has no option for it"),
        "spec.lifecycle.requeueOnFailure": EXACT,
        "spec.lifecycle.successExitCodes": lost("sbatch has no option for it"),
        "spec.lifecycle.ttlAfterFinished": lost("sbatch has no option for it"),
        "spec.placement.nodeSelector": lost("sbatch has no option for it"),
        "spec.placement.tolerations": lost("sbatch has no option for it"),
        "spec.placement.affinity": lost("sbatch has no option for it"),
        "spec.placement.topologySpread": lost("sbatch has no option for it"),
        "spec.placement.topology": exact(
            "",
            ("`pack` is written as `--nodes=1`", "W301"),
            ("`pack` beside a node count of more than one", "W201"),
        ),
        "spec.placement.groupBy": lost("sbatch has no option for it"),
        "spec.placement.constraint": EXACT,
        "spec.placement.prefer": EXACT,
        "spec.placement.exclusive": exact(
            "",
            (
                (
                    "the raw `extensions.slurm.exclusive` is written instead, and it "
                    "says something else for Slurm"
                ),
                "W301",
            ),
        ),
        "spec.placement.nodePools": lost("sbatch has no option for it"),
        "spec.output.stdout": exact(
            "",
            (
                (
                    "the raw `extensions.slurm.output` is written instead, and it says "
                    "something else for Slurm"
                ),
                "W301",
            ),
        ),
        "spec.output.stderr": exact(
            "",
            (
                (
                    "the raw `extensions.slurm.output` is written instead, and it says "
                    "something else for Slurm"
                ),
                "W301",
            ),
            ("merged into the output file (`mergeStderr`): `--error` is not written", "W301"),
        ),
        "spec.output.mergeStderr": exact(
            "",
            (
                ("stdout and stderr stay separate, in Slurm-style default names (slurm-%j.err)"),
                "W301",
            ),
        ),
        "spec.output.openMode": EXACT,
        "spec.notifications.email": EXACT,
        "spec.notifications.events": exact(
            "",
            (
                (
                    "the raw `extensions.slurm.mail_type` is written instead, and it "
                    "says something else for Slurm"
                ),
                "W301",
            ),
        ),
        "spec.fileStaging.inputs": lost("sbatch has no option for it"),
        "spec.fileStaging.outputs": lost("sbatch has no option for it"),
        "spec.fileStaging.embeddedFiles": lost("sbatch has no option for it"),
        "spec.fileStaging.transferPolicy": lost("sbatch has no option for it"),
        "spec.fileStaging.checkpointFiles": lost("sbatch has no option for it"),
        "spec.volumes": lost("sbatch has no option for it"),
        "spec.workloadType": lost("sbatch has no option for it"),
        "spec.distributedFramework": lost("sbatch has no option for it"),
        "spec.extensions.slurm.partition": EXACT,
        "spec.extensions.slurm.mpi": exact(
            "",
            ("`--mpi` is an srun option; sbatch has none", "W201"),
        ),
        "spec.extensions.slurm.burst_buffer": EXACT,
        "spec.extensions.slurm.burst_buffer_file": EXACT,
        "spec.extensions.slurm.time_min": EXACT,
        "spec.extensions.slurm.wckey": EXACT,
        "spec.extensions.slurm.profile": EXACT,
        "spec.extensions.slurm.switches": EXACT,
        "spec.extensions.slurm.switches_max_wait": exact(
            "", ("without `switches`: it is the `@time` of `--switches`", "W201")
        ),
        "spec.extensions.slurm.kill_on_bad_exit": exact(
            "",
            ("`--kill-on-bad-exit` is an srun option; sbatch has none", "W201"),
        ),
        "spec.extensions.slurm.spread_job": EXACT,
        "spec.extensions.slurm.no_kill": EXACT,
        "spec.extensions.slurm.overcommit": EXACT,
        "spec.extensions.slurm.sockets_per_node": EXACT,
        "spec.extensions.slurm.cores_per_socket": EXACT,
        "spec.extensions.slurm.threads_per_core": EXACT,
        "spec.extensions.slurm.ntasks_per_socket": EXACT,
        "spec.extensions.slurm.ntasks_per_core": EXACT,
        "spec.extensions.slurm.ntasks_per_gpu": EXACT,
        "spec.extensions.slurm.cpus_per_gpu": EXACT,
        "spec.extensions.slurm.mem_per_gpu": exact(
            "",
            (
                ("sbatch takes one of --mem, --mem-per-cpu, --mem-per-gpu; `--mem` is written"),
                "W201",
            ),
            ("rounded up to whole MiB (3720M)", "W301"),
        ),
        "spec.extensions.slurm.gpu_bind": EXACT,
        "spec.extensions.slurm.gres_flags": EXACT,
        "spec.extensions.slurm.network": EXACT,
        "spec.extensions.slurm.het_components": exact(
            "",
            ("MIG slices are site-defined GRES in Slurm", "W201"),
            ("every component of a Slurm job runs the one batch script", "W201"),
            ("rounded up to whole MiB (244141M)", "W301"),
        ),
        "spec.extensions.slurm.mem": exact("", ("rounded up to whole MiB (57221M)", "W301")),
        "spec.extensions.slurm.mem_per_cpu": exact(
            "",
            (
                ("sbatch takes one of --mem, --mem-per-cpu, --mem-per-gpu; `--mem` is written"),
                "W201",
            ),
            ("rounded up to whole MiB (3720M)", "W301"),
        ),
        "spec.extensions.slurm.tmp": exact("", ("rounded up to whole MiB (57221M)", "W301")),
        "spec.extensions.slurm.nodes": EXACT,
        "spec.extensions.slurm.nodelist": EXACT,
        "spec.extensions.slurm.exclude": EXACT,
        "spec.extensions.slurm.licenses": EXACT,
        "spec.extensions.slurm.export": EXACT,
        "spec.extensions.slurm.get_user_env": EXACT,
        "spec.extensions.slurm.comment": EXACT,
        "spec.extensions.slurm.distribution": EXACT,
        "spec.extensions.slurm.mem_bind": EXACT,
        "spec.extensions.slurm.cpu_freq": EXACT,
        "spec.extensions.slurm.gpu_freq": EXACT,
        "spec.extensions.slurm.hint": EXACT,
        "spec.extensions.slurm.nice": EXACT,
        "spec.extensions.slurm.mincpus": EXACT,
        "spec.extensions.slurm.contiguous": EXACT,
        "spec.extensions.slurm.oversubscribe": EXACT,
        "spec.extensions.slurm.exclusive": EXACT,
        "spec.extensions.slurm.gres": EXACT,
        "spec.extensions.slurm.gpus": EXACT,
        "spec.extensions.slurm.gpus_per_node": EXACT,
        "spec.extensions.slurm.gpus_per_socket": EXACT,
        "spec.extensions.slurm.gpus_per_task": exact(
            "",
            ("sbatch refuses it beside --ntasks-per-gpu", "W201"),
        ),
        "spec.extensions.slurm.begin": EXACT,
        "spec.extensions.slurm.deadline": EXACT,
        "spec.extensions.slurm.dependency": EXACT,
        "spec.extensions.slurm.mail_type": EXACT,
        "spec.extensions.slurm.signal": EXACT,
        "spec.extensions.slurm.output": EXACT,
        "spec.extensions.slurm.error": EXACT,
        "spec.extensions.slurm.input": EXACT,
        "spec.extensions.slurm.kill_on_invalid_dep": EXACT,
        "spec.extensions.slurm.ignore_pbs": EXACT,
        "spec.extensions.slurm.priority": EXACT,
        "spec.extensions.slurm.options": EXACT,
    },
)


class _Writer(LossReports):
    WHERE = "for Slurm"

    def __init__(self, job: Job, reporter: Reporter, options: WriteOptions) -> None:
        self.job = job
        self.reporter = reporter
        self.options = options
        self.lines: list[str] = []
        #: the field each written line comes from (`refuse_unreadable`)
        self.fields: dict[str, str] = {}

    # -- reporting -------------------------------------------------------------------------

    # -- emitting --------------------------------------------------------------------------

    def opt(self, name: str, value: object = None, path: str | None = None) -> None:
        assert name in OPTIONS or name in PLUGIN_OPTIONS, name
        if value is None or value is True:
            self.lines.append(f"#SBATCH --{name}")
            return
        text = str(value)
        if "\n" in text or "\r" in text:
            self.reporter.report(
                "E140",
                f"the value of `--{name}` contains a line break, which no `#SBATCH` line can carry",
                field=path,
                help="remove the line break from the value",
            )
            return
        line = f"#SBATCH --{name}={quote(text)}"
        self.lines.append(line)
        if path is not None:
            self.fields[line] = path


def quote(value: str) -> str:
    """Quote a value so sbatch's tokenizer reads it back exactly.

    >>> quote("plain"), quote("my job"), quote('a"b#c'), quote("")
    ('plain', '"my job"', '"a\\\\"b#c"', '""')
    """
    if value and all(c.isalnum() or c in "-_.,:/@%=+*[]()^~!?{}<>|&;$" for c in value):
        return value
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def slurm_time(seconds: int | None) -> str:
    """Slurm's `[D-]HH:MM:SS` (or `UNLIMITED`).

    >>> slurm_time(90), slurm_time(5400), slurm_time(129600), slurm_time(None)
    ('00:01:30', '01:30:00', '1-12:00:00', 'UNLIMITED')
    """
    if seconds is None:
        return "UNLIMITED"
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    clock = f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{days}-{clock}" if days else clock


def slurm_size(n_bytes: int | Fraction) -> tuple[str, bool]:
    """A Slurm size (MiB granularity, largest exact unit) and whether it is exact.

    >>> slurm_size(16 * 1024**3), slurm_size(1536 * 1024**2), slurm_size(4 * 10**9)
    (('16G', True), ('1536M', True), ('3815M', False))
    """
    mib = Fraction(n_bytes) / MIB
    whole = -(-mib.numerator // mib.denominator)
    for unit, factor in (("T", 1024 * 1024), ("G", 1024)):
        if whole % factor == 0 and whole:
            return f"{whole // factor}{unit}", whole == mib
    return f"{whole}M", whole == mib


def write(
    job: Job, reporter: Reporter | None = None, options: WriteOptions | None = None
) -> list[OutputFile]:
    reporter = reporter or Reporter()
    w = _Writer(job, reporter, options or WriteOptions())
    spec = job.spec or Spec()
    ext = spec.extensions.slurm if spec.extensions and spec.extensions.slurm else SlurmExt()
    script, shebang = script_body(
        spec, w.options.container_runtime, w.lost, w.approximated, refuser(w.reporter)
    )
    w.lines.append(shebang)
    foreign = any(line.startswith(("#PBS", "#BSUB")) for line in script.split("\n"))
    if foreign or ext.ignore_pbs:
        # sbatch obeys #PBS/#BSUB lines over #SBATCH; the job is the IR, so switch them off.
        # Only the first component's options count for this (checked), hence here.
        w.opt("ignore-pbs")
        if foreign:
            w.approximated(
                "spec.execution.script",
                "the body has #PBS/#BSUB lines, which sbatch would obey: `--ignore-pbs` is "
                "written so that only the converted options apply",
            )
    if job.metadata and job.metadata.name is not None:
        w.opt("job-name", job.metadata.name, "metadata.name")
    _component(w, spec.schedule, spec.resources, spec.placement, ext, spec, first=True)
    _job_wide(w, spec, ext)
    for chunk in _chunk_components(spec, ext):
        # the options of the component before (after the last separator)
        seps = [i for i, line in enumerate(w.lines) if line == "#SBATCH hetjob"]
        before = w.lines[seps[-1] if seps else 0 :]
        given = [line for line in before if line.startswith("#SBATCH --mem=")]
        w.lines.append("#SBATCH hetjob")
        _component(
            w,
            None,
            chunk,
            None,
            SlurmExt(),
            None,
            first=False,
            prefix="spec.extensions.pbs.mixed_chunks",
        )
        if given and chunk.memory_per_task is None:
            # `--mem` is not reset between components (reset_each_pass in slurm_opt.c; the
            # oracle's record gave the second component the first one's 64G)
            w.approximated(
                "spec.extensions.pbs.mixed_chunks",
                f"a chunk without memory inherits `{given[-1].removeprefix('#SBATCH ')}` of the "
                "component before it: sbatch carries `--mem` over to the next component",
            )
    for i, comp in enumerate(ext.het_components or ()):
        w.lines.append("#SBATCH hetjob")
        _component(
            w,
            comp.schedule,
            comp.resources,
            comp.placement,
            comp.slurm or SlurmExt(),
            None,
            first=False,
            prefix=f"spec.extensions.slurm.het_components[{i}]",
        )
    _unsupported(w, job, spec)
    if _body_has_directives(script):
        # the body's own #SBATCH lines come before its first command, so sbatch would read
        # them over the converted options: a no-op command first ends sbatch's scan
        script = ": # bammmc: the #SBATCH lines below are not read by sbatch\n" + script
        w.approximated(
            "spec.execution.script",
            "the script holds #SBATCH lines before its first command; a `:` line is put in "
            "front of them so that sbatch ignores them",
        )
    if "\r\n" in script:  # sbatch refuses DOS line ends outright (checked)
        script = script.replace("\r\n", "\n")
        w.approximated("spec.execution.script", "DOS line ends (CRLF) converted to LF")
    script = rewrite_launchers(w, script, "slurm", spec)
    script = (
        compatibility_block(
            script, "slurm", w.approximated, w.noted, shell=job_shell(spec), spec=spec
        )
        + script
    )
    text = "\n".join(w.lines) + "\n" + script
    if not refuse_unreadable(w.reporter, text, "slurm", w.fields, "slurm", "sbatch"):
        report_shadowed(w, job, "slurm", lambda: read_own(text, "slurm"), "Slurm")
    return [OutputFile(text)]


def _component(
    w: _Writer,
    sched: Schedule | None,
    res: Resources | None,
    placement: Any,
    ext: SlurmExt,
    spec: Spec | None,
    *,
    first: bool,
    prefix: str = "spec",
) -> None:
    sched = sched or Schedule()
    res = res or Resources()
    ext_path = f"{prefix}.slurm" if prefix != "spec" else "spec.extensions.slurm"
    queue = ext.partition or sched.partition or sched.queue
    if queue is not None:
        w.opt("partition", queue, f"{prefix}.schedule.queue")
    if sched.account is not None:
        w.opt("account", sched.account, f"{prefix}.schedule.account")
    if sched.qos is not None:
        w.opt("qos", sched.qos, f"{prefix}.schedule.qos")
    if sched.reservation is not None:
        w.opt("reservation", sched.reservation, f"{prefix}.schedule.reservation")
    if sched.walltime is not None:
        path = f"{prefix}.schedule.walltime"
        w.opt("time", _time_limit(w, sched.walltime, path), path)
    min_time = sched.walltime_min or ext.time_min
    if min_time is not None:
        path = f"{prefix}.schedule.walltimeMin"
        w.opt("time-min", _time_limit(w, min_time, path), path)
    if sched.hold:
        w.opt("hold")
    if ext.priority is not None:
        w.opt("priority", ext.priority, f"{ext_path}.priority")
    elif sched.priority is not None:
        w.opt(
            "priority",
            to_native(sched.priority, "slurm", w.options.band),
            f"{prefix}.schedule.priority",
        )
        w.approximated(
            f"{prefix}.schedule.priority",
            "only Slurm operators and administrators may set `--priority`; for other users "
            "Slurm ignores it (checked)",
        )
    # resources
    pack = placement is not None and placement.topology == "pack"
    nodes = ext.nodes if ext.nodes is not None else res.nodes
    if ext.nodes is not None:
        w.opt("nodes", ext.nodes, f"{prefix}.resources.nodes")
    elif res.nodes is not None:
        w.opt("nodes", res.nodes, f"{prefix}.resources.nodes")
    elif pack:
        w.opt("nodes", 1, f"{prefix}.placement.topology")
        w.approximated(
            f"{prefix}.placement.topology",
            "`pack` is written as `--nodes=1`: every task on one node",
        )
    if pack and nodes is not None:
        if str(nodes) == "1":
            w.approximated(
                f"{prefix}.placement.topology",
                "`pack` is the job's `--nodes=1`: every task on one node",
            )
        else:
            w.lost(
                f"{prefix}.placement.topology",
                f"the job asks for `--nodes={nodes}`: sbatch has no option to put every task "
                "on one node besides it",
            )
    gpus_per_task = (
        res.gpu is not None
        and res.gpu.count is not None
        and (res.gpu.count.scope or "task") == "task"
        and ext.gpus_per_task is None
        and ext.gres is None
        and ext.gpus is None
        and ext.gpus_per_node is None
    )
    if res.tasks is not None:
        w.opt("ntasks", res.tasks, f"{prefix}.resources.tasks")
    elif gpus_per_task:
        # sbatch refuses --gpus-per-task without a task count; Slurm's default is one task
        # per node, so this states the same job explicitly
        w.opt("ntasks", (res.nodes or 1) * (res.tasks_per_node or 1), f"{prefix}.resources.tasks")
    if res.tasks_per_node is not None:
        w.opt("ntasks-per-node", res.tasks_per_node, f"{prefix}.resources.tasksPerNode")
    cpus = 1
    if res.cpus_per_task is not None:
        cores = res.cpus_per_task.cores
        cpus = -(-cores.numerator // cores.denominator)
        if cpus != cores:
            w.approximated(f"{prefix}.resources.cpusPerTask", f"{cores} CPUs rounded up to {cpus}")
        if ext.cpus_per_gpu is not None:
            w.lost(
                f"{prefix}.resources.cpusPerTask",
                "sbatch refuses --cpus-per-task beside --cpus-per-gpu (extensions.slurm)",
            )
        else:
            w.opt("cpus-per-task", cpus, f"{prefix}.resources.cpusPerTask")
    _memory(w, res, ext, cpus, prefix)
    _gpus(w, res, ext, prefix)
    if ext.tmp is not None:
        text, exact = slurm_size(ext.tmp.bytes)
        w.opt("tmp", text)
        if not exact:
            w.approximated("spec.extensions.slurm.tmp", f"rounded up to whole MiB ({text})")
    elif res.disk_per_task is not None:
        per_node = res.disk_per_task.bytes * (res.tasks_per_node or 1)
        w.opt("tmp", slurm_size(per_node)[0], f"{prefix}.resources.diskPerTask")
        w.approximated(
            f"{prefix}.resources.diskPerTask",
            "`--tmp` is a minimum of node-local disk per node, not a per-task reservation",
        )
    for key, name in EXT_INT_OPTIONS.items():
        if getattr(ext, key) is not None:
            w.opt(name, getattr(ext, key), f"{ext_path}.{key}")
    for key, name in EXT_STRING_OPTIONS.items():
        if getattr(ext, key) is not None:
            w.opt(name, getattr(ext, key), f"{ext_path}.{key}")
    for key, name in EXT_FLAG_OPTIONS.items():
        if getattr(ext, key):
            w.opt(name)
    if ext.mem_per_gpu is not None:
        pass  # written by _memory
    # placement
    if placement is not None:
        for key in ("constraint", "prefer"):  # one feature syntax (sbatch.1)
            features = getattr(placement, key)
            if features is None:
                continue
            if _feature_expression(features):
                w.opt(key, features, f"{prefix}.placement.{key}")
            else:
                w.reporter.report(
                    "E140",
                    f"`{features}` is not a feature expression sbatch reads",
                    field=f"{prefix}.placement.{key}",
                    help="write features joined by `&` and `|`, e.g. `avx512&ib`",
                )
        if ext.exclusive is not None:
            w.opt("exclusive", ext.exclusive, f"{ext_path}.exclusive")
        elif placement.exclusive:
            w.opt("exclusive")
        if placement.topology == "scatter" and not ext.spread_job:
            w.opt("spread-job")
    elif ext.exclusive is not None:
        w.opt("exclusive", ext.exclusive, f"{ext_path}.exclusive")
    for key in ("mpi", "kill_on_bad_exit"):
        if getattr(ext, key) is not None:
            w.lost(
                f"{ext_path}.{key}",
                f"`--{key.replace('_', '-')}` is an srun option; sbatch has none",
            )
    if ext.switches is not None:
        limit = ext.switches_max_wait
        wait = f"@{_time_limit(w, limit, f'{ext_path}.switches_max_wait')}" if limit else ""
        w.opt("switches", f"{ext.switches}{wait}", f"{ext_path}.switches")
    elif ext.switches_max_wait is not None:
        w.lost(
            f"{ext_path}.switches_max_wait",
            "it is the `@time` of `--switches=COUNT@time`, and no switch count is given",
        )
    if ext.profile:
        w.opt("profile", ",".join(ext.profile), f"{ext_path}.profile")
    for name, value in (ext.options or {}).items():
        if name in OPTIONS or name in PLUGIN_OPTIONS:
            w.opt(name, value if value != "" else None, f"{ext_path}.options.{name}")
        else:
            w.lost(f"spec.extensions.slurm.options.{name}", f"`--{name}` is not an sbatch option")
    del spec, first


def _memory(w: _Writer, res: Resources, ext: SlurmExt, cpus: int, prefix: str) -> None:
    path = f"{prefix}.resources.memoryPerTask"
    written = [
        (ext.mem, "mem", "0"),
        (ext.mem_per_cpu, "mem-per-cpu", "0"),
        (ext.mem_per_gpu, "mem-per-gpu", "0"),
    ]
    given = [(size, name, zero) for size, name, zero in written if size is not None]
    if given:  # the option as it was written wins (SPLAT: extensions take precedence)
        size, name, zero = given[0]
        text, exact = slurm_size(size.bytes)
        w.opt(name, zero if size.bytes == 0 else text)
        if not exact:
            w.approximated(
                f"spec.extensions.slurm.{name.replace('-', '_')}",
                f"rounded up to whole MiB ({text})",
            )
        own = {"mem": "node", "mem-per-cpu": "cpu", "mem-per-gpu": "gpu"}[name]
        if size.scope not in (None, own):
            w.approximated(
                f"spec.extensions.slurm.{name.replace('-', '_')}",
                f"`--{name}` is memory per {own}: {human_size(size.bytes)} per {size.scope} "
                f"written per {own}",
            )
        for _, other, _ in given[1:]:
            w.lost(
                f"spec.extensions.slurm.{other.replace('-', '_')}",
                f"sbatch takes one of --mem, --mem-per-cpu, --mem-per-gpu; `--{name}` is written",
            )
        return
    mem = res.memory_per_task
    if mem is None:
        return
    scope = mem.scope or "task"
    # Memory per CPU is only the same as memory per task ÷ CPUs when Slurm allocates exactly
    # tasks × CPUs: never with --exclusive, --cpus-per-gpu or --mincpus (checked with real jobs)
    per_cpu_unsafe = bool(
        ext.cpus_per_gpu
        or ext.mincpus
        or ext.exclusive
        or (w.job.spec and w.job.spec.placement and w.job.spec.placement.exclusive)
    )
    # the most tasks one node runs: fewer than tasks per node when the tasks are fewer; one
    # when neither is given (sbatch's default of one task per node)
    tasks_on_node = res.tasks_per_node
    if tasks_on_node is not None and res.tasks is not None:
        tasks_on_node = min(tasks_on_node, res.tasks)
    elif tasks_on_node is None and res.tasks is None:
        tasks_on_node = 1
    elif tasks_on_node is None and res.nodes == 1:
        tasks_on_node = res.tasks
    if scope == "node":
        value, exact = slurm_size(mem.bytes)
        w.opt("mem", value, path)
    elif scope == "cpu":
        value, exact = slurm_size(mem.bytes)
        w.opt("mem-per-cpu", value, path)
    elif scope == "gpu":
        value, exact = slurm_size(mem.bytes)
        w.opt("mem-per-gpu", value, path)
    elif scope == "task" and tasks_on_node is not None:
        value, exact = slurm_size(mem.bytes * tasks_on_node)
        w.opt("mem", value, path)
    elif scope == "task" and not per_cpu_unsafe:
        value, exact = slurm_size(Fraction(mem.bytes, cpus))
        w.opt("mem-per-cpu", value, path)
    else:
        value, exact = slurm_size(mem.bytes)
        w.opt("mem", value, path)
        w.approximated(
            path, f"memory per {scope} written as memory per node (tasks per node unknown)"
        )
    if not exact:
        w.approximated(path, f"rounded up to whole MiB ({value})")


def _gpus(w: _Writer, res: Resources, ext: SlurmExt, prefix: str) -> None:
    """GPUs and other GRES. sbatch keeps only the last `--gres`, so every per-node entry goes
    into one list (checked: two `--gres` lines lose the first)."""
    raw = [
        (ext.gres, "gres"),
        (ext.gpus, "gpus"),
        (ext.gpus_per_node, "gpus-per-node"),
        (ext.gpus_per_task, "gpus-per-task"),
    ]
    if any(value is not None for value, _ in raw):
        for value, name in raw:
            if value is not None:
                if name == "gpus-per-task" and ext.ntasks_per_gpu is not None:
                    w.lost(
                        "spec.extensions.slurm.gpus_per_task",
                        "sbatch refuses it beside --ntasks-per-gpu",
                    )
                    continue
                w.opt(name, value)
        if res.generic_resources and ext.gres is None:
            _generic(w, res, prefix, [], True)
        elif res.generic_resources:
            w.approximated(
                f"{prefix}.resources.genericResources",
                "the raw `--gres` of extensions.slurm is written instead",
            )
        return
    gpu = res.gpu
    gres: list[str] = []
    if (
        gpu is not None
        and gpu.type is not None
        and refuse_separator(
            w.reporter,
            f"{prefix}.resources.gpu.type",
            gpu.type,
            GRES_SYNTAX,
            "a `--gres`/`--gpus` request",
            "Slurm reads `type:count` and ends the request at `,`, so that a type "
            "`a100:4,gpu` asks for 4 GPUs of type a100 and one more of any type (checked "
            "with the controller's TresPerTask)",
            help="use the GPU type as the site's gres.conf names it (e.g. `a100`)",
        )
    ):
        gpu = None  # refused: nothing of it is written
    if gpu is not None and (gpu.count is not None or gpu.fraction is not None):
        count = gpu.count or Count.parse(1)
        amount = count.amount
        if gpu.fraction is not None and gpu.count is None:
            w.approximated(
                f"{prefix}.resources.gpu.fraction", "a GPU fraction is rounded up to a whole GPU"
            )
        elif gpu.fraction is not None:
            w.lost(
                f"{prefix}.resources.gpu.fraction",
                "Slurm allocates whole GPUs: the count is requested, a fraction of each is not",
            )
        whole = -(-amount.numerator // amount.denominator)
        if whole != amount:
            w.approximated(f"{prefix}.resources.gpu.count", f"{amount} GPUs rounded up to {whole}")
        typed = f"{gpu.type}:{whole}" if gpu.type else str(whole)
        scope = count.scope or "task"
        if scope == "node":
            gres.append(f"gpu:{typed}")
        elif scope == "job":
            w.opt("gpus", typed, f"{prefix}.resources.gpu.count")
        elif scope == "task":
            if ext.ntasks_per_gpu is not None:
                w.lost(
                    f"{prefix}.resources.gpu.count",
                    "sbatch refuses --gpus-per-task beside --ntasks-per-gpu",
                )
            else:
                w.opt("gpus-per-task", typed, f"{prefix}.resources.gpu.count")
        else:
            w.opt("gpus-per-node", typed, f"{prefix}.resources.gpu.count")
            w.approximated(f"{prefix}.resources.gpu.count", f"GPUs per {scope} written per node")
    elif gpu is not None and gpu.type is not None:
        w.approximated(
            f"{prefix}.resources.gpu.type", "a GPU type without a count requests one GPU per node"
        )
        gres.append(f"gpu:{gpu.type}:1")
    if gpu is not None:
        for key, why in (
            ("memory", "Slurm cannot request GPU memory"),
            ("mig_profile", "MIG slices are site-defined GRES in Slurm"),
        ):
            if getattr(gpu, key) is not None:
                w.lost(
                    f"{prefix}.resources.gpu.{'migProfile' if key == 'mig_profile' else key}", why
                )
    gpus_written = gpu is not None and (
        gpu.count is not None or gpu.fraction is not None or gpu.type is not None
    )
    _generic(w, res, prefix, gres, gpus_written)


def _generic(w: _Writer, res: Resources, prefix: str, gres: list[str], gpus: bool) -> None:
    """The generic resources as `--gres` entries after ``gres`` (``gpus``: the writer wrote a
    GPU request already)."""
    for name, count in (res.generic_resources or {}).items():
        path = f"{prefix}.resources.genericResources.{name}"
        parts = name.split(":")
        sep = separator_in(name, GRES_LIST_SYNTAX) or (":" if len(parts) > 2 else None)
        if sep is not None:
            report_separator(
                w.reporter,
                path,
                sep,
                "a `--gres` list",
                "`--gres` is a `,`-separated list of `name[:type][:count]`: a `,` starts "
                "another GRES, a second `:` is read as the count (sbatch refuses "
                "`fpga:x:y:1`)",
                help="name the GRES as `name` or `name:type`, as the site's gres.conf does",
            )
            continue
        if not all(parts):
            w.lost(path, f"`{name}` is not a GRES name `--gres` can hold (`name[:type]`)")
            continue
        if parts[0] == "none":
            w.lost(path, "sbatch reads a GRES named `none` as no GRES at all")
            continue
        if parts[0] == "gpu" and gpus:
            w.lost(path, "the GPU request already names this GRES")
            continue
        amount = count.amount
        whole = -(-amount.numerator // amount.denominator)
        if count.scope != "node":
            # SPLAT resources are per task: a count without a scope is one per task
            w.approximated(
                path, f"{amount} per {count.scope or 'task'} written per node (`--gres`)"
            )
        if whole != amount:
            w.approximated(path, f"{amount} rounded up to {whole}")
        if parts[0] == "gpu":
            w.approximated(path, "`gpu` is Slurm's GPU GRES: it is read back as `resources.gpu`")
        gres.append(f"{name}:{whole}")
    if gres:
        w.opt("gres", ",".join(gres), f"{prefix}.resources.gpu")


def _job_wide(w: _Writer, spec: Spec, ext: SlurmExt) -> None:
    sched = spec.schedule or Schedule()
    if spec.array is not None and spec.array.indices is not None:
        text = str(spec.array.indices)
        if spec.array.max_concurrent is not None and spec.array.indices.throttle is None:
            text += f"%{spec.array.max_concurrent}"
        w.opt("array", text, "spec.array.indices")
    elif spec.array is not None and spec.array.max_concurrent is not None:
        w.lost("spec.array.maxConcurrent", "a throttle without indices has no array to limit")
    _dependencies(w, spec, ext)
    out = spec.output
    if ext.output is not None:
        w.opt("output", ext.output)
    elif out is not None and out.stdout is not None and _default_output(spec, out):
        pass  # sbatch's own name for it: nothing to write
    elif out is not None and out.stdout is not None:
        w.opt(
            "output",
            _file_name(w, _pattern(out.stdout), "spec.output.stdout"),
            "spec.output.stdout",
        )
    if ext.error is not None:
        w.opt("error", ext.error)
    elif out is not None and out.stderr is not None and out.merge_stderr:
        w.approximated(
            "spec.output.stderr",
            "merged into the output file (`mergeStderr`): `--error` is not written",
        )
    elif out is not None and out.stderr is not None:
        w.opt(
            "error", _file_name(w, _pattern(out.stderr), "spec.output.stderr"), "spec.output.stderr"
        )
    elif out is not None and out.merge_stderr is False:
        # Slurm merges the streams unless --error names a file: keep them apart explicitly
        if out.stdout is None and ext.output is None:
            w.opt("output", "slurm-%j.out", "spec.output.mergeStderr")
        w.opt("error", "slurm-%j.err", "spec.output.mergeStderr")
        w.approximated(
            "spec.output.mergeStderr",
            "stdout and stderr stay separate, in Slurm-style default names (slurm-%j.err)",
        )
    if out is not None and out.open_mode is not None:
        w.opt("open-mode", out.open_mode, "spec.output.openMode")
    # the raw `--input`/`--export` are written with or without an `execution` block
    ex = spec.execution or Execution()
    if ex.working_dir is not None:
        w.opt("chdir", ex.working_dir, "spec.execution.workingDir")
    if ext.input is not None:
        w.opt("input", ext.input, "spec.extensions.slurm.input")
    elif ex.stdin is not None:
        stdin = _file_name(w, ex.stdin.replace("%", "%%"), "spec.execution.stdin")
        w.opt("input", stdin, "spec.execution.stdin")
    _export(w, ex, ext)
    if ext.get_user_env is not None:
        w.opt("get-user-env", ext.get_user_env or None)
    note = spec.notifications
    if note is not None and note.email is not None:
        w.opt("mail-user", note.email, "spec.notifications.email")
    if ext.mail_type is not None:
        w.opt("mail-type", ext.mail_type, "spec.extensions.slurm.mail_type")
    elif note is not None and note.events is not None:
        types = [MAIL_TYPES[e] for e in note.events] or ["NONE"]
        w.opt("mail-type", ",".join(types), "spec.notifications.events")
    life = spec.lifecycle
    if life is not None and life.requeue_on_failure is not None:
        w.opt("requeue" if life.requeue_on_failure else "no-requeue")
    if ext.begin is not None:
        w.opt("begin", ext.begin)
    elif sched.begin_after is not None:
        w.opt(
            "begin",
            _local_time(w, sched.begin_after.value, "spec.schedule.beginAfter"),
            "spec.schedule.beginAfter",
        )
    if ext.deadline is not None:
        w.opt("deadline", ext.deadline)
    elif sched.deadline is not None:
        w.opt(
            "deadline",
            _local_time(w, sched.deadline.value, "spec.schedule.deadline"),
            "spec.schedule.deadline",
        )
    if ext.signal is not None:
        w.opt("signal", ext.signal)
    elif sched.signal_before_end is not None:
        sig = sched.signal_before_end
        # sbatch knows only some signal names (checked); a number always works
        known = sig.name in SLURM_SIGNALS
        w.opt(
            "signal",
            f"{sig.name if known else sig.number}@{sig.seconds}",
            "spec.schedule.signalBeforeEnd",
        )
    if ext.kill_on_invalid_dep is not None:
        w.opt("kill-on-invalid-dep", "yes" if ext.kill_on_invalid_dep else "no")
    if ext.nice is not None:
        w.opt("nice", ext.nice)


def _local_time(w: _Writer, value: Any, path: str) -> str:
    if value.tzinfo is not None:
        import datetime as dt

        value = value.astimezone(dt.UTC).replace(tzinfo=None)
        w.approximated(path, "written in UTC; sbatch reads times in the cluster's local time zone")
    text: str = value.strftime("%Y-%m-%dT%H:%M:%S")
    return text


def _file_name(w: _Writer, pattern: str, path: str) -> str:
    """A file name pattern for `--output`/`--error`/`--input`; a backslash in it is an E140:
    Slurm strips every backslash from the name and then expands no `%` token (fname.c,
    `_is_path_escaped`), so the file would have another name."""
    if "\\" in pattern:
        w.reporter.report(
            "E140",
            f"`{path}` holds a backslash: Slurm removes every backslash from a file name "
            "(and then expands no `%` token), so the file would be another one",
            field=path,
            help="remove the backslash from the file name",
        )
    return pattern


def _pattern(template: Template) -> str:
    return template.render(PATTERN_TOKENS, escape=lambda s: s.replace("%", "%%"))


def _dependencies(w: _Writer, spec: Spec, ext: SlurmExt) -> None:
    if ext.dependency is not None:
        w.opt("dependency", ext.dependency, "spec.extensions.slurm.dependency")
        return
    parts: list[str] = []
    for i, dep in enumerate(spec.dependencies or ()):
        path = f"spec.dependencies[{i}]"
        if dep.scheme == "singleton":
            parts.append("singleton")
            for key, given in (("value", dep.value), ("count", dep.count)):
                if given is not None:
                    w.lost(
                        f"{path}.{key}",
                        "`singleton` waits for the other jobs of the same name and user; it "
                        "takes no job id or count",
                    )
        elif dep.scheme == "begin_time":
            if (spec.schedule is None or spec.schedule.begin_after is None) and ext.begin is None:
                value = dep.value or ""
                if is_digits(value):  # a Unix timestamp: sbatch wants a date
                    import datetime as dt

                    when = dt.datetime.fromtimestamp(int(value), dt.UTC)
                    value = _local_time(w, when, path)
                w.opt("begin", value, path)
        elif dep.scheme is not None and dep.value is not None:
            if dep.count is not None:
                w.approximated(
                    path, f"waiting for {dep.count} array elements becomes waiting for all"
                )
            value = dep.value
            seq, dot, _ = value.partition(".")
            if dot and is_digits(seq):  # a PBS-style `123.server` id: Slurm ids have no server
                w.approximated(path, f"`{value}` written as `{seq}`: Slurm job ids have no server")
                value = seq
            if value.endswith("[]") and is_digits(value[:-2]):  # a whole PBS array
                value = value[:-2]
            if refuse_separator(
                w.reporter,
                f"{path}.value",
                value,
                DEPENDENCY_SYNTAX,
                "a `--dependency` list",
                "Slurm separates a dependency's job ids with `:`, its dependencies with `,` "
                "(all must hold) or `?` (any may), so that `1,afterany:2` adds a dependency",
                help="give one job id, in its own `dependencies` entry for each job",
            ):
                continue
            if not _slurm_job_ref(value):
                w.lost(path, f"`{dep.value}` is not a Slurm job id; Slurm depends on ids only")
                continue
            parts.append(f"{dep.scheme}:{value}")
        else:
            w.lost(path, "a dependency needs a scheme and a job id for `--dependency`")
    if parts:
        w.opt("dependency", ",".join(parts), "spec.dependencies")


#: what ends a GPU type in `--gres=gpu:TYPE:N`, `--gpus*=TYPE:N` (src/common/gres.c: `,`
#: separates requests, `:` the name, type and count; white space ends the value)
GRES_SYNTAX: Final = ",:" + BLANK
#: what ends a job id in `--dependency=type:id[:id...][,type:id...|?type:id...]` (sbatch.1)
DEPENDENCY_SYNTAX: Final = ",?:" + BLANK
#: what ends a GRES name (`name[:type]`) in a `--gres` list
GRES_LIST_SYNTAX: Final = "," + BLANK


def _body_has_directives(body: str) -> bool:
    """Would sbatch read a `#SBATCH` line of this body (one before its first command)?"""
    for line in body.split("\n"):
        stripped = line.strip()
        if line.startswith(("#SBATCH", "#SLURM")):
            return True
        if stripped and not stripped.startswith("#"):
            return False
    return False


def _slurm_job_ref(value: str) -> bool:
    """`123`, `123_4`, `123_*`, `123_[1-3]` (sbatch.1 --dependency)."""
    job, _, index = value.partition("_")
    if not is_digits(job):
        return False
    return (
        not index
        or index == "*"
        or is_digits(index)
        or (index.startswith("[") and index.endswith("]"))
    )


def _export(w: _Writer, ex: Any, ext: SlurmExt) -> None:
    if ext.export is not None:
        w.opt("export", ext.export, "spec.extensions.slurm.export")
        env = ex.environment
        if env is not None and (env.vars or env.inherit_from_submitter is not None):
            w.approximated(
                "spec.execution.environment",
                "the raw `--export` of extensions.slurm is written instead",
            )
        if env is not None:
            for key in ("secrets", "config_maps"):
                if getattr(env, key):
                    w.lost(
                        f"spec.execution.environment.{camel(key)}",
                        "Kubernetes secrets and config maps do not exist on Slurm",
                    )
        return
    env = ex.environment
    if env is None:
        return
    items: list[str] = []
    for key, value in (env.vars or {}).items():
        item = _export_item(w, key, value, f"spec.execution.environment.vars.{key}")
        if item is not None:
            items.append(item)
    if env.inherit_from_submitter is not None or items:
        head = "ALL" if env.inherit_from_submitter is not False else "NONE"
        w.opt("export", ",".join([head, *items]), "spec.execution.environment")
    for path, value in (("secrets", env.secrets), ("configMaps", env.config_maps)):
        if value:
            w.lost(
                f"spec.execution.environment.{path}",
                "Kubernetes secrets and config maps do not exist on Slurm",
            )


def _export_item(w: _Writer, key: str, value: str, path: str) -> str | None:
    """One `NAME=value` item of an `--export` list, or None (E140).

    sbatch cuts the list at each `,` outside quotes, counting `'` and `"` apart, and takes off
    the quotes around a whole item (`find_quote_token()` of src/common/env.c); the name ends
    at the first `=`. So a value with a `,` is written as `"NAME=va,lue"` (or in `'` when it
    holds a `"`), other quotes stay the value's own when each kind comes in pairs (checked with
    a real job: `"A=x,y"` gave A=x,y, `'C=p"q,r"s'` gave C=p"q,r"s, `D=a"b"c` gave D=a"b"c)."""
    if refuse_separator(
        w.reporter,
        path,
        key,
        "=,'\"" + BLANK,
        "an `--export` list",
        "sbatch ends a variable's name at the first `=`, its item at a `,`, and counts quotes",
        help="name the variable without `=`, `,`, quotes or blanks",
    ):
        return None
    odd = next((q for q in "'\"" if value.count(q) % 2), None)
    if odd is not None:
        report_separator(
            w.reporter,
            path,
            odd,
            "an `--export` list",
            "sbatch reads an `--export` item up to the next `,` outside quotes: an unpaired "
            "quote would run it on into the items after it",
            help="pair the quotes in the value, or set the variable in the script body",
        )
        return None
    item = f"{key}={value}"
    if "," not in value:
        return item
    wrap = next((q for q in "\"'" if q not in value), None)
    if wrap is None:
        report_separator(
            w.reporter,
            path,
            ",",
            "an `--export` list",
            "a `,` in an `--export` value needs the item in quotes of a kind the value "
            "does not hold, and this one holds both `'` and `\"`",
            help="set the variable in the script body instead",
        )
        return None
    return f"{wrap}{item}{wrap}"


def _unsupported(w: _Writer, job: Job, spec: Spec) -> None:
    report_unsupported(w, job, CAPABILITIES, "sbatch")
    ext = spec.extensions.slurm if spec.extensions and spec.extensions.slurm else None
    for i, comp in enumerate(ext.het_components or () if ext else ()):
        path = f"spec.extensions.slurm.het_components[{i}]"
        if comp.execution is not None:
            w.lost(f"{path}.execution", "every component of a Slurm job runs the one batch script")
        if comp.resources is not None:
            gpu = comp.resources.gpu
            found: list[tuple[str, object]] = [
                ("limits", comp.resources.limits),
                ("gpu.migProfile", gpu.mig_profile if gpu else None),
                ("gpu.memory", gpu.memory if gpu else None),
            ]
            for key, value in found:
                if value is not None:
                    w.lost(f"{path}.resources.{key}", "sbatch has no option for it")
        if comp.placement is not None and comp.placement.node_selector:
            w.lost(f"{path}.placement.nodeSelector", "sbatch has no option for it")
        if comp.schedule is not None and comp.schedule.priority_class:
            w.lost(f"{path}.schedule.priorityClass", "sbatch has no option for it")
    pbs = spec.extensions.pbs if spec.extensions else None
    mixed = "spec.extensions.pbs.mixed_chunks"
    if pbs is not None and pbs.mixed_chunks is not None:
        chunks = pbs.mixed_chunks.split("+")
        res = spec.resources
        if res is not None and res.tasks is not None:  # chunks alike but for their task count
            w.approximated(
                mixed,
                f"`{pbs.mixed_chunks}` is written as {res.nodes} nodes and {res.tasks} tasks, "
                f"at most {res.tasks_per_node} per node; Slurm decides how many go on each",
            )
        elif _chunk_components(spec, ext):
            w.approximated(
                mixed,
                f"each chunk shape of `{pbs.mixed_chunks}` is a component of a heterogeneous "
                "job (`#SBATCH hetjob`); the script runs on the first, and `srun` starts tasks "
                "in the first component only unless given `--het-group=all`",
            )
        else:
            array = spec.array is not None and spec.array.indices is not None
            w.approximated(
                mixed,
                f"only the first chunk shape `{chunks[0]}` is written; "
                + ", ".join(f"`{c}`" for c in chunks[1:])
                + (
                    " are not asked for: a heterogeneous job would hold them, and Slurm has no "
                    "arrays of heterogeneous jobs"
                    if array
                    else " cannot be expressed by one Slurm job (a heterogeneous job would be "
                    "needed)"
                ),
            )
    if spec.extensions:
        report_foreign(w, spec, ("slurm",), handled=(mixed,), script=True)


def _chunk_components(spec: Spec, ext: SlurmExt | None) -> list[Resources]:
    """The chunks after the first of a PBS job whose chunks differ (`select=1:ncpus=16+4:
    ncpus=4:ngpus=1`, Torque `nodes=1:ppn=4+2:ppn=8`), each read as PBS reads a chunk alone:
    the components of a heterogeneous job, the first being the job's own resources. None
    when the job has components of its own, or the chunks differ only in their task count
    (then the job's resources hold them all)."""
    pbs = spec.extensions.pbs if spec.extensions else None
    if pbs is None or pbs.mixed_chunks is None or (ext is not None and ext.het_components):
        return []
    if spec.resources is not None and spec.resources.tasks is not None:
        return []
    if spec.array is not None and spec.array.indices is not None:
        return []  # sbatch refuses an array of heterogeneous jobs ("Invalid job array …")
    import bammmc
    from bammmc.facts.pbs import torque_chunks

    chunks = pbs.mixed_chunks.split("+")
    torque = torque_chunks(pbs.mixed_chunks)
    out = []
    for chunk in chunks[1:]:
        text = f"#!/bin/bash\n#PBS -l {'nodes' if torque else 'select'}={chunk}\n"
        job, _ = bammmc.parse(text, "torque" if torque else "pbs")
        read = job.spec if job is not None else None
        if read is None or read.resources is None or read.extensions is not None:
            return []  # a chunk that is more than resources: the first chunk alone
        out.append(read.resources)
    return out


def _default_output(spec: Spec, out: Output) -> bool:
    """Whether the job's stdout is the file sbatch names by itself (`slurm-%j.out`, an array's
    `slurm-%A_%a.out`), with stderr in it: no `--output` says the same."""
    array = spec.array is not None and spec.array.indices is not None
    return str(out.stdout) == default_output(array) and (
        out.stderr is None or out.merge_stderr is False
    )


def _time_limit(w: _Writer, d: Duration, path: str) -> str:
    """A time option's value; a time longer than sbatch holds (SLURM_MAX_SECONDS, about 68
    years) is no limit: sbatch would wrap it around to a short one."""
    if d.seconds is not None and d.seconds > SLURM_MAX_SECONDS:
        w.approximated(
            path,
            f"sbatch holds at most {slurm_time(SLURM_MAX_SECONDS)} (a 32-bit count of "
            f"seconds that wraps around): {slurm_time(d.seconds)} is written as `UNLIMITED`",
        )
        return "UNLIMITED"
    return slurm_time(d.seconds)


def emit_duration(d: Duration) -> str:
    return slurm_time(d.seconds)


def emit_size(s: Size) -> str:
    return slurm_size(s.bytes)[0]


def _feature_expression(text: str) -> bool:
    """Whether `--constraint` takes ``text`` as it is (the reader's grammar decides; a `,`,
    which slurmctld reads as `&`, is no SPLAT operator: it is not written)."""
    from lark.exceptions import UnexpectedInput

    from bammmc.frontends.slurm import parser

    if "," in text:
        return False
    try:
        parser("slurm_constraint").parse(text)
    except UnexpectedInput:
        return False
    return True
