"""The Grid Engine writer (format ``sge``): SPLAT IR -> a qsub script with `#$` directives.

Follows shared/docs/formats/sge.md (submit(1), sge_types(1), complex(5)). Directives come in a
fixed order after the `#!` line, one option per line, values quoted as ``string_list()`` reads
them (a whole word in `"…"` or `'…'`; a value with both quotes or a line break is E140). Slots:
a job of N tasks × C CPUs asks for N×C slots of one parallel environment (``-pe``), named by
``extensions.sge.pe`` or chosen as ``mpi`` (several tasks) / ``smp`` (one multi-CPU task); the
memory resource (``--sge-memory-resource``, default ``h_vmem``) is written **per slot** with an
explicit unit (``K M G`` binary, ``k m g`` decimal — whichever is exact); arrays as ``-t`` with
``-tc``; dependencies as ``-hold_jid``; output paths with ``$JOB_ID``/``$TASK_ID``/``$JOB_NAME``.
``extensions.sge`` takes precedence over the portable fields it refines.

Also the table of facts both directions read (option arities, units, PE kinds, mail letters).
Siblings: ``frontends/sge.py``, ``passes/lower/sge.py``.
"""

from __future__ import annotations

import itertools
import shlex
from fractions import Fraction
from typing import Final

from bammmc.backends import OutputFile, WriteOptions
from bammmc.backends.container import in_container
from bammmc.diagnostics.model import Reporter
from bammmc.ir.envvars import compatibility_block
from bammmc.ir.job import Job, Resources, Schedule, SgeExt, Spec
from bammmc.ir.priority import to_native
from bammmc.ir.values import Size, Template

#: qsub options and how many words of value each takes (submit(1), sge.md §3). ``-binding``
#: takes one or two (an optional `env|pe|set` first).
OPTIONS: Final[dict[str, int]] = {
    "a": 1,
    "ac": 1,
    "ar": 1,
    "A": 1,
    "b": 1,
    "binding": 1,
    "c": 1,
    "ckpt": 1,
    "clear": 0,
    "cwd": 0,
    "C": 1,
    "dc": 1,
    "dl": 1,
    "e": 1,
    "h": 0,
    "hard": 0,
    "hold_jid": 1,
    "hold_jid_ad": 1,
    "i": 1,
    "j": 1,
    "js": 1,
    "jsv": 1,
    "l": 1,
    "m": 1,
    "masterq": 1,
    "M": 1,
    "notify": 0,
    "now": 1,
    "N": 1,
    "o": 1,
    "P": 1,
    "p": 1,
    "pe": 2,
    "q": 1,
    "R": 1,
    "r": 1,
    "sc": 1,
    "shell": 1,
    "soft": 0,
    "sync": 1,
    "S": 1,
    "t": 1,
    "tc": 1,
    "terse": 0,
    "v": 1,
    "verify": 0,
    "V": 0,
    "w": 1,
    "wd": 1,
    "@": 1,
}
#: memory_specifier suffixes: lower case decimal, upper case binary (sge_types(1))
SIZE_FACTORS: Final[dict[str, int]] = {
    "": 1,
    "k": 1000,
    "K": 1024,
    "m": 1000**2,
    "M": 1024**2,
    "g": 1000**3,
    "G": 1024**3,
}
#: built-in memory-typed complexes (complex(5)) and the usual site ones: sizes per slot
MEMORY_RESOURCES: Final = frozenset(
    {
        "h_vmem",
        "s_vmem",
        "mem_free",
        "m_mem_free",
        "virtual_free",
        "h_rss",
        "s_rss",
        "h_data",
        "s_data",
        "h_stack",
        "s_stack",
        "h_core",
        "s_core",
        "h_fsize",
        "s_fsize",
    }
)
MAIL_EVENTS: Final = {"b": "begin", "e": "end", "a": "fail"}
MAIL_LETTERS: Final = {v: k for k, v in MAIL_EVENTS.items()}
#: characters every Grid Engine version refuses in a job name (the 6.2 and 9.x lists agree on
#: these; whitespace is refused too, pitfall 31)
NAME_FORBIDDEN: Final = frozenset("/:@\\")
#: characters the writer keeps in a name: safe for every version's object_name
NAME_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+_.-")
#: `-o`/`-e` pseudo variables with a SPLAT template variable
TEMPLATE_VARIABLES: Final = {"JOB_ID": "job_id", "TASK_ID": "array_index", "JOB_NAME": "job_name"}
PATH_VARIABLES: Final = {
    "job_id": "$JOB_ID",
    "array_job_id": "$JOB_ID",  # an array job's tasks share its job id
    "array_index": "$TASK_ID",
    "job_name": "$JOB_NAME",
}
#: parallel environment names: one process per slot, or the threads of one process
TASK_PES: Final = ("mpi", "orte", "mpich", "lam", "pvm")
THREAD_PES: Final = ("smp", "thread", "omp", "shm", "shared", "serial", "single", "make")


def pe_kind(name: str) -> str | None:
    """``"tasks"``, ``"threads"`` or ``None`` (nothing in the name tells).

    >>> pe_kind("openmpi8"), pe_kind("smp"), pe_kind("threaded"), pe_kind("big")
    ('tasks', 'threads', 'threads', None)
    """
    lowered = name.lower()
    if any(k in lowered for k in TASK_PES):
        return "tasks"
    if any(k in lowered for k in THREAD_PES):
        return "threads"
    return None


CAPABILITIES: Final[dict[str, str]] = {
    "metadata.name": "approximated (sanitized to letters, digits and `+_.-`)",
    "spec.schedule": "exact",
    "spec.schedule.priority": "exact (-1023..1024; positive values need operator rights)",
    "spec.schedule.qos": "lost",
    "spec.schedule.walltimeMin": "lost",
    "spec.schedule.signalBeforeEnd": "lost",
    "spec.schedule.deadline": "lost",
    "spec.resources": "approximated (tasks × CPUs become slots of one parallel environment)",
    "spec.resources.memoryPerTask": "exact (per slot, in the site's memory resource)",
    "spec.resources.nodes": "approximated (the PE's allocation rule places the slots)",
    "spec.resources.tasksPerNode": "approximated (the PE's allocation rule places the slots)",
    "spec.resources.gpu": "lost (a site-defined complex)",
    "spec.resources.diskPerTask": "lost",
    "spec.resources.genericResources": "lost",
    "spec.execution": "exact",
    "spec.array": "exact (one range n-m:s from 1 up)",
    "spec.dependencies": "approximated (`-hold_jid` waits for any end)",
    "spec.output": "exact ($JOB_ID, $TASK_ID, $JOB_NAME)",
    "spec.output.openMode": "lost",
    "spec.notifications": "exact",
    "spec.placement.exclusive": "exact (`-l exclusive=true`)",
    "spec.placement": "lost",
    "spec.fileStaging": "lost",
    "spec.extensions.sge": "exact",
    "spec.tasks": "lost",
    "spec.gang": "lost",
    "spec.volumes": "lost",
}


class SgeWriter:
    """Writes one qsub script."""

    NAME_LIMIT = 512

    def __init__(self, job: Job, reporter: Reporter, options: WriteOptions) -> None:
        self.job = job
        self.reporter = reporter
        self.options = options
        self.lines: list[str] = []
        self.spec = job.spec or Spec()
        ext = self.spec.extensions
        self.ext = ext.sge if ext and ext.sge else SgeExt()

    # -- reporting -------------------------------------------------------------------------

    def lost(self, path: str, why: str) -> None:
        self.reporter.report(
            "W201",
            f"`{path}` cannot be expressed for Grid Engine and was dropped",
            notes=(why,),
            field=path,
            help="keep the information elsewhere, or convert to a scheduler that supports it",
        )

    def approximated(self, path: str, how: str) -> None:
        self.reporter.report(
            "W301",
            f"`{path}` is approximated for Grid Engine: {how}",
            field=path,
            help="check the converted directive",
        )

    def opt(self, name: str, *values: object, path: str | None = None) -> None:
        words = [f"-{name}"]
        for value in values:
            text = str(value)
            quoted = quote(text)
            if quoted is None:
                what = "a line break" if "\n" in text or "\r" in text else "both kinds of quote"
                self.reporter.report(
                    "E140",
                    f"the value of `-{name}` contains {what}, which no `#$` line can carry",
                    field=path,
                    help="remove it from the value",
                )
                return
            words.append(quoted)
        self.lines.append("#$ " + " ".join(words))

    # -- the job ---------------------------------------------------------------------------

    def write(self) -> list[OutputFile]:
        body, shebang = self.script()
        head = [shebang] if shebang else []
        shell_lines, self.lines = self.lines, []
        self.name()
        self.schedule(self.spec.schedule or Schedule())
        self.resources(self.spec.resources or Resources())
        self.array()
        self.dependencies()
        self.output()
        self.notifications()
        self.environment()
        self.extras()
        self.unsupported()
        header = "".join(line + "\n" for line in head + shell_lines + self.lines)
        return [OutputFile(header + body)]

    def script(self) -> tuple[str, str]:
        ex = self.spec.execution
        shell = ex.shell if ex and ex.shell else "/bin/bash"
        body = ""
        shell_line = f"#!{shell}"
        if ex is not None and ex.script is not None:
            text = ex.script
            if text.startswith("#!"):
                shell_line, _, body = text.partition("\n")
            else:  # qsub needs no `#!` line (it runs the script with -S or the queue's shell)
                body, shell_line = text, ""
            if ex.container is not None and ex.container.image:
                wrapped = in_container(
                    body,
                    shell_line or f"#!{shell}",
                    ex.container.image,
                    self.options.container_runtime,
                    self.lost,
                    self.approximated,
                )
                body = wrapped if wrapped is not None else body
        elif ex is not None and (ex.executable is not None or ex.container is not None):
            command: list[str] = []
            if ex.executable is not None:
                command = [shlex.quote(ex.executable)] + ([ex.arguments] if ex.arguments else [])
            elif ex.container is not None:
                command = [
                    shlex.quote(c) for c in (ex.container.command or []) + (ex.container.args or [])
                ]
            if ex.container is not None and ex.container.image:
                runtime = self.options.container_runtime
                self.approximated(
                    "spec.execution.container.image",
                    f"run through `{runtime} exec docker://…`; the cluster needs {runtime.title()}",
                )
                command = [runtime, "exec", shlex.quote(f"docker://{ex.container.image}"), *command]
            body = "exec " + " ".join(command) + "\n"
        if self.ext.shell is not None:
            self.opt("S", self.ext.shell)
        elif ex is not None and ex.shell:
            self.opt("S", ex.shell, path="spec.execution.shell")
        body = compatibility_block(body, "sge", self.lost, self.approximated) + body
        return body, shell_line

    def name(self) -> None:
        meta = self.job.metadata
        if meta is None or meta.name is None:
            return
        name = "".join(c if c in NAME_CHARS else "_" for c in meta.name)[: self.NAME_LIMIT]
        if name != meta.name:
            self.approximated(
                "metadata.name",
                f"`{meta.name}` written as `{name}` (letters, digits and `+_.-`, at most "
                f"{self.NAME_LIMIT} characters)",
            )
        if name:
            self.opt("N", name, path="metadata.name")

    def schedule(self, sched: Schedule) -> None:
        ext = self.ext
        queue = sched.queue or sched.partition
        if queue is not None:
            self.opt("q", queue, path="spec.schedule.queue")
        if sched.account is not None:
            self.opt("A", sched.account, path="spec.schedule.account")
        if sched.project is not None:
            self.opt("P", sched.project, path="spec.schedule.project")
        if ext.priority is not None:
            self.opt("p", ext.priority)
        elif sched.priority is not None:
            native = to_native(sched.priority, "sge")
            if native > 0:
                self.approximated(
                    "spec.schedule.priority",
                    f"`-p {native}`: qsub takes a positive priority only from operators",
                )
            self.opt("p", native, path="spec.schedule.priority")
        if sched.hold:
            self.opt("h")
        if ext.begin is not None:
            self.opt("a", ext.begin)
        elif sched.begin_after is not None:
            value = sched.begin_after.value
            if value.tzinfo is not None:
                import datetime as dt

                value = value.astimezone(dt.UTC).replace(tzinfo=None)
                self.approximated(
                    "spec.schedule.beginAfter", "written in UTC; qsub reads local time"
                )
            self.opt("a", value.strftime("%Y%m%d%H%M.%S"), path="spec.schedule.beginAfter")
        if ext.deadline is not None:
            self.opt("dl", ext.deadline)
        if sched.reservation is not None:
            self.opt("ar", sched.reservation, path="spec.schedule.reservation")
        if sched.walltime is not None:
            self.opt("l", f"h_rt={sge_time(sched.walltime.seconds)}", path="spec.schedule.walltime")
        if ext.s_rt is not None:
            self.opt("l", f"s_rt={sge_time(ext.s_rt.seconds)}")
        life = self.spec.lifecycle
        if life is not None and life.requeue_on_failure is not None:
            self.opt(
                "r", "y" if life.requeue_on_failure else "n", path="spec.lifecycle.requeueOnFailure"
            )
        for key, path in (
            ("qos", "spec.schedule.qos"),
            ("walltime_min", "spec.schedule.walltimeMin"),
            ("signal_before_end", "spec.schedule.signalBeforeEnd"),
            ("deadline", "spec.schedule.deadline"),
        ):
            if getattr(sched, key) is not None:
                self.lost(path, "qsub has no option for it")

    def slots(self, res: Resources) -> tuple[str | None, int, int]:
        """The PE name, the slots per task and the number of tasks."""
        tasks = res.tasks
        if tasks is None and res.nodes is not None:
            tasks = res.nodes * (res.tasks_per_node or 1)
        elif tasks is None and res.tasks_per_node is not None:
            tasks = res.tasks_per_node
        cpus = 1
        if res.cpus_per_task is not None:
            cores = res.cpus_per_task.cores
            cpus = -(-cores.numerator // cores.denominator)
            if cpus != cores:
                self.approximated(
                    "spec.resources.cpusPerTask", f"{cores} CPUs rounded up to {cpus}"
                )
        name = self.ext.pe
        if name is None:
            name = "mpi" if (tasks or 1) > 1 else "smp" if cpus > 1 else None
        kind = pe_kind(name) if name else None
        if name is not None and kind == "threads" and (tasks or 1) > 1:
            self.approximated(
                "spec.resources.tasks",
                f"{tasks} tasks × {cpus} CPUs written as {(tasks or 1) * cpus} slots of the thread "
                f"PE `{name}` (one host, one process)",
            )
        elif name is not None and kind != "threads" and cpus > 1:
            self.approximated(
                "spec.resources.cpusPerTask",
                f"{tasks or 1} tasks × {cpus} CPUs written as {(tasks or 1) * cpus} slots of "
                f"PE `{name}` (one process per slot)",
            )
        for key, value in (("nodes", res.nodes), ("tasksPerNode", res.tasks_per_node)):
            if value is not None and not (key == "nodes" and value == 1 and kind == "threads"):
                self.approximated(
                    f"spec.resources.{key}",
                    "Grid Engine places slots by the parallel environment's allocation rule, "
                    "not per job",
                )
        return name, cpus, tasks or 1

    def resources(self, res: Resources) -> None:
        ext = self.ext
        name, per_task, tasks = self.slots(res)
        if name is not None:
            count = ext.pe_slots if ext.pe_slots is not None else str(per_task * tasks)
            self.opt("pe", name, count, path="spec.resources")
        mem = res.memory_per_task
        if mem is not None:
            resource = ext.memory_resource or self.options.sge_memory_resource
            per_slot = self.per_slot(mem, per_task, tasks, res)
            self.opt("l", f"{resource}={sge_size(per_slot)}", path="spec.resources.memoryPerTask")
        for key, size in (ext.slot_memory or {}).items():
            self.opt("l", f"{key}={sge_size(size.bytes)}")
        placement = self.spec.placement
        if placement is not None and placement.exclusive:
            self.opt("l", "exclusive=true", path="spec.placement.exclusive")
        for key, value in (ext.resources or {}).items():
            self.opt("l", f"{key}={value}")
        if res.gpu is not None:
            self.lost("spec.resources.gpu", "GPUs are a site-defined complex in Grid Engine")
        if res.disk_per_task is not None:
            self.lost("spec.resources.diskPerTask", "scratch space is a site-defined complex")
        if res.generic_resources:
            self.lost("spec.resources.genericResources", "complexes are site-defined")
        if placement is not None:
            dropped: tuple[tuple[str, str | None], ...] = (
                ("topology", placement.topology),
                ("groupBy", placement.group_by),
                ("constraint", placement.constraint),
            )
            for key, setting in dropped:
                if setting is not None:
                    self.lost(f"spec.placement.{key}", "qsub has no option for it")

    def per_slot(self, mem: Size, per_task: int, tasks: int, res: Resources) -> int:
        scope = mem.scope or "task"
        exact: Fraction
        if scope == "task":
            exact = Fraction(mem.bytes, per_task)
        elif scope in ("slot", "cpu"):
            exact = Fraction(mem.bytes)
        elif scope == "job":
            exact = Fraction(mem.bytes, per_task * tasks)
        elif scope == "node" and res.tasks_per_node is not None:
            exact = Fraction(mem.bytes, per_task * res.tasks_per_node)
        else:
            self.approximated(
                "spec.resources.memoryPerTask", f"memory per {scope} written per slot"
            )
            exact = Fraction(mem.bytes)
        whole = -(-exact.numerator // exact.denominator)
        if whole != exact:
            self.approximated(
                "spec.resources.memoryPerTask", f"{exact} bytes per slot rounded up to {whole}"
            )
        return whole

    def array(self) -> None:
        arr = self.spec.array
        if arr is None:
            return
        spec = arr.indices
        throttle = spec.throttle if spec is not None and spec.throttle else arr.max_concurrent
        if spec is None:
            if arr.max_concurrent is not None:
                self.lost("spec.array.maxConcurrent", "a throttle without indices limits nothing")
            return
        ordered = sorted(set(spec.indices()))
        steps = {b - a for a, b in itertools.pairwise(ordered)}
        first, last = ordered[0], ordered[-1]
        step = steps.pop() if len(steps) == 1 else 1
        if len(steps) > 1:
            self.approximated(
                "spec.array.indices",
                f"Grid Engine takes one range `n-m:s`: `{spec}` is written as `{first}-{last}`, "
                "so indices outside it run too",
            )
        if first < 1:
            shift = 1 - first
            self.approximated(
                "spec.array.indices",
                f"Grid Engine task ids start at 1: every index is shifted by {shift}, so "
                "$SGE_TASK_ID is that much larger",
            )
            first, last = first + shift, last + shift
        text = (
            str(first) if first == last else f"{first}-{last}" + (f":{step}" if step != 1 else "")
        )
        self.opt("t", text, path="spec.array.indices")
        if throttle is not None:
            self.opt("tc", throttle, path="spec.array.maxConcurrent")

    def dependencies(self) -> None:
        ext = self.ext
        if ext.hold_jid is not None:
            self.opt("hold_jid", ",".join(ext.hold_jid))
        else:
            ids: list[str] = []
            for i, dep in enumerate(self.spec.dependencies or ()):
                path = f"spec.dependencies[{i}]"
                if dep.scheme in ("afterany", "afterok") and dep.value:
                    ids.append(dep.value)
                    if dep.scheme == "afterok":
                        self.approximated(
                            path, "`-hold_jid` waits for the job to end with any exit status"
                        )
                    if dep.count is not None:
                        self.approximated(
                            path, "waiting for some array tasks becomes waiting for all"
                        )
                else:
                    self.lost(path, f"Grid Engine has no `{dep.scheme}` dependency")
            if ids:
                self.opt("hold_jid", ",".join(ids), path="spec.dependencies")
        if ext.hold_jid_ad is not None:
            self.opt("hold_jid_ad", ",".join(ext.hold_jid_ad))

    def output(self) -> None:
        ext, out = self.ext, self.spec.output
        ex = self.spec.execution
        if ext.cwd:
            self.opt("cwd")
        if ex is not None and ex.working_dir is not None:
            self.opt("wd", ex.working_dir, path="spec.execution.workingDir")
        if ext.input is not None:
            self.opt("i", ext.input)
        elif ex is not None and ex.stdin is not None:
            self.opt("i", ex.stdin, path="spec.execution.stdin")
        if out is None:
            return
        if out.merge_stderr is not None:
            self.opt("j", "y" if out.merge_stderr else "n", path="spec.output.mergeStderr")
        for letter, template, raw in (("o", out.stdout, ext.output), ("e", out.stderr, ext.error)):
            path = f"spec.output.{'stdout' if letter == 'o' else 'stderr'}"
            if raw is not None:
                self.opt(letter, raw)
            elif template is not None:
                self.path(letter, template, path)
        if out.open_mode is not None:
            self.lost("spec.output.openMode", "qsub has no option for it")

    def path(self, letter: str, template: Template, field: str) -> None:
        missing = [v for v in template.variables() if v not in PATH_VARIABLES]
        if missing:
            shown = ", ".join(f"`{{{v}}}`" for v in missing)
            self.approximated(
                field,
                f"Grid Engine cannot put {shown} in an output path; its default name "
                "(job name and id) is used instead",
            )
            return
        self.opt(letter, template.render(PATH_VARIABLES), path=field)

    def notifications(self) -> None:
        note = self.spec.notifications
        if self.ext.mail_points is not None:
            self.opt("m", self.ext.mail_points)
        elif note is not None and note.events is not None:
            letters = "".join(MAIL_LETTERS[e] for e in ("begin", "end", "fail") if e in note.events)
            for e in note.events:
                if e not in MAIL_LETTERS:
                    self.lost("spec.notifications.events", f"Grid Engine has no mail on `{e}`")
            self.opt("m", letters or "n", path="spec.notifications.events")
        if note is not None and note.email is not None:
            self.opt("M", note.email, path="spec.notifications.email")

    def environment(self) -> None:
        ex = self.spec.execution
        env = ex.environment if ex else None
        items: list[str] = []
        if env is not None and env.inherit_from_submitter:
            self.opt("V", path="spec.execution.environment.inheritFromSubmitter")
        if env is not None and env.vars:
            for key, value in env.vars.items():
                if "," in value:
                    self.reporter.report(
                        "E140",
                        f"the value of `{key}` contains a comma, which `-v` cannot carry",
                        field="spec.execution.environment.vars",
                        help="set the variable in the script body instead",
                    )
                    continue
                items.append(f"{key}={value}")
        items += self.ext.export or []
        if items:
            self.opt("v", ",".join(items), path="spec.execution.environment.vars")
        if env is not None:
            for key in ("secrets", "config_maps"):
                if getattr(env, key):
                    self.lost(
                        f"spec.execution.environment.{key}",
                        "Kubernetes secrets and config maps do not exist on Grid Engine",
                    )

    def extras(self) -> None:
        ext = self.ext
        if ext.reserve is not None:
            self.opt("R", "y" if ext.reserve else "n")
        if ext.notify:
            self.opt("notify")
        if ext.now is not None:
            self.opt("now", "y" if ext.now else "n")
        if ext.ckpt is not None:
            self.opt("ckpt", ext.ckpt)
        if ext.binary is not None:
            self.lost("spec.extensions.sge.binary", "qsub takes `-b` only on the command line")
        for name, value in (ext.options or {}).items():
            if name not in OPTIONS:
                self.lost(f"spec.extensions.sge.options.{name}", f"`-{name}` is not a qsub option")
            elif OPTIONS[name] == 0:
                self.opt(name)
            elif name == "binding" and " " in value:
                self.opt(name, *value.split(" ", 1))
            else:
                self.opt(name, value)
        if ext.soft_resources or ext.soft_queue is not None:
            self.opt("soft")
            for key, value in (ext.soft_resources or {}).items():
                self.opt("l", f"{key}={value}")
            if ext.soft_queue is not None:
                self.opt("q", ext.soft_queue)
            self.opt("hard")

    def unsupported(self) -> None:
        spec, job = self.spec, self.job
        checks: list[tuple[str, object]] = [
            ("metadata.labels", job.metadata and job.metadata.labels),
            ("metadata.annotations", job.metadata and job.metadata.annotations),
            ("spec.tasks", spec.tasks),
            ("spec.gang", spec.gang),
            ("spec.volumes", spec.volumes),
            ("spec.fileStaging", spec.file_staging),
            (
                "spec.lifecycle.maxRetries",
                spec.lifecycle and spec.lifecycle.max_retries is not None,
            ),
            (
                "spec.lifecycle.successExitCodes",
                spec.lifecycle and spec.lifecycle.success_exit_codes,
            ),
            (
                "spec.lifecycle.ttlAfterFinished",
                spec.lifecycle and spec.lifecycle.ttl_after_finished,
            ),
            ("spec.placement.nodeSelector", spec.placement and spec.placement.node_selector),
            ("spec.placement.tolerations", spec.placement and spec.placement.tolerations),
            ("spec.placement.affinity", spec.placement and spec.placement.affinity),
            ("spec.placement.topologySpread", spec.placement and spec.placement.topology_spread),
            ("spec.placement.prefer", spec.placement and spec.placement.prefer),
            ("spec.placement.nodePools", spec.placement and spec.placement.node_pools),
            ("spec.resources.limits", spec.resources and spec.resources.limits),
            ("spec.schedule.priorityClass", spec.schedule and spec.schedule.priority_class),
            ("spec.workloadType", spec.workload_type),
            ("spec.distributedFramework", spec.distributed_framework),
        ]
        for path, present in checks:
            if present:
                self.lost(path, "qsub has no option for it")
        if spec.extensions:
            for name in spec.extensions.__struct_fields__:
                if name != "sge" and getattr(spec.extensions, name) is not None:
                    self.lost(
                        f"spec.extensions.{name}",
                        f"`extensions.{name}` only applies to that scheduler",
                    )


def quote(value: str) -> str | None:
    """A value as one `string_list()` word, or ``None`` when no quoting can carry it.

    >>> quote("plain"), quote("a b"), quote("it's"), quote("")
    ('plain', '"a b"', '"it\\'s"', '""')
    """
    if "\n" in value or "\r" in value:
        return None
    if value and not any(c.isspace() or c in "'\"" for c in value):
        return value
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    return None


def sge_time(seconds: int | None) -> str:
    """`H:MM:SS` (hours may exceed 24), or `INFINITY`.

    >>> sge_time(90), sge_time(129600), sge_time(None)
    ('00:01:30', '36:00:00', 'INFINITY')
    """
    if seconds is None:
        return "INFINITY"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}"


def sge_size(n_bytes: int) -> str:
    """The largest exact unit, always explicit: `G M K` binary before `g m k` decimal.

    >>> sge_size(2 * 1024**3), sge_size(2 * 10**9), sge_size(1536 * 1024**2), sge_size(1000)
    ('2G', '2g', '1536M', '1k')
    >>> sge_size(1001)
    '1001'
    """
    for unit in ("G", "g", "M", "m", "K", "k"):
        factor = SIZE_FACTORS[unit]
        if n_bytes and n_bytes % factor == 0:
            return f"{n_bytes // factor}{unit}"
    return str(n_bytes)


def write(
    job: Job, reporter: Reporter | None = None, options: WriteOptions | None = None
) -> list[OutputFile]:
    return SgeWriter(job, reporter or Reporter(), options or WriteOptions()).write()


__all__ = ["CAPABILITIES", "SgeWriter", "write"]
