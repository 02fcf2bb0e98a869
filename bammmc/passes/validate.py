"""The SPLAT specification's cross-field rules, as coded diagnostics.

One function per rule; each reports at the key that broke it. The pass does not change the job.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from typing import Any

from bammmc.diagnostics.suggest import did_you_mean
from bammmc.ir.job import VOLUME_SOURCES, Job, Schedule, Spec
from bammmc.ir.values import LAST_TIMESTAMP, DateTime, ValueSyntaxError, is_digits
from bammmc.passes import PassContext


def validate(job: Job, ctx: PassContext) -> Job:
    spec = job.spec
    if spec is None:
        return job
    _execution(spec, ctx)
    _volumes(spec, ctx)
    _resources(spec, ctx)
    _schedule(spec, ctx)
    _zeros(spec, ctx)
    _array(spec, ctx)
    _tasks(spec, ctx)
    _dependencies(spec, ctx)
    _gang(spec, ctx)
    _file_staging(spec, ctx)
    _htcondor_expressions(spec, ctx)
    return job


def _blocks(spec: Spec, name: str) -> Iterator[tuple[str, Any]]:
    """Every ``name`` block (``execution``, ``resources``, ``schedule``…) of the job: the top
    level, each task, each Slurm het component — with its field path."""
    if getattr(spec, name, None) is not None:
        yield f"spec.{name}", getattr(spec, name)
    for i, task in enumerate(spec.tasks or ()):
        if getattr(task, name, None) is not None:
            yield f"spec.tasks[{i}].{name}", getattr(task, name)
    if spec.extensions and spec.extensions.slurm:
        for i, comp in enumerate(spec.extensions.slurm.het_components or ()):
            if getattr(comp, name, None) is not None:
                yield f"spec.extensions.slurm.het_components[{i}].{name}", getattr(comp, name)


def _execution(spec: Spec, ctx: PassContext) -> None:
    for path, ex in _blocks(spec, "execution"):
        if ex.script is not None and ex.executable is not None:
            ctx.report(
                "E112",
                "`script` and `executable` are both set",
                f"{path}.executable",
                label="a job runs a script or an executable, not both",
                help="keep one: call the executable from the script, or drop the script",
            )


def _volumes(spec: Spec, ctx: PassContext) -> None:
    for i, vol in enumerate(spec.volumes or ()):
        path = f"spec.volumes[{i}]"
        sources = [s for s in VOLUME_SOURCES if getattr(vol, s) not in (None, False)]
        if len(sources) != 1:
            wire = {
                "config_map": "configMap",
                "host_path": "hostPath",
                "empty_dir": "emptyDir",
            }
            names = ", ".join(f"`{wire.get(s, s)}`" for s in sources)
            message = (
                f"volume `{vol.name}` has no source"
                if not sources
                else f"volume `{vol.name}` has {len(sources)} sources: {names}"
            )
            ctx.report(
                "E113",
                message,
                f"{path}.name",
                help="give exactly one of `pvc`, `configMap`, `secret`, `hostPath`, "
                "`emptyDir`, `nfs`",
            )


def _resources(spec: Spec, ctx: PassContext) -> None:
    for path, res in _blocks(spec, "resources"):
        gpu = res.gpu
        if gpu is not None and gpu.fraction is not None and not 0 < gpu.fraction <= 1:
            ctx.report(
                "E114",
                f"GPU fraction `{gpu.fraction}` is not in (0, 1]",
                f"{path}.gpu.fraction",
                at="value",
                help="use a share of one GPU such as `0.5`; for several GPUs set `gpu.count`",
            )
        # `tasksPerNode` is the most tasks on one node (Slurm: with --ntasks it is a maximum),
        # so fewer tasks than nodes × tasksPerNode is fine; more cannot be placed
        if res.nodes and res.tasks_per_node and res.tasks:
            if res.tasks > res.nodes * res.tasks_per_node:
                ctx.report(
                    "E119",
                    f"{res.tasks} tasks do not fit on {res.nodes} nodes with at most "
                    f"{res.tasks_per_node} per node",
                    f"{path}.tasks",
                    help="raise `nodes` or `tasksPerNode`, or lower `tasks`",
                )


def _zeros(spec: Spec, ctx: PassContext) -> None:
    """A zero walltime or memory means "no limit" or "the whole node" to some schedulers
    (Slurm `--time=0`, `--mem=0`) and nothing to others: never carry it silently."""
    for path, sched in _blocks(spec, "schedule"):
        low, high = sched.walltime_min, sched.walltime
        if low is not None and low.seconds == 0:
            ctx.report(
                "E118",
                "a minimum walltime of zero",
                f"{path}.walltimeMin",
                at="value",
                notes=("Slurm reads `--time-min=0` as no limit",),
                help="leave `walltimeMin` out, or write a positive duration",
            )
        elif (
            low is not None
            and high is not None
            and low.seconds is not None
            and (high.seconds is not None and low.seconds > high.seconds)
        ):
            ctx.report(
                "E118",
                "the minimum walltime is above the walltime",
                f"{path}.walltimeMin",
                at="value",
                help="make `walltimeMin` at most `walltime`",
            )
        if sched.walltime is not None and sched.walltime.seconds == 0:
            ctx.report(
                "E118",
                "a walltime of zero",
                f"{path}.walltime",
                at="value",
                notes=("Slurm reads `--time=0` as no limit at all",),
                help="write `unlimited` for no limit, or a positive duration",
            )
    for path, res in _blocks(spec, "resources"):
        if res.memory_per_task is not None and res.memory_per_task.bytes == 0:
            ctx.report(
                "E118",
                "zero memory per task",
                f"{path}.memoryPerTask",
                at="value",
                notes=("Slurm reads `--mem=0` as all of each node's memory",),
                help="write a positive size (for whole nodes use `placement.exclusive`)",
            )


def _schedule(spec: Spec, ctx: PassContext) -> None:
    for path, sched in _blocks(spec, "schedule"):
        _one_schedule(path, sched, ctx)


def _one_schedule(path: str, sched: Schedule, ctx: PassContext) -> None:
    if sched.queue is not None and sched.partition is not None and sched.queue != sched.partition:
        ctx.report(
            "E115",
            f"`partition` `{sched.partition}` differs from `queue` `{sched.queue}`",
            f"{path}.partition",
            notes=("`partition` is an alias of `queue`",),
            help="set only one of them",
        )
    if sched.priority is not None and sched.priority not in ctx.band:
        ctx.report(
            "E116",
            f"priority {sched.priority} is outside the band {ctx.band}",
            f"{path}.priority",
            at="value",
            help=f"use a value from {ctx.band.low} to {ctx.band.high}, or widen the band "
            "with `--priority-range MIN:MAX`",
        )


def _array(spec: Spec, ctx: PassContext) -> None:
    arr = spec.array
    if arr is None or arr.indices is None:
        return
    throttle = arr.indices.throttle
    if throttle is not None and arr.max_concurrent is not None and throttle != arr.max_concurrent:
        ctx.report(
            "E117",
            f"`maxConcurrent: {arr.max_concurrent}` disagrees with the `%{throttle}` throttle "
            f"of `indices`",
            "spec.array.maxConcurrent",
            help="keep one of them, or make them equal",
        )


def _tasks(spec: Spec, ctx: PassContext) -> None:
    tasks = spec.tasks or []
    names: dict[str, int] = {}
    for i, task in enumerate(tasks):
        if task.name in names:
            ctx.report(
                "E120",
                f"task name `{task.name}` is used twice",
                f"spec.tasks[{i}].name",
                notes=(f"first used by `spec.tasks[{names[task.name]}]`",),
                help="rename one of the tasks",
            )
        else:
            names[task.name] = i
        if task.min_replicas is not None and task.replicas is not None:
            if task.min_replicas > task.replicas:
                ctx.report(
                    "E123",
                    f"`minReplicas` {task.min_replicas} exceeds `replicas` {task.replicas}",
                    f"spec.tasks[{i}].minReplicas",
                    help="lower `minReplicas` or raise `replicas`",
                )
    for i, task in enumerate(tasks):
        for j, ref in enumerate(task.depends_on or ()):
            if ref.name not in names:
                ctx.report(
                    "E121",
                    f"task `{task.name}` depends on unknown task `{ref.name}`",
                    f"spec.tasks[{i}].dependsOn[{j}].name",
                    at="value",
                    help=did_you_mean(ref.name, [n for n in names if n != task.name])
                    or "known tasks: " + ", ".join(f"`{n}`" for n in names if n != task.name),
                )
            elif ref.name == task.name:
                ctx.report(
                    "E121",
                    f"task `{task.name}` depends on itself",
                    f"spec.tasks[{i}].dependsOn[{j}].name",
                    at="value",
                    help="remove the self-reference",
                )
    if tasks:
        for block in ("resources", "execution"):
            if getattr(spec, block) is not None and all(
                getattr(t, block) is not None for t in tasks
            ):
                ctx.report(
                    "W401",
                    f"top-level `{block}` is unused: every task sets its own",
                    f"spec.{block}",
                    notes=("`spec.tasks` overrides the top-level block for each task",),
                    help=f"remove `spec.{block}`, or drop the per-task blocks that should "
                    "inherit it",
                )


def _dependencies(spec: Spec, ctx: PassContext) -> None:
    for i, dep in enumerate(spec.dependencies or ()):
        path = f"spec.dependencies[{i}]"
        if dep.scheme is None:
            if dep.count is None:
                ctx.report(
                    "E122",
                    "dependency has no `scheme`",
                    path,
                    help="add `scheme:` (`afterok`, `afternotok`, `afterany`, `after`, "
                    "`singleton` or `begin_time`)",
                )
            elif dep.value is None:
                ctx.report(
                    "E122",
                    "an array-count dependency needs the array job in `value`",
                    f"{path}.count",
                    help="add `value:` with the array job's id",
                )
            continue
        if dep.scheme == "singleton":
            if dep.value is not None:
                ctx.report(
                    "E122",
                    "a `singleton` dependency takes no `value`",
                    f"{path}.value",
                    notes=("singleton waits for every job with the same name and account",),
                    help="remove `value`",
                )
        elif dep.value is None or dep.value == "":
            ctx.report(
                "E122",
                f"an `{dep.scheme}` dependency needs a `value`",
                f"{path}.scheme",
                help="add `value:` with "
                + ("a time" if dep.scheme == "begin_time" else "the job id or name"),
            )
        elif dep.scheme == "begin_time" and is_digits(dep.value):
            if len(dep.value) > 12 or int(dep.value) > LAST_TIMESTAMP:
                ctx.report(
                    "E122",
                    f"`begin_time` timestamp `{dep.value[:20]}` is past the end of year 9999",
                    f"{path}.value",
                    at="value",
                    help="write a Unix timestamp up to 253402300799, e.g. `1772352000`",
                )
        elif dep.scheme == "begin_time":
            try:
                DateTime.parse(dep.value)
            except ValueSyntaxError:
                ctx.report(
                    "E122",
                    f"`begin_time` value `{dep.value}` is not an ISO 8601 time or a Unix timestamp",
                    f"{path}.value",
                    at="value",
                    help="write e.g. `2026-03-01T08:00:00Z` or `1772352000`",
                )


def _gang(spec: Spec, ctx: PassContext) -> None:
    gang = spec.gang
    if gang is None or gang.min_available is None:
        return
    total: int | None = None
    if spec.tasks:
        total = sum(t.replicas or 1 for t in spec.tasks)  # a task without replicas is one
    elif spec.resources is not None and spec.resources.tasks is not None:
        total = spec.resources.tasks
    elif spec.resources is not None and spec.resources.nodes and spec.resources.tasks_per_node:
        total = spec.resources.nodes * spec.resources.tasks_per_node
    if total is not None and gang.min_available > total:
        ctx.report(
            "E123",
            f"`minAvailable` {gang.min_available} exceeds the job's {total} tasks",
            "spec.gang.minAvailable",
            at="value",
            help="lower `minAvailable` or raise the task count",
        )


def _file_staging(spec: Spec, ctx: PassContext) -> None:
    fs = spec.file_staging
    if fs is None:
        return
    for i, ef in enumerate(fs.embedded_files or ()):
        path = f"spec.fileStaging.embeddedFiles[{i}]"
        if ef.encoding == "base64":
            try:
                base64.b64decode(ef.content.encode("ascii"), validate=True)
            except (binascii.Error, UnicodeEncodeError, ValueError):
                ctx.report(
                    "E124",
                    f"content of `{ef.name}` is not valid base64",
                    f"{path}.content",
                    at="value",
                    help="re-encode with `base64 -w0 FILE`, or set `encoding: utf-8` for text",
                )
        if ef.permissions is not None:
            p = ef.permissions
            if not (3 <= len(p) <= 4 and all(c in "01234567" for c in p)):
                ctx.report(
                    "E126",
                    f"permissions `{p}` are not an octal mode",
                    f"{path}.permissions",
                    at="value",
                    help='write an octal mode such as `"0755"` (quoted)',
                )


def _htcondor_expressions(spec: Spec, ctx: PassContext) -> None:
    """Each expression-valued HTCondor field must parse as condor_submit parses it (old
    ClassAd syntax), or the HTCondor writer would emit a job condor_submit refuses."""
    ext = spec.extensions.htcondor if spec.extensions is not None else None
    if ext is None:
        return
    from bammmc.frontends import classad
    from bammmc.frontends.htcondor import EXPRESSION_FIELDS, has_macros

    for name in EXPRESSION_FIELDS:
        text = getattr(ext, name)
        if text is None or has_macros(text):  # `$(x)`, `$RANDOM_INTEGER(…)`: known later
            continue
        path = f"spec.extensions.htcondor.{name}"
        span = ctx.source_map.value(path)
        if span is not None and any(  # the reader already said so (a submit file)
            d.code == "E021"
            and d.span is not None
            and d.span.file == span.file
            and d.span.line == span.line
            for d in ctx.reporter.diagnostics
        ):
            continue
        classad.check(text, ctx.reporter, span, what=name, old=True, field=path)
