"""Helpers every backend shares."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Final, Protocol

import msgspec

from bammmc.capabilities import Capabilities
from bammmc.ir.job import Extensions, Spec
from bammmc.ir.values import human_size

if TYPE_CHECKING:
    from bammmc.diagnostics.model import Reporter

_R = "resources"
_MEM = (f"{_R}.memoryPerTask",)
_GPU = (f"{_R}.gpu", f"{_R}.genericResources")
_SHAPE = (f"{_R}.nodes", f"{_R}.tasks", f"{_R}.tasksPerNode", f"{_R}.cpusPerTask")
_OUT = ("output.stdout", "output.stderr", "output.mergeStderr")

#: Raw forms a reader keeps next to the portable fields it also set from the same option: for
#: another target the raw form is not written, but its meaning is, as far as the portable
#: fields reach (W301 while one of them is set, W201 otherwise). Paths are under `spec.`.
MIRRORS: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "slurm": {
        "mem": _MEM,
        "mem_per_cpu": _MEM,
        "mem_per_gpu": _MEM,
        "gres": _GPU,
        "gpus": _GPU,
        "gpus_per_node": _GPU,
        "gpus_per_task": _GPU,
        "gpus_per_socket": _GPU,
        "nodes": (f"{_R}.nodes",),
        "partition": ("schedule.queue",),
        "time_min": ("schedule.walltimeMin",),
        "begin": ("schedule.beginAfter",),
        "deadline": ("schedule.deadline",),
        "priority": ("schedule.priority",),
        "dependency": ("dependencies",),
        "mail_type": ("notifications.events",),
        "signal": ("schedule.signalBeforeEnd",),
        "output": _OUT,
        "error": _OUT,
        "input": ("execution.stdin",),
        "export": ("execution.environment",),
        # the reader reads `--spread-job` as placement.topology `scatter`
        "spread_job": ("placement.topology",),
    },
    "pbs": {
        "mpiprocs_per_chunk": (f"{_R}.tasksPerNode",),
        "mixed_chunks": _SHAPE,
        "select": _SHAPE,
        "nodes": _SHAPE,
        "mem": _MEM,
        "place": ("placement",),
        "join": _OUT,
        "output": _OUT,
        "error": _OUT,
        "mail_points": ("notifications.events",),
        "priority": ("schedule.priority",),
        "begin": ("schedule.beginAfter",),
        "dependency": ("dependencies",),
        "stagein": ("fileStaging",),
        "stageout": ("fileStaging",),
    },
    "lsf": {
        "mem_limit": _MEM,
        "memory_from_limit": _MEM,
        "nnodes": (f"{_R}.nodes",),
        "rusage_string": (*_MEM, *_GPU),
        "gpu_options": _GPU,
        "select": ("placement.constraint",),
        "span": _SHAPE,
        "affinity": (f"{_R}.cpusPerTask",),
        "resreq": _SHAPE,
        "max_tasks": (f"{_R}.tasks",),
        "queues": ("schedule.queue",),
        "priority": ("schedule.priority",),
        "dependency": ("dependencies",),
        "begin": ("schedule.beginAfter",),
        "deadline": ("schedule.deadline",),
        "run_limit": ("schedule.walltime",),
        "files": ("fileStaging",),
        "env": ("execution.environment",),
        "outdir": _OUT,
        "error_open_mode": ("output.openMode",),
        "compute_unit": ("placement",),
        "cu": ("placement",),
    },
    "sge": {
        "pe": _SHAPE,
        "pe_slots": _SHAPE,
        "memory_resource": _MEM,
        "slot_memory": _MEM,
        "priority": ("schedule.priority",),
        "begin": ("schedule.beginAfter",),
        "output": _OUT,
        "error": _OUT,
        "input": ("execution.stdin",),
        "shell": ("execution.shell",),
        "mail_points": ("notifications.events",),
        "export": ("execution.environment",),
        "hold_jid": ("dependencies",),
    },
    # what the HTCondor reader keeps beside a portable field (passes/lower/htcondor.py)
    "htcondor": {
        "queue": ("array.indices",),
        "max_materialize": ("array.maxConcurrent",),
        "notification": ("notifications.events",),
        "transfer_output_remaps": ("fileStaging.outputs",),
        "accounting_group": ("schedule.account",),
        "project_name": ("schedule.project",),
        "machine_count": _SHAPE,
    },
    # what the Flux jobspec reader keeps beside a portable field (passes/lower/flux.py)
    "flux": {
        "resource_graph": (*_SHAPE, *_GPU, "placement.exclusive"),
        "task": _SHAPE,
        "tasks": ("execution.executable",),
        "bank": ("schedule.account",),
        # `--urgency` of a batch script: read as `schedule.priority` (kept raw only when the
        # priority band cannot carry it exactly, passes/lower/flux_batch.py)
        "urgency": ("schedule.priority",),
        "embedded_files": ("execution.script",),
        "constraints_spec": ("placement.constraint",),
        "symbolic_dependencies": ("dependencies",),
        "shell_options": _OUT,
        "system": ("schedule.walltime",),
    },
}


def foreign_extensions(spec: Spec, own: tuple[str, ...]) -> list[str]:
    """The `extensions.<scheduler>` blocks the job sets that belong to other schedulers:
    every block of the model, so a new one is never missed.

    >>> from bammmc.ir.job import PbsExt
    >>> foreign_extensions(Spec(extensions=Extensions(pbs=PbsExt(aoe="x"))), ("slurm",))
    ['pbs']
    """
    if spec.extensions is None:
        return []
    names = [f.name for f in msgspec.structs.fields(Extensions)]
    return [n for n in names if n not in own and getattr(spec.extensions, n) is not None]


def foreign_keys(spec: Spec, own: tuple[str, ...]) -> list[tuple[str, str | None]]:
    """Every key of every other scheduler's extensions block, as ``(path, carried)``:
    ``carried`` names the portable field that holds the key's meaning for this target (the
    key is approximated), or is None (the key is lost).

    >>> from bammmc.ir.job import Resources, SlurmExt
    >>> from bammmc.ir.values import Size
    >>> ext = Extensions(slurm=SlurmExt(mem=Size.parse("8Gi"), comment="x"))
    >>> foreign_keys(Spec(extensions=ext), ("pbs",))
    [('spec.extensions.slurm.mem', None), ('spec.extensions.slurm.comment', None)]
    >>> spec = Spec(resources=Resources(memory_per_task=Size.parse("8Gi")), extensions=ext)
    >>> foreign_keys(spec, ("pbs",))[0]
    ('spec.extensions.slurm.mem', 'spec.resources.memoryPerTask')
    """
    out: list[tuple[str, str | None]] = []
    for name in foreign_extensions(spec, own):
        block = getattr(spec.extensions, name)
        mirrors = MIRRORS.get(name, {})
        for f in msgspec.structs.fields(block):
            if getattr(block, f.name) is None:
                continue
            carried = next((p for p in mirrors.get(f.name, ()) if _is_set(spec, p)), None)
            out.append((f"spec.extensions.{name}.{f.encode_name}", carried and f"spec.{carried}"))
    return out


def _get(node: Any, path: str) -> Any:
    """The value at a wire-form path (`spec.lifecycle.maxRetries`), None when unset."""
    for part in path.split("."):
        node = getattr(node, _SNAKE.sub("_", part).lower(), None)
        if node is None:
            return None
    return node


def _is_set(node: Any, path: str) -> bool:
    return _get(node, path) is not None


_SNAKE: Final = re.compile(r"(?<!^)(?=[A-Z])")


SCRIPT: Final = "spec.execution.script"


def rewrite_launchers(writer: Any, body: str, target: str, spec: Any) -> str:
    """``body`` with its launcher lines (`srun`, `flux run` …) written for ``target``
    (:mod:`bammmc.ir.launchers`), each rewrite, and each line kept, reported on the script.
    `--no-rewrite-body` (``options.rewrite_body``) keeps every line and reports it."""
    from bammmc.ir.envvars import job_shell
    from bammmc.ir.launchers import rewrite

    options = getattr(writer, "options", None)

    def report(code: str, message: str, notes: tuple[str, ...]) -> None:
        writer.reporter.report(
            code,
            message,
            field=SCRIPT,
            notes=notes,
            help="check the converted script" if code.startswith("W") else None,
        )

    enabled = options.rewrite_body if options is not None else True
    return rewrite(body, target, spec, report, shell=job_shell(spec), enabled=enabled)


class LossReports:
    """A writer's `lost()` (W201) and `approximated()` (W301), worded for its target: one call
    per value the target loses or changes, naming the SPLAT field (STYLE.md §4)."""

    reporter: Reporter
    #: the target in the messages: `for Slurm`
    WHERE: ClassVar[str] = ""
    #: the target in "cannot be expressed …" when it reads better otherwise (`in a jobspec`)
    WHERE_LOST: ClassVar[str | None] = None
    #: what the user checks after an approximation
    CHECK: ClassVar[str] = "the converted directive"
    LOST_HELP: ClassVar[str] = (
        "keep the information elsewhere, or convert to a scheduler that supports it"
    )

    def where(self) -> str:
        return self.WHERE

    def lost(self, path: str, why: str, help: str | None = None) -> None:
        self.reporter.report(
            "W201",
            f"`{path}` cannot be expressed {self.WHERE_LOST or self.where()} and was dropped",
            notes=(why,),
            field=path,
            help=help or self.LOST_HELP,
        )

    def approximated(self, path: str, how: str) -> None:
        self.reporter.report(
            "W301",
            f"`{path}` is approximated {self.where()}: {how}",
            field=path,
            help="check the converted script" if path == SCRIPT else f"check {self.CHECK}",
        )

    def noted(self, path: str, how: str) -> None:
        """A value written in the target's own form with the same meaning (N003, shown with
        `-v`): nothing for the user to act on."""
        self.reporter.report("N003", f"`{path}` {self.where()}: {how}", field=path)


def report_unsupported(writer: _Reports, job: Any, table: Capabilities, program: str) -> None:
    """The fidelity pass over a target's capability table: W201 (or the entry's code) for each
    field the table says is always lost and the job sets (an empty list or map sets nothing; a
    0 does), with the table's reason. A field the writer already reported is not reported twice.

    >>> from bammmc.capabilities import Capabilities, lost
    >>> from bammmc.ir.job import API_VERSION, Job, Lifecycle, Spec
    >>> class W:
    ...     def lost(self, path, why): print(path, "-", why)
    ...     def approximated(self, path, how): pass
    >>> spec = Spec(lifecycle=Lifecycle(max_retries=0), tasks=[])
    >>> job = Job(api_version=API_VERSION, kind="Job", spec=spec)
    >>> gone = {"spec.lifecycle.maxRetries": lost(""), "spec.tasks": lost("")}
    >>> table = Capabilities("x", (), gone)
    >>> report_unsupported(W(), job, table, "qsub")
    spec.lifecycle.maxRetries - qsub has no option for it
    """
    reporter = getattr(writer, "reporter", None)
    done = {
        d.field
        for d in (reporter.diagnostics if reporter is not None else ())
        if d.field and d.code[:2] in ("W2", "W3")
    }
    for path in table.lost_paths():
        value = _get(job, path)
        if value is None or (isinstance(value, (list, dict, str)) and not value):
            continue
        if any(f == path or f.startswith((path + ".", path + "[")) for f in done):
            continue
        writer.lost(path, table.fields[path].note or f"{program} has no option for it")


class _Reports(Protocol):
    def lost(self, path: str, why: str) -> None: ...
    def approximated(self, path: str, how: str) -> None: ...
    def noted(self, path: str, how: str) -> None: ...


def report_foreign(
    writer: _Reports,
    spec: Spec,
    own: tuple[str, ...],
    handled: tuple[str, ...] = (),
    *,
    script: bool = False,
) -> None:
    """Report each key of other schedulers' extensions: approximated (W301) when a portable
    field carries its meaning to this target, lost (W201) otherwise; ``handled`` paths the
    writer has reported itself. ``script``: the target runs an executable job from a shell
    script (:func:`bammmc.backends.container.exec_line`), which can set HTCondor's queue items."""
    reporter = getattr(writer, "reporter", None)
    # a carrier this target loses has its own W2xx, which says what the source's form meant
    diagnostics = getattr(reporter, "diagnostics", ())
    dropped = {d.field for d in diagnostics if d.code.startswith("W2")}
    for path, carried in foreign_keys(spec, own):
        if path in handled or (carried is not None and carried in dropped):
            continue
        if path == "spec.extensions.sge.cwd":
            _report_start(writer, spec, own)
            continue
        if (path in MARKERS and carried) or path in SOURCE_NOTES:
            continue  # how the value was written, not a value
        scheduler = path.split(".")[2]
        if path == "spec.extensions.lsf.mem_limit" and _get(
            spec, "extensions.lsf.memory_from_limit"
        ):
            writer.approximated(
                path,
                "`-M` is a limit per process, and the job reserved no memory: the limit is "
                "written as the memory each task asks for",
            )
        elif path == "spec.extensions.lsf.mem_limit":
            limit = human_size(_get(spec, "extensions.lsf.mem_limit").bytes)
            writer.lost(
                path,
                f"`-M` ({limit}) is a limit beside the memory "
                "the job reserves (`rusage[mem]`): only the reservation is written, and a "
                "scheduler that enforces it stops the job there",
            )
        elif path == "spec.extensions.slurm.mem" and _get(spec, "extensions.slurm.mem").bytes == 0:
            writer.lost(
                path,
                "`--mem=0` asks for all the memory of each node, which has no counterpart "
                "here: ask for the nodes' memory by its size",
            )
        elif path == "spec.extensions.pbs.mixed_chunks":
            first = str(_get(spec, "extensions.pbs.mixed_chunks")).split("+", 1)[0]
            writer.approximated(
                path,
                f"only the first chunk shape (`{first}`) is written: the other chunks' nodes, "
                "CPUs, memory and GPUs are not asked for (a Slurm heterogeneous job holds "
                "them all)",
            )
        elif path in SLURM_PARTS and carried:
            partly, part = SLURM_PARTS[path](spec)
            (writer.approximated if partly else writer.noted)(path, part)
        elif path == "spec.extensions.htcondor.queue" and _get(spec, QUEUE_VARS):
            _report_items(writer, spec, script)
        elif path == "spec.extensions.htcondor.commands":
            commands = _get(spec, "extensions.htcondor.commands") or {}
            keys = ", ".join(f"`{k}`" for k in commands)
            macros = any("$(" in str(v) for v in commands.values())
            writer.lost(
                path,
                f"the submit commands {keys} are not written: no option here takes them"
                + (" (their `$(…)` macros are filled in by condor_submit)" if macros else ""),
            )
        elif path == "spec.extensions.htcondor.kept_macros":
            _report_macros(writer, spec)
        elif path == "spec.extensions.htcondor.universe" and (why := _plain_universe(spec)):
            writer.noted(path, why)
        elif carried and (
            path.rsplit(".", 1)[1] in SPELLINGS.get(scheduler, ()) or _gpus_only(spec, path)
        ):
            writer.noted(
                path, f"the {scheduler} form is not written; `{carried}` carries its meaning"
            )
        elif carried:
            writer.approximated(
                path, f"the {scheduler} form is not written; `{carried}` carries its meaning"
            )
        else:
            writer.lost(path, f"it only means something to {scheduler}")


def report_missed_mail(
    writer: _Reports, scheduler: str, events: list[str], known: Any, also: str = ""
) -> None:
    """One warning for the mail events ``scheduler`` has no letter for (``known``) and for
    ``also`` (how the written ones differ): lost when none of the job's events is written,
    approximated when the others are."""
    missed = [e for e in dict.fromkeys(events) if e not in known]
    shown = ", ".join(f"`{e}`" for e in missed)
    if missed and len(missed) == len(set(events)):
        writer.lost("spec.notifications.events", f"{scheduler} has no mail on {shown}")
    elif missed or also:
        parts = [also] if also else []
        if missed:
            parts.append(f"{scheduler} has no mail on {shown}")
        if not also:
            parts[-1] += "; the job's other mail events are written"
        writer.approximated("spec.notifications.events", "; ".join(parts))


#: --mail-type words with no portable event (sbatch(1) --mail-type); `ALL` is the portable
#: events plus INVALID_DEPEND and STAGE_OUT, a note
_MAIL_WITHOUT_EVENT: Final = ("INVALID_DEPEND", "STAGE_OUT", "TIME_LIMIT", "ARRAY_TASKS")


def _listed(words: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return " and ".join(filter(None, (", ".join(words[:-1]), words[-1]))) if words else ""


def _mail_part(spec: Spec) -> tuple[bool, str]:
    """What of `--mail-type` no event carries (`TIME_LIMIT`, `ARRAY_TASKS`): approximated; an
    `ALL` whose events are all written is a note."""
    words = [w.strip().upper() for w in str(_get(spec, "extensions.slurm.mail_type")).split(",")]
    left = [f"`{w}`" for w in words if w in _MAIL_WITHOUT_EVENT]
    events = [str(e).replace("_", " ") for e in _get(spec, "notifications.events") or []]
    sent = f"at {_listed(events)} only" if events else "never"
    if not left:
        return False, f"`--mail-type=ALL` is read as its events ({_listed(events)})"
    return True, f"`--mail-type` {_listed(left)} has no event here: mail is sent {sent}"


def _nodes_part(spec: Spec) -> tuple[bool, str]:
    """`--nodes=MIN-MAX`: only the minimum is a count other schedulers take."""
    raw = str(_get(spec, "extensions.slurm.nodes"))
    low = _get(spec, "resources.nodes")
    if "-" not in raw:
        return False, f"`--nodes={raw}` is written as {low} nodes"
    return True, (
        f"`--nodes={raw}` is a range, which has no counterpart here: the job is written "
        f"from its minimum, {low} nodes, and never gets more"
    )


#: Slurm extension keys whose report names what exactly the portable fields leave out:
#: (approximated, message); a message that is not approximated is a note
SLURM_PARTS: Final[dict[str, Callable[[Spec], tuple[bool, str]]]] = {
    "spec.extensions.slurm.mail_type": _mail_part,
    "spec.extensions.slurm.nodes": _nodes_part,
}

#: the item variables of an HTCondor `queue VARS in|from …` (an extension key)
QUEUE_VARS: Final = "extensions.htcondor.queue.vars"


def _gpus_only(spec: Spec, path: str) -> bool:
    """Slurm's `--gres` when it asks for GPUs only (`gpu:2`, `gpu:a100:2`): the GPU fields'
    spelling, as `--gpus-per-node` is."""
    if path != "spec.extensions.slurm.gres":
        return False
    items = str(_get(spec, "extensions.slurm.gres") or "").split(",")
    return all(item.split(":", 1)[0] == "gpu" for item in items)


def _report_items(writer: _Reports, spec: Spec, script: bool) -> None:
    """HTCondor's `queue VARS in|from …`: the array carries the jobs; the items reach the
    arguments only through a script that sets them by element (container.items_prelude)."""
    from bammmc.backends.container import items_prelude, queue_items

    queue = spec.extensions.htcondor.queue if spec.extensions and spec.extensions.htcondor else None
    assert queue is not None and queue.vars
    names = ", ".join(f"`$({v})`" for v in queue.vars)
    arguments = (spec.execution.arguments if spec.execution else None) or ""
    uses = any(re.search(rf"\$\({re.escape(v)}\)", arguments, re.I) for v in queue.vars)
    if script and items_prelude(spec)[0]:
        writer.noted(
            "spec.extensions.htcondor.queue",
            f"each element sets {names} from its index in the script, for the arguments",
        )
    elif not uses and queue_items(spec) is not None:
        writer.noted(
            "spec.extensions.htcondor.queue",
            "the array carries the jobs; the arguments use none of the items",
        )
    else:
        where = f"from `{queue.source}` at submit time" if queue.source else "by condor_submit"
        writer.lost(
            "spec.extensions.htcondor.queue",
            f"the items are read {where}: {names} has no value in the converted job "
            "(the array carries only how many jobs there are)",
        )


#: the portable field each HTCondor command of `extensions.htcondor.kept_macros` is read into
_MACRO_FIELDS: Final = {
    "arguments": "execution.arguments",
    "executable": "execution.executable",
    "output": "output.stdout",
    "error": "output.stderr",
    "input": "execution.stdin",
    "initialdir": "execution.workingDir",
}


def _report_macros(writer: _Reports, spec: Spec) -> None:
    """The commands whose HTCondor macros (`$(name)` condor_submit fills in) the reader kept
    as written: text elsewhere (the queue items are reported with the queue)."""
    kept = list(_get(spec, "extensions.htcondor.kept_macros") or [])
    arguments = (spec.execution.arguments if spec.execution else None) or ""
    items = {v.lower() for v in _get(spec, QUEUE_VARS) or ()}
    used = {m.lower() for m in re.findall(r"\$\((\w+)\)", arguments)}
    if "arguments" in kept and used and used <= items:
        kept.remove("arguments")  # only queue items: their report says what becomes of them
    # a command whose value, as read, holds no macro any more (`$(Process)` became the index)
    left = [k for k in kept if "$(" in str(_get(spec, _MACRO_FIELDS.get(k, "")) or "$(")]
    if not left and kept:
        writer.noted(
            "spec.extensions.htcondor.kept_macros",
            "the macros of " + ", ".join(f"`{k}`" for k in kept) + " are written in this "
            "scheduler's own words",
        )
    kept = left
    if kept:
        names = ", ".join(f"`{k}`" for k in kept)
        writer.lost(
            "spec.extensions.htcondor.kept_macros",
            f"the HTCondor macros in {names} are filled in by condor_submit; they stay "
            "as text (`$(name)`) here",
        )


def _plain_universe(spec: Spec) -> str | None:
    """Why an HTCondor universe needs nothing of its own elsewhere, or None: `vanilla`, the
    default (condor_submit(1)), is an ordinary batch job; `docker` and `container` are a job in
    an image, which `container.image` carries."""
    universe = str(_get(spec, "extensions.htcondor.universe") or "").lower()
    if universe == "vanilla":
        return "a vanilla universe job is an ordinary batch job, as this one is"
    if universe in ("docker", "container") and _get(spec, "execution.container.image"):
        return f"a {universe} universe job runs in its image: `container.image` carries it"
    return None


#: extension keys (wire names) that are only the source's spelling of the portable value that
#: carries them (`--mem=8G` beside `memoryPerTask: 8Gi/node`): N003 where that value is written.
#: Another carried key may hold more than its portable field (`--nodes=2-4`, a `select` with
#: `host=`), so it stays a W301
SPELLINGS: Final[dict[str, frozenset[str]]] = {
    "slurm": frozenset(
        {"mem", "mem_per_cpu", "mem_per_gpu", "gpus", "gpus_per_node", "gpus_per_task"}
        | {"partition"}
        | {"time_min", "begin", "deadline", "output", "error", "input"}
    ),
    "pbs": frozenset({"mem", "join", "output", "error", "mail_points"}),
}
#: extension keys that say how a portable value was written in the source (`-nnodes`, memory
#: that is `-M`'s limit), nothing of their own: silent where that value is written
MARKERS: Final = ("spec.extensions.lsf.memory_from_limit", "spec.extensions.lsf.nnodes")
#: extension keys that say what the source left to its command line, which every target's
#: command line gives as well: nothing to write and nothing lost
SOURCE_NOTES: Final = ("spec.extensions.flux.slots_from_command_line",)


def _report_start(writer: _Reports, spec: Spec, own: tuple[str, ...]) -> None:
    """Grid Engine's `extensions.sge.cwd` (`-cwd`: the submit directory; `false`, no `-cwd`: the
    home directory) where the target starts a job by itself: PBS in the home directory
    (qsub(1B): the job starts in the user's home directory; its writer changes to the submit
    directory for `-cwd`), every other one in the submit directory. The same place is nothing
    to report."""
    if _is_set(spec, "execution.workingDir"):
        writer.approximated(
            "spec.extensions.sge.cwd",
            "the job's `workingDir` is written, and decides where it starts",
        )
    elif _get(spec, "extensions.sge.cwd") is False and "pbs" not in own:
        writer.approximated(
            "spec.extensions.sge.cwd",
            "Grid Engine starts this job in the home directory (the script has no `-cwd`); "
            "the converted job starts in the submit directory, where its relative paths now "
            "resolve (add `cd ~` at the top of the script if it needs the home directory)",
        )


#: Portable fields that a raw key of a target's own extensions block decides when the writer
#: writes the raw form instead of them (beyond MIRRORS, the fields a reader sets beside the
#: raw form). Paths are under `spec.`.
RAW_WINS: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "slurm": {
        "exclusive": ("placement.exclusive",),
        "tmp": (f"{_R}.diskPerTask",),
        "mem_per_gpu": _MEM,
        "gpus_per_task": _GPU,
        "input": ("execution.stdin",),
    },
    "pbs": {
        "select": (*_MEM, *_GPU, f"{_R}.diskPerTask", "placement.constraint"),
        "mixed_chunks": (*_MEM, *_GPU),
        "nodes": (*_MEM, *_GPU, "placement.constraint"),
        "place": ("placement.topology", "placement.groupBy", "placement.exclusive"),
        "output": _OUT,
        "error": _OUT,
        "join": _OUT,
        "stagein": ("fileStaging.inputs",),
        "stageout": ("fileStaging.outputs",),
        "dependency": ("dependencies",),
        "begin": ("schedule.beginAfter",),
        "mail_points": ("notifications.events",),
        "priority": ("schedule.priority",),
        "mem": _MEM,
    },
    "sge": {
        "pe": _MEM,
        "pe_slots": _MEM,
        "output": _OUT,
        "error": _OUT,
        "input": ("execution.stdin",),
        "hold_jid": ("dependencies",),
    },
    "flux": {
        "bank": ("schedule.account",),
        "shell_options": _OUT,
        "batch_options": (
            "execution.stdin",
            "execution.environment",
            "dependencies",
            "output.mergeStderr",
        ),
    },
}


def report_shadowed(
    writer: _Reports, job: Any, own: str, read_back: Callable[[], Any], target: str
) -> None:
    """W301 for each portable field the job sets that a raw key of the target's own
    extensions block (``own``), written instead of it, says something else about: the output
    read back (``read_back()``, called only when such a pair is set) must give the field's
    value. A field the writer reported itself is left alone."""
    from bammmc.ir.paths import related, same_value, set_leaves

    spec = job.spec
    block = getattr(spec.extensions, own, None) if spec and spec.extensions else None
    if block is None:
        return
    mirrors = MIRRORS.get(own, {})
    extra = RAW_WINS.get(own, {})
    leaves = [(p, v) for p, v in set_leaves(job) if not p.startswith("spec.extensions.")]
    pairs: list[tuple[str, str, Any]] = []
    for f in msgspec.structs.fields(block):
        if getattr(block, f.name) is None:
            continue
        for portable in (*mirrors.get(f.name, ()), *extra.get(f.name, ())):
            field = f"spec.{portable}"
            for path, value in leaves:
                if related(path, field) and len(path) >= len(field):
                    pairs.append((f.encode_name, path, value))
    if not pairs:
        return
    reporter = getattr(writer, "reporter", None)
    done = {  # what the writer said of a field, a note too, is its word on it
        d.field
        for d in (reporter.diagnostics if reporter is not None else ())
        if d.field and d.code[:2] in ("W2", "W3", "N0")
    }
    back = read_back()
    from bammmc.ir.paths import get_path

    for key, path, value in pairs:
        if any(related(path, f) for f in done):
            continue
        if back is not None and same_value(value, get_path(back, path)):
            continue
        writer.approximated(
            path,
            f"the raw `extensions.{own}.{key}` is written instead, and it says something else "
            f"for {target}",
        )
        done.add(path)


def report_priority_rounding(
    writer: _Reports, priority: int, native: int, scheduler: str, band: Any, path: str
) -> None:
    """W301 when the native priority the band maps ``priority`` to reads back as another
    canonical priority: the native scale is coarser than the band (several canonical values
    share one native value)."""
    from bammmc.ir.priority import from_native

    back = from_native(native, scheduler, band)
    if back != priority:
        writer.approximated(
            path,
            f"priority {priority} is native {native}, which stands for {back}: the native "
            "scale has fewer steps than the priority band",
        )


def spec_without_script(job: Any) -> Any:
    """The spec of a job read back, without its script (a writer's directive lines are in it),
    for comparing what two outputs set."""
    if job is None or job.spec is None:
        return job
    ex = job.spec.execution
    if ex is not None:
        ex = msgspec.structs.replace(ex, script=None)
    return msgspec.structs.replace(job.spec, execution=ex)


def dependency_gap(dep: Any, target: str) -> str:
    """Why a dependency is not written: it has no scheme (`count` alone: wait for N elements
    of an array), names no job, or the target has no such scheme."""
    if dep.scheme is None:
        return (
            f"a dependency without a `scheme` (wait for {dep.count or 'some'} elements of an "
            "array) has no form here; give it a scheme such as `afterok`"
        )
    if not dep.value and dep.scheme.startswith("after"):
        return f"`{dep.scheme}` without a job id names no job to wait for"
    return f"{target} has no `{dep.scheme}` dependency"


def camel(name: str) -> str:
    """The wire name of a portable field from its Python name: `config_maps` -> `configMaps`.

    >>> camel("config_maps"), camel("stdin")
    ('configMaps', 'stdin')
    """
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


#: in a separator set of :func:`separator_in`, a blank stands for any white space
BLANK: Final = " "


def separator_in(value: str, chars: str) -> str | None:
    """The first character of ``value`` that is one of ``chars`` (a blank in ``chars``: any
    white space), or None.

    >>> separator_in("r1,walltime=1", ",="), separator_in("a\\tb", " "), separator_in("ok", ",")
    (',', '\\t', None)
    """
    blanks = BLANK in chars
    for c in value:
        if c in chars or (blanks and c.isspace()):
            return c
    return None


def shown_char(c: str) -> str:
    """A character as a diagnostic names it.

    >>> shown_char(","), shown_char(" "), shown_char("\\t")
    ('`,`', 'a blank', 'a tab')
    """
    names = {" ": "a blank", "\t": "a tab", "\n": "a line break", "\r": "a carriage return"}
    if c in names:
        return names[c]
    return f"`{c}`" if c.isprintable() and not c.isspace() else f"the character U+{ord(c):04X}"


def refuse_separator(
    reporter: Any,
    field: str | None,
    value: str,
    chars: str,
    where: str,
    why: str,
    help: str | None = None,
) -> bool:
    """E140 when ``value`` holds one of ``chars`` (:func:`separator_in`): a character the
    target's sub-language ``where`` (`a -l resource list`) reads as syntax, so that written as
    it is the value would add to what the target reads or change it, and the target has no
    quoting for it there. ``why`` says what the target would do with it. True when refused.
    """
    c = separator_in(value, chars)
    if c is None:
        return False
    report_separator(reporter, field, c, where, why, help)
    return True


def report_separator(
    reporter: Any,
    field: str | None,
    c: str,
    where: str,
    why: str,
    help: str | None = None,
) -> None:
    """The E140 of :func:`refuse_separator` for the character ``c`` of the field's value."""
    reporter.report(
        "E140",
        f"`{field or 'a value'}` holds {shown_char(c)}, which {where} reads as syntax",
        field=field,
        notes=(why,),
        help=help or f"remove {shown_char(c)} from the value",
    )


def read_own(text: str, fmt: str) -> Any:
    """What bammmc's own reader of ``fmt`` makes of a writer's output (``None`` on errors)."""
    from bammmc.diagnostics.model import Reporter
    from bammmc.pipeline import compile_text, get_format

    reporter = Reporter()
    compiled = compile_text(text, get_format(fmt), reporter)
    if reporter.has_errors or not compiled:
        return None
    return compiled[0].job


def refuse_unreadable(
    reporter: Any, text: str, fmt: str, fields: dict[str, str], own: str, tool: str
) -> bool:
    """E134 for each line of a writer's output ``text`` that the target's own reader (``fmt``)
    refuses: the readers follow the scheduler's submission command (``tool``), and a writer
    does not write what it refuses — a raw value of the extensions block, say `priority: .`,
    is written as it is and checked here. ``fields`` maps a written line to the field it
    came from; a line without one is a raw value of the target's extensions block ``own``.
    True when something was refused (the job is then not written). Nothing is checked when
    the writer has refused the job already."""
    from bammmc.diagnostics.model import Reporter
    from bammmc.pipeline import compile_text, get_format

    if any(d.is_error for d in reporter.diagnostics):
        return True
    check = Reporter()
    compile_text(text, get_format(fmt), check)
    lines = text.split("\n")
    seen: set[tuple[str | None, str]] = set()
    for d in check.diagnostics:
        if not d.is_error:
            continue
        n = d.span.line if d.span is not None else 0
        line = lines[n - 1] if 0 < n <= len(lines) else None
        if (line, d.message) in seen:
            continue
        seen.add((line, d.message))
        where = f"`{line}`" if line is not None else "the output"
        reporter.report(
            "E134",
            f"{where} is refused by bammmc's own reader of the output: {d.message}",
            notes=(f"the reader takes what {tool} takes; a value it refuses is not written",),
            field=fields.get(line or "", f"spec.extensions.{own}"),
            help=f"give the field a value {tool} takes, or leave it out",
        )
    return bool(seen)
