"""The Flux jobspec writer (format ``flux``): IR -> jobspec V1 (RFC 25), YAML or JSON.

A job read from a jobspec is written back from what the reader kept
(``extensions.flux.resource_graph``, ``task``, ``system``…), so ``flux -> splat -> flux`` is
exact. Any other job gets the V1 graph ``[node N >] slot S > core C[, gpu G]`` (one slot per
task, labelled ``task``) and one task. The script of a script-mode job is embedded as the file
``script`` (RFC 37) and run from the job's temporary directory, so the jobspec is
self-contained. What a jobspec cannot hold is a submission option (``--urgency``, ``--cc``):
the writer says so (W201) with the option to use. The job shell renders mustache templates
(``{{id}}``) in output paths and in the command's words: a value whose own text it would read
as a tag there is refused (E140); environment values, the working directory and names are
written as they are, since nothing reads them as templates (docs/flux.md). Siblings:
``frontends/flux.py``, ``passes/lower/flux.py``.
"""

from __future__ import annotations

import json
import math
import shlex
from collections.abc import Callable
from typing import Any, Final

import msgspec

from bammmc.backends import OutputFile, WriteOptions
from bammmc.backends.common import (
    LossReports,
    read_own,
    report_foreign,
    report_separator,
    report_shadowed,
    report_unsupported,
    rewrite_launchers,
)
from bammmc.backends.splat import dump_yaml
from bammmc.capabilities import EXACT, Capabilities, approx, exact, lost
from bammmc.diagnostics.model import Reporter
from bammmc.frontends.flux_lang import (
    FluxLangError,
    constraint_from_splat,
    constraint_to_splat,
    mustache_clash,
)
from bammmc.ir.envvars import compatibility_block, job_shell
from bammmc.ir.job import FluxExt, Job, Spec, new_job
from bammmc.ir.paths import get_path, related, same_value, set_leaves
from bammmc.ir.priority import to_native
from bammmc.ir.values import Template
from bammmc.passes.lower.flux import (
    MUSTACHE_BACK,
    SCRIPT_COMMAND,
    dependency_object,
    to_mustache,
)

CAPABILITIES: Final = Capabilities(
    "flux",
    ("flux",),
    {
        "apiVersion": EXACT,
        "kind": EXACT,
        "metadata.name": EXACT,
        "metadata.labels": lost("a Flux jobspec has no option for it"),
        "metadata.annotations": lost("a Flux jobspec has no option for it"),
        "metadata.clientId": lost("a Flux jobspec has no idempotency key for a submission"),
        "spec.schedule.queue": EXACT,
        "spec.schedule.priority": exact(
            "",
            ("urgency is not part of a jobspec: it is given at submission", "W201"),
        ),
        "spec.schedule.priorityClass": lost("a Flux jobspec has no option for it"),
        "spec.schedule.account": EXACT,
        "spec.schedule.project": EXACT,
        "spec.schedule.walltime": EXACT,
        "spec.schedule.qos": lost("a Flux jobspec has no option for it"),
        "spec.schedule.partition": lost("a Flux jobspec has no option for it"),
        "spec.schedule.hold": exact(
            "",
            ("a jobspec cannot be held", "W201"),
        ),
        "spec.schedule.reservation": lost("a Flux jobspec has no option for it"),
        "spec.schedule.beginAfter": exact(
            "",
            ("a begin time is given at submission", "W201"),
        ),
        "spec.schedule.deadline": lost("a Flux jobspec has no option for it"),
        "spec.schedule.walltimeMin": lost("a Flux jobspec has no option for it"),
        "spec.schedule.signalBeforeEnd": lost("a Flux jobspec has no option for it"),
        "spec.resources.cpusPerTask": EXACT,
        "spec.resources.memoryPerTask": lost("a Flux jobspec has no option for it"),
        "spec.resources.tasks": EXACT,
        "spec.resources.nodes": EXACT,
        "spec.resources.tasksPerNode": exact(
            "",
            ("the jobspec has no node vertex", "W201"),
            ("2 tasks are not 4 nodes × 1: the jobspec runs 2 tasks in 4 × 1 slots", "W301"),
        ),
        "spec.resources.gpu.count": exact(
            "",
            ("1 GPUs in each task's slot (Flux GPUs are per slot)", "W301"),
        ),
        "spec.resources.gpu.type": lost("a Flux jobspec has no option for it"),
        "spec.resources.gpu.memory": lost("a Flux jobspec has no option for it"),
        "spec.resources.gpu.fraction": lost("Flux allocates whole GPUs"),
        "spec.resources.gpu.migProfile": lost("a Flux jobspec has no option for it"),
        "spec.resources.diskPerTask": lost("a Flux jobspec has no option for it"),
        "spec.resources.genericResources": lost("a Flux jobspec has no option for it"),
        "spec.resources.limits": lost("a Flux jobspec has no option for it"),
        "spec.execution.container.image": lost("a Flux jobspec has no option for it"),
        "spec.execution.container.imagePullPolicy": lost("a Flux jobspec has no option for it"),
        "spec.execution.container.imagePullSecrets": lost("a Flux jobspec has no option for it"),
        "spec.execution.container.command": lost("a Flux jobspec has no option for it"),
        "spec.execution.container.args": lost("a Flux jobspec has no option for it"),
        "spec.execution.script": exact(
            "",
            ("`$BAMMM_ARRAY_INDEX` is defined from `$FLUX_JOB_CC` for flux", "W301"),
            ("the jobspec's command is `true`", "W201"),
        ),
        "spec.execution.executable": exact(
            "",
            ("the jobspec's command is `true`", "W201"),
        ),
        "spec.execution.arguments": exact(
            "",
            ("the jobspec's command is `true`", "W201"),
        ),
        "spec.execution.shell": exact(
            "",
            ("the jobspec's command is `true`", "W201"),
            (
                "the raw `extensions.flux.tasks` is written instead, and it says something "
                "else for a Flux jobspec",
                "W301",
            ),
        ),
        "spec.execution.workingDir": exact(
            "",
            ("the jobspec's command is `true`", "W201"),
        ),
        "spec.execution.environment.vars": exact(
            "",
            ("the jobspec's command is `true`", "W201"),
        ),
        "spec.execution.environment.secrets": lost("a Flux jobspec has no option for it"),
        "spec.execution.environment.configMaps": lost("a Flux jobspec has no option for it"),
        "spec.execution.environment.inheritFromSubmitter": lost(
            "a Flux jobspec has no option for it"
        ),
        "spec.execution.stdin": lost("a Flux jobspec has no option for it"),
        "spec.tasks": lost("a Flux jobspec has no option for it"),
        "spec.gang": lost("a Flux jobspec has no option for it"),
        "spec.array.indices": exact(
            "",
            (
                (
                    "a jobspec is one job; Flux copies it at submission with `--cc` "
                    "(each copy sees its id as `{{cc}}` and `FLUX_JO"
                ),
                "W201",
            ),
        ),
        "spec.array.maxConcurrent": exact(
            "",
            (
                (
                    "a jobspec is one job; Flux copies it at submission with `--cc` "
                    "(each copy sees its id as `{{cc}}` and `FLUX_JO"
                ),
                "W201",
            ),
        ),
        "spec.dependencies[].scheme": exact(
            "",
            (("Flux has no such dependency (an array count, a begin time without a zone)"), "W201"),
        ),
        "spec.dependencies[].value": exact(
            "",
            (("Flux has no such dependency (an array count, a begin time without a zone)"), "W201"),
            ("`2025-03-02T20:00:00Z` is written as seconds since the epoch", "W301"),
        ),
        "spec.dependencies[].count": lost(
            ("Flux has no such dependency (an array count, a begin time without a zone)"),
            by_writer=True,
        ),
        "spec.lifecycle.maxRetries": lost("a Flux jobspec has no option for it"),
        "spec.lifecycle.requeueOnFailure": lost("a Flux jobspec has no option for it"),
        "spec.lifecycle.successExitCodes": lost("a Flux jobspec has no option for it"),
        "spec.lifecycle.ttlAfterFinished": lost("a Flux jobspec has no option for it"),
        "spec.placement.nodeSelector": lost("a Flux jobspec has no option for it"),
        "spec.placement.tolerations": lost("a Flux jobspec has no option for it"),
        "spec.placement.affinity": lost("a Flux jobspec has no option for it"),
        "spec.placement.topologySpread": lost("a Flux jobspec has no option for it"),
        "spec.placement.topology": lost("a Flux jobspec has no option for it"),
        "spec.placement.groupBy": lost("a Flux jobspec has no option for it"),
        "spec.placement.constraint": EXACT,
        "spec.placement.prefer": lost("a Flux jobspec has no option for it"),
        "spec.placement.exclusive": exact(
            "",
            ("Flux slots are exclusive; nodes need `-N`", "W201"),
            (
                "the raw `extensions.flux.resource_graph` is written instead, and it says "
                "something else for a Flux jobspec",
                "W301",
            ),
        ),
        "spec.placement.nodePools": lost("a Flux jobspec has no option for it"),
        "spec.output.stdout": exact(
            "",
            ("`{array_job_id}` is each copy's own `{{id}}`", "W301"),
        ),
        "spec.output.stderr": exact(
            "",
            ("`{array_job_id}` is each copy's own `{{id}}`", "W301"),
        ),
        "spec.output.mergeStderr": exact(
            "",
            ("Flux merges stderr only into a named stdout", "W201"),
            ("stderr stays apart: in flux-{{id}}.err", "W301"),
        ),
        "spec.output.openMode": lost("a Flux jobspec has no option for it"),
        "spec.notifications.email": lost("a Flux jobspec has no option for it"),
        "spec.notifications.events": lost("a Flux jobspec has no option for it"),
        "spec.fileStaging.inputs": lost("a Flux jobspec has no option for it"),
        "spec.fileStaging.outputs": lost("a Flux jobspec has no option for it"),
        "spec.fileStaging.embeddedFiles": lost("a Flux jobspec has no option for it"),
        "spec.fileStaging.transferPolicy": lost("a Flux jobspec has no option for it"),
        "spec.fileStaging.checkpointFiles": lost("a Flux jobspec has no option for it"),
        "spec.volumes": lost("a Flux jobspec has no option for it"),
        "spec.workloadType": lost("a Flux jobspec has no option for it"),
        "spec.distributedFramework": lost("a Flux jobspec has no option for it"),
        "spec.extensions.flux.bank": EXACT,
        "spec.extensions.flux.urgency": exact(
            "",
            ("urgency is not part of a jobspec: it is given at submission", "W201"),
        ),
        "spec.extensions.flux.resource_graph": EXACT,
        "spec.extensions.flux.symbolic_dependencies": exact(
            "",
            ("Flux knows no `x` dependency scheme: it is written as it is", "W301"),
        ),
        "spec.extensions.flux.embeddedFiles": exact(
            "",
            (
                "the raw `extensions.flux.tasks` is written instead, and it says something "
                "else for a Flux jobspec",
                "W301",
            ),
        ),
        "spec.extensions.flux.preemptible_after": EXACT,
        "spec.extensions.flux.count_expression.min": lost(
            "the writer writes whole counts; an RFC 45 count expression is not written"
        ),
        "spec.extensions.flux.count_expression.max": lost(
            "the writer writes whole counts; an RFC 45 count expression is not written"
        ),
        "spec.extensions.flux.count_expression.operator": lost(
            "the writer writes whole counts; an RFC 45 count expression is not written"
        ),
        "spec.extensions.flux.count_expression.operand": lost(
            "the writer writes whole counts; an RFC 45 count expression is not written"
        ),
        "spec.extensions.flux.constraints_spec": EXACT,
        "spec.extensions.flux.shell_options": EXACT,
        "spec.extensions.flux.user_attributes": EXACT,
        "spec.extensions.flux.batch_options": exact(
            "",
            (
                (
                    "`--requires=ssd` is a `flux batch` option that no field carries; a "
                    "jobspec has no place for it"
                ),
                "W201",
            ),
        ),
        "spec.extensions.flux.version": EXACT,
        "spec.extensions.flux.slots_from_command_line": approx(
            "the batch script leaves the slot count to `flux batch`'s command line; a jobspec "
            "has none, and asks for one slot",
        ),
        "spec.extensions.flux.task": EXACT,
        "spec.extensions.flux.tasks": EXACT,
        "spec.extensions.flux.system": exact(
            "",
            ("Flux knows no `x` dependency scheme: it is written as it is", "W301"),
            ("`duration: 0` (no limit) is added: a V1 jobspec needs a duration", "W301"),
        ),
        "spec.extensions.flux.env_unset": EXACT,
    },
)

#: raw keys of `extensions.flux` that the writer writes as they are, and the fields (under
#: `spec.`) they decide in a jobspec beyond common.MIRRORS and RAW_WINS: the raw `tasks` is
#: the command, so the job's own program is not run; the raw graph holds the shape
RAW_JOBSPEC: Final[dict[str, tuple[str, ...]]] = {
    "tasks": ("execution", "extensions.flux.embeddedFiles"),
    "task": ("resources",),
    "resource_graph": ("resources", "placement.exclusive"),
}

#: fields a jobspec has no place for (beyond the ones every script scheduler lacks)


def write(
    job: Job, reporter: Reporter | None = None, options: WriteOptions | None = None
) -> list[OutputFile]:
    options = options or WriteOptions()
    job, dropped = _without_invalid_raw(job, options)
    writer = FluxWriter(job, reporter or Reporter(None), options)
    for key, why in dropped:
        writer.lost(
            f"spec.extensions.flux.{_wire(key)}",
            f"not a valid part of a jobspec ({why}); the portable fields are written instead",
        )
    text = writer.text()
    if not writer.reporter.has_errors:
        writer.report_raw(lambda: read_own(text, "flux"))
    return [OutputFile(text)]


#: raw keys of `extensions.flux` written into the jobspec as they are, in the order the writer
#: leaves them out when the jobspec reader refuses the result
RAW_KEYS: Final = (
    "tasks",
    "task",
    "resource_graph",
    "system",
    "constraints_spec",
    "symbolic_dependencies",
    "shell_options",
    "user_attributes",
    "embedded_files",
)


def _wire(key: str) -> str:
    return next(f.encode_name for f in msgspec.structs.fields(FluxExt) if f.name == key)


def _refusals(job: Job, options: WriteOptions) -> list[str]:
    """The jobspec reader's errors on what the writer makes of ``job`` (its own errors aside)."""
    from bammmc.diagnostics.model import Reporter as _Reporter
    from bammmc.pipeline import compile_text, get_format

    scratch = FluxWriter(job, _Reporter(None), options)
    text = scratch.text()
    if scratch.reporter.has_errors:
        return []
    reporter = _Reporter()
    compile_text(text, get_format("flux"), reporter)
    return [d.message for d in reporter.diagnostics if d.is_error]


def _with_flux(job: Job, flux: FluxExt) -> Job:
    """``job`` with ``flux`` as its `extensions.flux` (a job that has extensions)."""
    assert job.spec is not None and job.spec.extensions is not None
    extensions = msgspec.structs.replace(job.spec.extensions, flux=flux)
    spec = msgspec.structs.replace(job.spec, extensions=extensions)
    return msgspec.structs.replace(job, spec=spec)


def _without_invalid_raw(job: Job, options: WriteOptions) -> tuple[Job, list[tuple[str, str]]]:
    """``job`` without the raw `extensions.flux` keys that make the jobspec one Flux refuses
    (written as they are, they are not checked), and each key left out with the reader's
    reason. A job whose raw keys are all valid is returned as it is."""
    flux = job.spec.extensions.flux if job.spec and job.spec.extensions else None
    if flux is None or all(getattr(flux, k) is None for k in RAW_KEYS):
        return job, []
    errors = _refusals(job, options)
    dropped: list[tuple[str, str]] = []
    for key in RAW_KEYS:
        if not errors:
            break
        if getattr(flux, key) is None:
            continue
        trial_flux = msgspec.structs.replace(flux, **{key: None})
        trial = _with_flux(job, trial_flux)
        left = _refusals(trial, options)
        if len(left) < len(errors):
            dropped.append((key, errors[0]))
            job, flux, errors = trial, trial_flux, left
    for key in RAW_KEYS:  # still refused: leave raw keys out one after another until it is not
        if not errors:
            break
        if getattr(flux, key) is None:
            continue
        flux = msgspec.structs.replace(flux, **{key: None})
        job = _with_flux(job, flux)
        dropped.append((key, errors[0]))
        errors = _refusals(job, options)
    return job, dropped


class FluxWriter(LossReports):
    WHERE = "for Flux"
    WHERE_LOST = "in a Flux jobspec"
    CHECK = "the converted jobspec"
    LOST_HELP = "keep it elsewhere, or convert to a scheduler that has it"

    def __init__(self, job: Job, reporter: Reporter, options: WriteOptions) -> None:
        self.job = job
        self.spec = job.spec or Spec()
        ext = self.spec.extensions
        self.flux = (ext.flux if ext is not None else None) or FluxExt()
        self.reporter = reporter
        self.options = options

    def text(self) -> str:
        doc = self.jobspec()
        if self.options.flux_json:
            return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
        return str(dump_yaml(doc))

    def report_raw(self, read_back: Callable[[], Any]) -> None:
        """W301 for each portable field that a raw key of `extensions.flux`, written instead
        of it, says something else about (common.report_shadowed), and for the fields only a
        jobspec's raw keys decide (RAW_JOBSPEC)."""
        report_shadowed(self, self.job, "flux", read_back, "a Flux jobspec")
        raw = [key for key in RAW_JOBSPEC if getattr(self.flux, key) is not None]
        if not raw:
            return
        done = {
            d.field for d in self.reporter.diagnostics if d.field and d.code[:2] in ("W2", "W3")
        }
        back = None
        for path, value in set_leaves(self.job):
            for key in raw:
                if not any(related(path, f"spec.{p}") for p in RAW_JOBSPEC[key]):
                    continue
                if any(related(path, f) for f in done):
                    break
                if back is None:
                    back = read_back() or new_job()
                if same_value(value, get_path(back, path)):
                    break
                wire = msgspec.structs.fields(FluxExt)
                name = next(f.encode_name for f in wire if f.name == key)
                self.approximated(
                    path,
                    f"the raw `extensions.flux.{name}` is written instead, and it says "
                    "something else for a Flux jobspec",
                )
                done.add(path)
                break

    # ── the document ─────────────────────────────────────────────────────────────────────

    def jobspec(self) -> dict[str, Any]:
        report_unsupported(self, self.job, CAPABILITIES, "a Flux jobspec")
        report_foreign(self, self.spec, ("flux",))
        for name, values in (self.flux.batch_options or {}).items():
            shown = " ".join(f"--{name}" + (f"={v}" if v else "") for v in values)
            self.lost(
                f"spec.extensions.flux.batch_options.{name}",
                f"`{shown}` is a `flux batch` option that no field carries; a jobspec has no "
                "place for it",
                help=f"submit the jobspec with `flux job submit` and pass `{shown}` to the "
                "command that makes it (`flux batch`, `flux submit`), or convert to `flux-batch`",
            )
        if self.flux.slots_from_command_line:
            marker = "spec.extensions.flux.slots_from_command_line"
            self.approximated(marker, CAPABILITIES.fields[marker].note)
        system = self.system()
        resources, label = self.resources()
        tasks = self.tasks(label, "files" in system and "script" in system["files"])
        attributes: dict[str, Any] = {"system": system} if system else {}
        if self.flux.user_attributes is not None:
            attributes["user"] = self.flux.user_attributes
        if self.options.preserve_block is not None:  # `--preserve` (preserve.py)
            attributes["user"] = {
                **attributes.get("user", {}),
                "bammmc": self.options.preserve_block,
            }
        self.submission_options()
        return {
            "version": self.flux.version or 1,
            "resources": resources,
            "tasks": tasks,
            "attributes": attributes,
        }

    def resources(self) -> tuple[list[dict[str, Any]], str]:
        if self.flux.resource_graph is not None:
            return self.flux.resource_graph, "task"
        r = self.spec.resources
        nodes = r.nodes if r else None
        per_node = r.tasks_per_node if r else None
        if r is not None and nodes is None and r.tasks is None and per_node is not None:
            nodes = 1  # tasks per node alone: that many tasks on the job's one node
        tasks = r.task_count if r is not None else 1
        cores = 1
        if r is not None and r.cpus_per_task is not None:
            cores = math.ceil(r.cpus_per_task.cores)
            if not r.cpus_per_task.whole:
                self.approximated("spec.resources.cpusPerTask", f"rounded up to {cores} cores")
        slots_per_node = per_node or (math.ceil(tasks / nodes) if nodes else tasks)
        gpus: int | None = None
        if r is not None and r.gpu is not None and r.gpu.count is not None:
            count = r.gpu.count
            # Flux puts GPUs in each task's slot (pitfall 20): share a node's or the job's
            share = {"node": slots_per_node, "job": tasks}.get(count.scope or "task", 1)
            gpus = math.ceil(count.amount / share)
            if gpus * share != count.amount or count.scope not in (None, "task"):
                self.approximated(
                    "spec.resources.gpu.count",
                    f"{gpus} GPUs in each task's slot (Flux GPUs are per slot)",
                )
        inner: list[dict[str, Any]] = [{"type": "core", "count": cores}]
        if gpus is not None:
            inner.append({"type": "gpu", "count": gpus})
        if nodes is None:
            if self.spec.placement is not None and self.spec.placement.exclusive:
                self.lost("spec.placement.exclusive", "Flux slots are exclusive; nodes need `-N`")
            if per_node is not None:
                self.lost("spec.resources.tasksPerNode", "the jobspec has no node vertex")
            return [{"type": "slot", "count": tasks, "label": "task", "with": inner}], "task"
        slots = slots_per_node
        node: dict[str, Any] = {
            "type": "node",
            "count": nodes,
            "with": [{"type": "slot", "count": slots, "label": "task", "with": inner}],
        }
        if self.spec.placement is not None and self.spec.placement.exclusive:
            # RFC 25's text allows it, but Flux's V1 schema does not (flux.md §2)
            self.lost(
                "spec.placement.exclusive",
                "Flux's V1 schema has no `exclusive` on the node vertex",
                help="submit with `flux submit --exclusive`",
            )
        self._total = None if slots * nodes == tasks else tasks
        if self._total is not None and per_node is not None:
            self.approximated(
                "spec.resources.tasksPerNode",
                f"{tasks} tasks are not {nodes} nodes × {per_node}: the jobspec runs {tasks} "
                f"tasks in {nodes} × {slots} slots (`count: {{total: {tasks}}}`)",
            )
        return [node], "task"

    def tasks(self, label: str, script: bool) -> list[dict[str, Any]]:
        if self.flux.tasks is not None:
            return self.flux.tasks
        ex = self.spec.execution
        command: list[str]
        if ex is not None and ex.executable:
            command = [
                *self.literal([ex.executable], "spec.execution.executable"),
                *self.literal(self.words(ex.arguments), "spec.execution.arguments"),
            ]
            if ex.shell is not None:
                self.lost(
                    "spec.execution.shell", "the executable runs as a program, not through a shell"
                )
        elif script and ex is not None and ex.script is not None:
            command = list(SCRIPT_COMMAND)
            if not ex.script.startswith("#!"):  # no `#!` line: run it with the shell
                shell = self.literal([ex.shell or "/bin/bash"], "spec.execution.shell")
                command = [*shell, *SCRIPT_COMMAND]
            elif ex.shell is not None and ex.shell not in ex.script.partition("\n")[0]:
                self.approximated(
                    "spec.execution.shell",
                    f"the script runs with its own `#!` line, not `{ex.shell}`",
                )
            # the script's own arguments (`$1`…) follow it, as `flux batch job.sh ARGS` writes
            command += self.literal(self.words(ex.arguments), "spec.execution.arguments")
        elif script:
            command = list(SCRIPT_COMMAND)
        else:
            self.reporter.report(
                "W201",
                "the job runs no program: the jobspec's command is `true`",
                field="spec.execution",
                help="set `execution.executable` or `execution.script`",
            )
            command = ["true"]
        if self.flux.task is not None:
            return [{"command": command, **self.flux.task}]
        total = getattr(self, "_total", None)
        count = {"total": total} if total else {"per_slot": 1}
        return [{"command": command, "slot": label, "count": count}]

    def literal(self, words: list[str], field: str) -> list[str]:
        """``words`` of the command, checked: the job shell renders every command word that
        holds `{{` as a mustache template (flux-core ``src/shell/shell.c`` ``frob_command``),
        so a word it would read a tag in is refused (E140)."""
        for word in words:
            clash = mustache_clash([("text", word)])
            if clash is not None:
                self.mustache(field, clash, "every word of the command")
        return words

    def mustache(self, field: str, clash: str, what: str) -> None:
        report_separator(
            self.reporter,
            field,
            clash,
            "Flux's job shell",
            f"the job shell renders {what} as a mustache template: `{{{{NAME}}}}` is a tag "
            "(`{{id}}`, `{{name}}`, a plugin's own), and Flux has no escape for a literal `{{`",
            help=f"remove {'`{{`' if clash == '{{' else 'the `{` before the template'} from "
            "the value",
        )

    def words(self, arguments: str | None) -> list[str]:
        """`execution.arguments` as the command's words (a shell word list)."""
        try:
            return shlex.split(arguments or "")
        except ValueError as exc:  # an unclosed quote: no argument list says what was meant
            self.reporter.report(
                "E140",
                f"`spec.execution.arguments` cannot be split into words: {exc}",
                field="spec.execution.arguments",
                help="close the quote (the arguments are a shell word list)",
            )
            return []

    def system(self) -> dict[str, Any]:
        s = self.spec
        kept = dict(self.flux.system or {})
        out: dict[str, Any] = {}
        walltime = s.schedule.walltime if s.schedule else None
        if walltime is not None and walltime.seconds is not None:
            raw = kept.get("duration")
            out["duration"] = (
                raw
                if isinstance(raw, float) and math.ceil(raw) == walltime.seconds
                else walltime.seconds
            )
        elif "duration" in kept:
            out["duration"] = kept["duration"]
        elif (self.flux.version or 1) == 1:
            out["duration"] = 0
            if walltime is not None:  # `unlimited`: RFC 25 has no "no limit" besides 0 (unset)
                self.approximated(
                    "spec.schedule.walltime",
                    "`duration: 0` is written: no limit is set, and the instance's default "
                    "limit applies if it has one",
                )
            if self.flux.system is not None:
                self.approximated(
                    "spec.extensions.flux.system",
                    "`duration: 0` (no limit) is added: a V1 jobspec needs a duration",
                )
        kept.pop("duration", None)
        if self.flux.preemptible_after is not None:
            out["preemptible-after"] = self.flux.preemptible_after
        ex = s.execution
        env: dict[str, Any] = {}
        if ex is not None and ex.environment is not None and ex.environment.vars:
            env.update(ex.environment.vars)
        for name in self.flux.env_unset or []:
            env[name] = None
        if env:
            out["environment"] = env
        if ex is not None and ex.working_dir:
            out["cwd"] = ex.working_dir
        sched = s.schedule
        if sched is not None and sched.queue:
            out["queue"] = sched.queue
        bank = self.flux.bank or (sched.account if sched else None)
        if bank:
            out["bank"] = bank
        if sched is not None and sched.project:
            out["project"] = sched.project
        deps = self.dependencies()
        if deps:
            out["dependencies"] = deps
        constraints = self.constraints()
        if constraints is not None:
            out["constraints"] = constraints
        job = dict(kept.pop("job", {}) or {})
        if self.job.metadata is not None and self.job.metadata.name:
            job = {"name": self.job.metadata.name, **job}
        if job or "job" in (self.flux.system or {}):
            out["job"] = job
        shell = dict(kept.pop("shell", {}) or {})
        options = self.shell_options()
        if options is not None:
            shell["options"] = options
        if shell:
            out["shell"] = shell
        files = self.files()
        if files:
            out["files"] = files
        out.update(kept)
        return out

    def dependencies(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for n, dep in enumerate(self.spec.dependencies or []):
            obj = dependency_object(dep)
            if obj is None:
                self.lost(
                    f"spec.dependencies[{n}]",
                    "Flux has no such dependency (an array count, a begin time without a zone)",
                )
                continue
            if dep.scheme == "begin_time" and dep.value and not dep.value.isdigit():
                self.approximated(
                    f"spec.dependencies[{n}].value",
                    f"`{dep.value}` is written as seconds since the epoch (`{obj['value']}`)",
                )
            out.append(obj)
        for i, sym in enumerate(self.flux.symbolic_dependencies or []):
            if sym.scheme not in ("string", "fluid"):
                for path in (f"spec.extensions.flux.symbolic_dependencies[{i}]",) + (
                    ("spec.extensions.flux.system",) if self.flux.system is not None else ()
                ):
                    self.approximated(
                        path,
                        f"Flux knows no `{sym.scheme}` dependency scheme: it is written as it "
                        "is, and read back as a kept `attributes.system.dependencies`",
                    )
            entry: dict[str, Any] = {"scheme": sym.scheme, "value": sym.value}
            if sym.type is not None:
                entry["type"] = sym.type
            if sym.scope is not None:
                entry["scope"] = sym.scope
            out.append(entry)
        return out

    def constraints(self) -> dict[str, Any] | None:
        p = self.spec.placement
        text = p.constraint if p is not None else None
        spec = self.flux.constraints_spec
        if spec is not None and (text is None or constraint_to_splat(spec) in (None, text)):
            return spec
        if not text:
            return None
        try:
            return constraint_from_splat(text)
        except FluxLangError as exc:
            self.lost("spec.placement.constraint", f"`{text}`: {exc}")
            return None

    def shell_options(self) -> dict[str, Any] | None:
        options = dict(self.flux.shell_options or {})
        out = self.spec.output
        if out is None:
            return options if self.flux.shell_options is not None else None
        output = dict(options.get("output") or {})
        stderr = out.stderr
        if out.merge_stderr and stderr is not None:
            self.approximated(
                "spec.output.stderr", "merged into the output file (`mergeStderr`): not written"
            )
            stderr = None
        for stream, template in (("stdout", out.stdout), ("stderr", stderr)):
            if template is None:
                continue
            path = self.path(template, f"spec.output.{stream}")
            if path is not None:
                output[stream] = {"type": "file", "path": path}
        if out.merge_stderr and out.stdout is None:  # a named stderr is not written either
            self.lost("spec.output.mergeStderr", "Flux merges stderr only into a named stdout")
        elif out.merge_stderr is False and out.stderr is None:
            if out.stdout is not None:  # the shell writes stderr with stdout unless told
                output["stderr"] = {"type": "file", "path": "flux-{{id}}.err"}
            self.approximated(
                "spec.output.mergeStderr",
                "stderr stays apart: in flux-{{id}}.err"
                if out.stdout is not None
                else "stdout and stderr stay apart in the job's output log (`flux job attach`)",
            )
        if output:
            options["output"] = output
        return options if options or self.flux.shell_options is not None else None

    def path(self, template: Template, field: str) -> str | None:
        """The output path with the job shell's mustache tags, or None (E140) when its own text
        would read as a tag."""
        extra: dict[str, str] = {}
        for var in template.variables():
            if var == "array_index":
                extra[var] = "cc"
                self.approximated(field, "`{array_index}` is `{{cc}}` (the job's `--cc` id)")
            elif var == "array_job_id":
                extra[var] = "id"
                self.approximated(field, "`{array_job_id}` is each copy's own `{{id}}`")
            elif var == "node_hostname":
                extra[var] = "node.name"
                self.approximated(field, "`{node_hostname}` is `{{node.name}}`: one file per node")
        tags = {**MUSTACHE_BACK, **extra}
        clash = mustache_clash(
            [(k, v) if k == "text" else ("tag", tags.get(v, v)) for k, v in template.parts]
        )
        if clash is not None:
            self.mustache(field, clash, "an output path")
            return None
        return to_mustache(template, extra)

    def files(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, f in (self.flux.embedded_files or {}).items():
            entry: dict[str, Any] = {}
            for key in ("mode", "encoding", "size"):
                value = getattr(f, key)
                if value is not None:
                    entry[key] = value
            entry["data"] = f.data
            out[name] = entry
        ex = self.spec.execution
        if ex is not None and ex.script is not None:
            current = out.get("script")
            if current is None or current.get("data") != ex.script:
                body = rewrite_launchers(self, ex.script, "flux", self.spec)
                block = compatibility_block(
                    body,
                    "flux",
                    self.approximated,
                    self.noted,
                    shell=job_shell(self.spec),
                    spec=self.spec,
                    arrays=False,
                )
                if block:
                    first, nl, rest = body.partition("\n")
                    body = first + nl + block + rest if first.startswith("#!") else block + body
                out["script"] = {"mode": 0o100700, "encoding": "utf-8", "data": body}
        return out

    def submission_options(self) -> None:
        s = self.spec
        sched = s.schedule
        if sched is not None and sched.priority is not None:
            urgency = self.flux.urgency
            if urgency is None:
                urgency = max(0, min(31, to_native(sched.priority, "flux", self.options.band)))
            self.lost(
                "spec.schedule.priority",
                "urgency is not part of a jobspec: it is given at submission",
                help=f"submit with `flux job submit --urgency={urgency}`",
            )
        if self.flux.urgency is not None:
            self.lost(
                "spec.extensions.flux.urgency",
                "urgency is not part of a jobspec: it is given at submission",
                help=f"submit with `flux job submit --urgency={self.flux.urgency}`",
            )
        if sched is not None and sched.hold:
            self.lost(
                "spec.schedule.hold",
                "a jobspec cannot be held",
                help="submit with `--urgency=hold`",
            )
        if sched is not None and sched.begin_after is not None:
            self.lost(
                "spec.schedule.beginAfter",
                "a begin time is given at submission",
                help=f"submit with `flux submit --begin-time='{sched.begin_after.wire()}'`",
            )
        if s.array is not None and s.array.indices is not None:
            indices = s.array.indices
            cc = ",".join(
                f"{a}" if a == b else f"{a}-{b}" if step == 1 else f"{a}-{b}:{step}"
                for a, b, step in indices.ranges
            )
            self.lost(
                "spec.array",
                "a jobspec is one job; Flux copies it at submission with `--cc` (each copy "
                "sees its id as `{{cc}}` and `FLUX_JOB_CC`)",
                help=f"submit with `flux submit --cc={cc}`",
            )
            if s.array.max_concurrent is not None or indices.throttle is not None:
                self.lost("spec.array.maxConcurrent", "`--cc` has no throttle")
        elif s.array is not None and s.array.max_concurrent is not None:
            self.lost(
                "spec.array.maxConcurrent", "a jobspec is one job, and `--cc` has no throttle"
            )


__all__ = ["CAPABILITIES", "FluxWriter", "write"]
