"""Whole-job totals: what a job asks for in all, before and after a conversion.

``--explain`` ends with one row per quantity — tasks, nodes, CPUs, memory, GPUs, array elements,
walltime — with the source job's total, the converted job's (its output read back by the
target's own reader) and a verdict: ``kept`` when they are equal, else ``approximated`` or
``lost`` with the W3xx/W2xx that names one of the quantity's fields (:data:`FIELDS`), else
``changed``: a difference no diagnostic names, which is a bug of the writer
(tests/property/test_totals.py generates jobs and finds none).

The totals follow the SPLAT model (the specification's `resources` block): amounts are per task
unless scoped (``16Gi/node``, ``2/job``, ``2G/cpu``); ``tasks`` defaults to ``nodes`` ×
``tasksPerNode`` (one task per node without it), else one; ``cpusPerTask`` defaults to one. A
job's task groups (``spec.tasks``, each replica one task, its resources or the job's) and a Slurm
heterogeneous job's components add up. An amount per node of a job that does not say on how
many nodes its tasks run stays per node (``16 GiB per node``): it is compared as it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from bammmc.ir.job import Job, Resources
from bammmc.ir.paths import related
from bammmc.ir.values import human_size

QUANTITIES = ("tasks", "nodes", "cpus", "memory", "gpus", "array", "walltime")
LABELS = {
    "tasks": "tasks",
    "nodes": "nodes",
    "cpus": "CPUs",
    "memory": "memory",
    "gpus": "GPUs",
    "array": "array elements",
    "walltime": "walltime",
}

#: the fields that make how many tasks run where
_SHAPE = (
    "spec.resources.tasks",
    "spec.resources.nodes",
    "spec.resources.tasksPerNode",
    "spec.tasks",
    "spec.extensions.slurm.het_components",
    "spec.extensions.pbs.mixed_chunks",
)
#: the fields whose W2xx/W3xx names a difference of each quantity, the quantity's own first: the
#: diagnostic of the first field that has one is the verdict
FIELDS: dict[str, tuple[str, ...]] = {
    # Torque's `ppn` counts a task's CPUs as processors, read back as tasks
    "tasks": (*_SHAPE, "spec.resources.cpusPerTask"),
    "nodes": ("spec.resources.nodes", *_SHAPE),
    "cpus": ("spec.resources.cpusPerTask", *_SHAPE),
    "memory": (
        "spec.resources.memoryPerTask",
        "spec.extensions.slurm.mem",
        "spec.extensions.sge.slot_memory",
        "spec.extensions.pbs.resources",
        "spec.resources.cpusPerTask",
        "spec.resources.gpu.count",
        *_SHAPE,
    ),
    "gpus": ("spec.resources.gpu.count", *_SHAPE, "spec.resources.gpu.type"),
    "array": ("spec.array",),
    "walltime": ("spec.schedule.walltime",),
}


#: fields whose loss says nothing of the quantity, only their approximation does: a GPU type
#: without a count is one GPU on Slurm (its W301), a type dropped leaves the count as it was
_APPROXIMATIONS_ONLY = frozenset({"spec.resources.gpu.type"})


@dataclass(frozen=True)
class Total:
    """One quantity of a job: ``key`` is what is compared, ``text`` what is shown (``—`` when
    the job does not say: the scheduler's default)."""

    key: Any
    text: str


NOT_SET = Total(None, "—")


def _number(n: Fraction | int) -> str:
    n = Fraction(n)
    if n.denominator == 1:
        return f"{n.numerator:,}"
    return f"{float(n):.3g}"


@dataclass(frozen=True)
class _Group:
    """Tasks with the same resources: the job, a task group or a heterogeneous component."""

    res: Resources
    replicas: int = 1

    @property
    def tasks(self) -> int:
        return self.res.task_count * self.replicas

    @property
    def nodes(self) -> int | None:
        """The nodes the tasks run on, when the job says or implies it."""
        res = self.res
        if res.nodes is not None:
            return res.nodes * self.replicas
        if res.tasks_per_node:
            return -(-self.tasks // res.tasks_per_node)
        return 1 if self.tasks == 1 else None

    @property
    def cpus(self) -> Fraction:
        cpt = self.res.cpus_per_task
        return (cpt.cores if cpt is not None else Fraction(1)) * self.tasks

    def gpus(self) -> tuple[Fraction, str | None] | None:
        gpu = self.res.gpu
        if gpu is None or gpu.count is None:
            return None
        return self._scaled(gpu.count.amount, gpu.count.scope)

    def memory(self) -> tuple[Fraction, str | None] | None:
        size = self.res.memory_per_task
        if size is None:
            return None
        return self._scaled(Fraction(size.bytes), size.scope)

    def _scaled(self, amount: Fraction, scope: str | None) -> tuple[Fraction, str | None]:
        """``amount`` per ``scope`` as the group's total, or as it is (with the scope) when the
        group's count of that scope is not known."""
        if scope in (None, "task", "process"):
            return amount * self.tasks, None
        if scope in ("cpu", "slot"):
            return amount * self.cpus, None
        if scope == "job":
            return amount * self.replicas, None
        if scope in ("node", "chunk"):
            nodes = self.nodes
            return (amount * nodes, None) if nodes is not None else (amount, "node")
        if scope == "gpu":
            gpus = self.gpus()
            if gpus is not None and gpus[1] is None:
                return amount * gpus[0], None
        return amount, scope


@dataclass(frozen=True)
class _Chunk:
    """`N:ncpus=C:mpiprocs=M:mem=X:ngpus=G` of a PBS `select` with several chunk shapes
    (`extensions.pbs.mixed_chunks`; the portable fields hold only the first): N nodes of M
    tasks, C CPUs, X memory and G GPUs each (pbs.md §2; mpiprocs defaults to 1)."""

    count: int
    res: dict[str, str]
    #: the job-wide memory of Torque's chunks (`-l mem`, the job's total), on the first chunk
    job_memory: int | None = None

    def _num(self, key: str, default: int) -> int:
        text = self.res.get(key, "")
        return int(text) if text.isdigit() else default

    @property
    def tasks(self) -> int:
        return self.count * self._num("mpiprocs", 1 if self._num("ncpus", 1) else 0)

    @property
    def nodes(self) -> int:
        return self.count

    @property
    def cpus(self) -> Fraction:
        return Fraction(self.count * self._num("ncpus", 1))

    def gpus(self) -> tuple[Fraction, str | None] | None:
        return (Fraction(self.count * self._num("ngpus", 0)), None) if "ngpus" in self.res else None

    def memory(self) -> tuple[Fraction, str | None] | None:
        from bammmc.facts.pbs import size_bytes

        if self.job_memory is not None:
            return Fraction(self.job_memory), None
        size = size_bytes(self.res["mem"]) if "mem" in self.res else None
        return (Fraction(self.count * size), None) if size is not None else None


def _chunks(text: str, job_memory: int | None = None) -> list[_Chunk] | None:
    """The chunks of either dialect: Torque's `N:ppn=P:gpus=G` is N nodes of P processes, one
    CPU each, and G GPUs each (torque.md; its memory is the job's `mem`)."""
    chunks = []
    for part in text.split("+"):
        first, *rest = part.split(":")
        if not first.isdigit():
            rest, first = [first, *rest], "1"
        res = dict(item.split("=", 1) for item in rest if "=" in item)
        if "ppn" in res or (rest and len(res) < len(rest)):  # Torque's words (or properties)
            ppn = res.get("ppn", "1")
            gpus = {"ngpus": res["gpus"]} if "gpus" in res else {}
            # the job's memory counts once: on the first chunk, none on the others
            memory, job_memory = job_memory, 0 if job_memory is not None else None
            chunks.append(_Chunk(int(first), {"ncpus": ppn, "mpiprocs": ppn} | gpus, memory))
        else:
            chunks.append(_Chunk(int(first), res))
    return chunks or None


def _groups(job: Job) -> list[Any]:
    spec = job.spec
    if spec is None:
        return [_Group(Resources())]
    pbs = spec.extensions.pbs if spec.extensions is not None else None
    job_memory = pbs.mem.bytes if pbs is not None and pbs.mem is not None else None
    if pbs is not None and pbs.mixed_chunks and (chunks := _chunks(pbs.mixed_chunks, job_memory)):
        return chunks
    top = spec.resources or Resources()
    if spec.tasks:
        return [_Group(t.resources or top, t.replicas or 1) for t in spec.tasks]
    groups = [_Group(top)]
    slurm = spec.extensions.slurm if spec.extensions is not None else None
    for comp in (slurm.het_components or ()) if slurm is not None else ():
        groups.append(_Group(comp.resources or Resources()))
    return groups


#: memory limits of a PBS/Torque job that no portable field holds (`-l pvmem=4gb`: virtual
#: memory per process; `vmem`: the job's virtual memory)
_PBS_MEMORY: Final = {"pvmem": "per process", "vmem": "virtual, for the job"}


def _native_memory(spec: Any) -> Total:
    """The memory a job asks for in a form only its own scheduler has, when no portable field
    holds any: shown, so that a target without it reads as a loss, not as `— / —`."""
    ext = spec.extensions
    slurm = ext.slurm if ext is not None else None
    if slurm is not None and slurm.mem is not None and slurm.mem.bytes == 0:
        return Total(("slurm", "all"), "all of each node's (`--mem=0`)")
    sge = ext.sge if ext is not None else None
    if sge is not None and sge.slot_memory:
        items = sorted((k, v.bytes) for k, v in sge.slot_memory.items())
        text = ", ".join(f"{human_size(b)} per slot (`{k}`)" for k, b in items)
        return Total(("sge", tuple(items)), text)
    pbs = ext.pbs if ext is not None else None
    if pbs is not None and pbs.resources:
        from bammmc.facts.pbs import size_bytes

        found = [(k, size_bytes(v)) for k, v in sorted(pbs.resources.items()) if k in _PBS_MEMORY]
        if found and all(b is not None for _, b in found):
            text = ", ".join(f"{human_size(b or 0)} {_PBS_MEMORY[k]} (`{k}`)" for k, b in found)
            return Total(("pbs", tuple(found)), text)
    return NOT_SET


def _sum(parts: Iterable[tuple[Fraction, str | None] | None], show: Any) -> Total:
    """The total of the groups' amounts (``None``: the group does not say)."""
    parts = list(parts)
    if all(p is None for p in parts):
        return NOT_SET
    whole = [p for p in parts if p is not None and p[1] is None]
    scoped = [p for p in parts if p is not None and p[1] is not None]
    total = sum((p[0] for p in whole), Fraction(0))
    texts = [show(total)] if whole or not scoped else []
    texts += [f"{show(a)} per {scope}" for a, scope in scoped]
    key = (total, tuple(sorted(scoped)), sum(p is None for p in parts))
    return Total(key, " + ".join(texts))


def _clock(seconds: int) -> str:
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    clock = f"{hours}:{rest // 60:02d}:{rest % 60:02d}"
    return f"{days}-{hours:02d}:{rest // 60:02d}:{rest % 60:02d}" if days else clock


def of(job: Job) -> dict[str, Total]:
    """The job's totals, one per quantity of :data:`QUANTITIES`."""
    groups = _groups(job)
    tasks = sum(g.tasks for g in groups)
    nodes = [g.nodes for g in groups]
    cpus = sum((g.cpus for g in groups), Fraction(0))
    out = {
        "tasks": Total(tasks, _number(tasks)),
        "nodes": (
            Total(sum(n for n in nodes if n is not None), _number(sum(n or 0 for n in nodes)))
            if all(n is not None for n in nodes)
            else Total(None, "scheduler's choice")
        ),
        "cpus": Total(cpus, _number(cpus)),
        "memory": _sum((g.memory() for g in groups), lambda b: human_size(b)),
        "gpus": _sum((g.gpus() for g in groups), _number),
    }
    spec = job.spec
    if out["memory"] == NOT_SET and spec is not None:
        out["memory"] = _native_memory(spec)
    array = spec.array if spec is not None else None
    if array is None or array.indices is None:
        out["array"] = NOT_SET
    else:
        n = len(array.indices)
        at_once = array.max_concurrent or array.indices.throttle
        text = _number(n) + (f", {at_once} at a time" if at_once and at_once < n else "")
        out["array"] = Total((n, at_once if at_once and at_once < n else None), text)
    walltime = spec.schedule.walltime if spec is not None and spec.schedule else None
    if walltime is None:
        out["walltime"] = NOT_SET
    elif walltime.seconds is None:
        out["walltime"] = Total("unlimited", "unlimited")
    else:
        out["walltime"] = Total(walltime.seconds, _clock(walltime.seconds))
    return out


def _unset_walltime(target: str | None) -> Total:
    """What a job without a walltime gets on ``target``: its default (``—``), or no limit."""
    from bammmc.facts import htcondor

    if target == "htcondor" and htcondor.UNSET_WALLTIME_IS_UNLIMITED:
        return Total("unlimited", "unlimited")
    return NOT_SET


def compare(
    before: dict[str, Total],
    after: dict[str, Total],
    diagnostics: Sequence[Any] = (),
    target: str | None = None,
) -> list[dict[str, Any]]:
    """One row per quantity: ``quantity``, ``source``, ``target``, ``status`` (``kept``,
    ``approximated``, ``lost`` or ``changed``) and the ``code`` that names a difference.
    ``target`` is the converted job's format (what it does without a walltime)."""
    if after["walltime"] == NOT_SET and before["walltime"].key == "unlimited":
        after = {**after, "walltime": _unset_walltime(target)}
    rows = []
    named = [d for d in diagnostics if d.field is not None and d.code[:2] in ("W2", "W3")]
    for name in QUANTITIES:
        a, b = before[name], after[name]
        status, code = "kept", None
        if a.key != b.key:
            status = "changed"
            for path in FIELDS[name]:
                found = [d for d in named if related(path, d.field)]
                if path in _APPROXIMATIONS_ONLY:
                    found = [d for d in found if d.code.startswith("W3")]
                if found:
                    worst = max(found, key=lambda d: d.code.startswith("W2"))
                    status = "lost" if worst.code.startswith("W2") else "approximated"
                    code = worst.code
                    break
        rows.append(
            {"quantity": name, "source": a.text, "target": b.text, "status": status, "code": code}
        )
    return rows
