"""Lowering for ``flux``: a checked jobspec tree -> SPLAT IR, with a source map.

The resource graph is always kept as written in ``extensions.flux.resource_graph`` (so that
``flux -> splat -> flux`` is exact) and is also lowered to SPLAT resources when it has a shape
SPLAT can say: ``[node N >] slot S > core C[, gpu G]`` with fixed counts (RFC 25's graphs),
one task per slot or a total. Anything else keeps only the graph, with a W301 saying that the
other targets get no resource request from it.

Tasks: the first task's ``command`` is ``execution.executable`` + ``arguments`` (words joined
with POSIX shell quoting), the rest of the task (``slot``, ``count``…) is kept in
``extensions.flux.task``. ``attributes.system`` (flux.md §1.3): ``duration`` -> walltime (0 =
no limit, kept as written), ``cwd``, ``environment`` (``null`` unsets -> ``env_unset``),
``queue``, ``bank`` -> ``schedule.account``, ``project``, ``job.name`` -> ``metadata.name``,
``shell.options.output.{stdout,stderr}`` file paths -> output templates (``{{id}}`` ->
``{job_id}``), ``dependencies`` (RFC 26) -> ``spec.dependencies`` or
``symbolic_dependencies``, ``constraints`` (RFC 31) -> ``constraints_spec`` and, when it has
one, ``placement.constraint`` (``flux_lang.constraint_to_splat``), ``files``
(RFC 37) -> ``embeddedFiles`` with ``script`` also the job's script; every other key in
``extensions.flux.system``. ``attributes.user`` -> ``user_attributes``, but for a
``--preserve`` block in ``attributes.user.bammmc``, which ``preserve.py`` reads.

Siblings: ``frontends/flux.py``, ``backends/flux.py``.
"""

from __future__ import annotations

import math
import re
import shlex
from typing import Any, Final

import msgspec

from bammmc.diagnostics.model import Reporter, Span
from bammmc.frontends.flux import Jobspec, get, is_int, is_str
from bammmc.frontends.flux_lang import (
    FluxLangError,
    constraint_to_splat,
    from_object,
    from_splat,
    parse_dependency,
    to_object,
    to_splat,
)
from bammmc.frontends.yamlnodes import Node
from bammmc.ir.envvars import strip_compatibility_block
from bammmc.ir.job import API_VERSION, Dependency, Job
from bammmc.ir.sourcemap import SourceMap
from bammmc.ir.values import Count, Cpu, Duration, Template
from bammmc.passes.lower.slurm import _keep_values
from bammmc.preserve import FLUX_KEY, is_attribute

#: mustache tags in output paths -> SPLAT template variables (flux.md §8.2)
MUSTACHE: Final = {
    "id": "job_id",
    "jobid": "job_id",
    "id.f58": "job_id",
    "name": "job_name",
    "task.id": "task_index",
    "task.rank": "task_index",
    "taskid": "task_index",
    # the id `flux submit --cc` gives each copy: the writer's `{array_index}`
    "cc": "array_index",
}
#: SPLAT template variable -> the mustache tag the writer uses
MUSTACHE_BACK: Final = {"job_id": "id", "job_name": "name", "task_index": "task.id"}
_TAG: Final = re.compile(r"\{\{\s*([A-Za-z_.]+)\s*\}\}")
#: the command a script-mode job runs: the embedded file `script`, made executable
SCRIPT_COMMAND: Final = ["{{tmpdir}}/script"]


def lower(spec: Jobspec, reporter: Reporter) -> tuple[Job | None, SourceMap]:
    source_map = SourceMap()
    if spec.root is None:
        return None, source_map
    b = _Lowering(reporter, source_map)
    b.document(spec.root)
    job = msgspec.convert(b.data, Job, dec_hook=_keep_values)
    return job, source_map


def from_mustache(path: str) -> Template | None:
    """An output path with mustache tags as a SPLAT template; None when a tag has no variable.

    >>> from_mustache("flux-{{id}}.out").parts
    (('text', 'flux-'), ('var', 'job_id'), ('text', '.out'))
    >>> from_mustache("{{node.name}}.out") is None
    True
    """
    out: list[str] = []
    at = 0
    for m in _TAG.finditer(path):
        var = MUSTACHE.get(m.group(1))
        if var is None:
            return None
        out.append(path[at : m.start()].replace("{", "{{").replace("}", "}}"))
        out.append("{" + var + "}")
        at = m.end()
    out.append(path[at:].replace("{", "{{").replace("}", "}}"))
    try:
        return Template.parse("".join(out))
    except ValueError:
        return None


def to_mustache(template: Template, extra: dict[str, str] | None = None) -> str:
    """A SPLAT template as a Flux output path (KeyError for a variable Flux has no tag for).

    >>> to_mustache(Template.parse("out-{job_id}.log"))
    'out-{{id}}.log'
    """
    tags = {k: "{{" + v + "}}" for k, v in {**MUSTACHE_BACK, **(extra or {})}.items()}
    return template.render(tags)


def v1_shape(graph: Any) -> tuple[int | None, int, int, int | None, str] | None:
    """``(nodes or None, slots per node, cores per slot, gpus per slot or None, label)`` when
    the graph is ``[node N >] slot S > core C[, gpu G]`` with fixed counts, else None.

    >>> core = {"type": "core", "count": 2}
    >>> v1_shape([{"type": "slot", "count": 4, "label": "t", "with": [core]}])
    (None, 4, 2, None, 't')
    """
    if not isinstance(graph, list) or len(graph) != 1 or not isinstance(graph[0], dict):
        return None
    top = graph[0]
    nodes = None
    if top.get("type") == "node":
        if set(top) - {"type", "count", "with", "exclusive"} or not _fixed(top.get("count")):
            return None
        with_ = top.get("with")
        if not (isinstance(with_, list) and len(with_) == 1 and isinstance(with_[0], dict)):
            return None
        nodes = top["count"]
        top = with_[0]
    if top.get("type") != "slot" or not _fixed(top.get("count")):
        return None
    if set(top) - {"type", "count", "with", "label", "exclusive"}:
        return None
    cores = gpus = None
    for child in top.get("with") or []:
        if not isinstance(child, dict) or set(child) != {"type", "count"}:
            return None
        if child["type"] == "core" and cores is None and _fixed(child["count"]):
            cores = child["count"]
        elif child["type"] == "gpu" and gpus is None and _fixed(child["count"], 0):
            gpus = child["count"]
        else:
            return None
    if cores is None:
        return None
    return nodes, top["count"], cores, gpus, str(top.get("label"))


def _fixed(value: Any, least: int = 1) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


class _Lowering:
    def __init__(self, reporter: Reporter, source_map: SourceMap) -> None:
        self.r = reporter
        self.source_map = source_map
        self.data: dict[str, Any] = {"apiVersion": API_VERSION, "kind": "Job"}
        self.system: dict[str, Any] = {}

    def set(self, path: str, value: Any, node: Node | None, key: Span | None = None) -> None:
        at: Any = self.data
        parts = path.split(".")
        for part in parts[:-1]:
            at = at.setdefault(part, {})
        at[parts[-1]] = value
        if node is not None:
            self.source_map.add(path, key or node.span, node.span)

    def ext(self, name: str, value: Any, node: Node | None, key: Span | None = None) -> None:
        self.set(f"spec.extensions.flux.{name}", value, node, key)

    def keep(self, name: str, value: Node) -> None:
        """An `attributes.system` key kept as written."""
        self.system[name] = value.plain()
        self.source_map.add(f"spec.extensions.flux.system.{name}", value.span, value.span)

    # ── the document ─────────────────────────────────────────────────────────────────────

    def document(self, root: Node) -> None:
        version = get(root, "version")
        if version is not None and version.value != 1:
            self.ext("version", version.value, version)
        resources = get(root, "resources")
        assert resources is not None
        graph = resources.plain()
        self.ext("resource_graph", graph, resources)
        tasks = get(root, "tasks")
        assert tasks is not None
        attributes = get(root, "attributes")
        system = get(attributes, "system") if attributes is not None else None
        script = self.files(system)
        self.tasks(tasks, script)
        self.resources(graph, resources, tasks)
        if system is not None:
            for k, v in system.items:
                self.attribute(str(k.value), k, v)
        if self.system:
            self.data.setdefault("spec", {}).setdefault("extensions", {}).setdefault("flux", {})[
                "system"
            ] = self.system
        user = get(attributes, "user") if attributes is not None else None
        if user is not None:
            plain = user.plain()
            if isinstance(plain, dict) and is_attribute(plain.get(FLUX_KEY)):
                del plain[FLUX_KEY]  # a `--preserve` block: pipeline.compile_text restores it
                plain = plain or None
            if plain is not None:
                self.ext("user_attributes", plain, user)

    # ── resources and tasks ──────────────────────────────────────────────────────────────

    def resources(self, graph: Any, node: Node, tasks: Node) -> None:
        shape = v1_shape(graph)
        task = tasks.children[0].plain() if len(tasks.children) == 1 else None
        count = task.get("count") if isinstance(task, dict) else None
        if shape is None or not isinstance(count, dict):
            self.r.report(
                "W301",
                "the resource graph has no SPLAT shape (`[node >] slot > core[, gpu]` with "
                "fixed counts and one task): other targets get no resource request from it",
                node.span,
                field="spec.extensions.flux.resource_graph",
                notes=("the graph is kept in `extensions.flux.resource_graph` for Flux",),
                help="write the resources as a node or slot holding cores (and GPUs)",
            )
            return
        nodes, slots, cores, gpus, _label = shape
        total_slots = slots * (nodes or 1)
        if count.get("per_slot") == 1:
            ntasks = total_slots
        elif "total" in count:
            ntasks = count["total"]
            if ntasks != total_slots:
                self.r.report(
                    "W301",
                    f"{ntasks} tasks in {total_slots} slots: SPLAT says {ntasks} tasks of "
                    f"{cores} CPUs each; the slots are kept in the resource graph",
                    tasks.children[0].span,
                    field="spec.resources.tasks",
                    help="give one task per slot (`per_slot: 1`) for an exact shape",
                )
        else:
            self.r.report(
                "W301",
                "a task count other than one per slot or a total has no SPLAT form",
                tasks.children[0].span,
                field="spec.resources",
                help="write `count: {per_slot: 1}`",
            )
            return
        self.set("spec.resources.tasks", ntasks, node)
        self.set("spec.resources.cpusPerTask", Cpu.parse(cores), node)
        if gpus is not None:
            self.set("spec.resources.gpu.count", Count.parse(gpus), node)
        if nodes is not None:
            self.set("spec.resources.nodes", nodes, node)
            if count.get("per_slot") == 1:
                self.set("spec.resources.tasksPerNode", slots, node)
            if graph[0].get("exclusive") is True:
                self.set("spec.placement.exclusive", True, node)

    def tasks(self, tasks: Node, script: str | None) -> None:
        first = tasks.children[0]
        command = get(first, "command")
        assert command is not None
        words = [str(w.value) for w in command.children]
        n = len(SCRIPT_COMMAND)
        # the script's own arguments follow it (`flux batch job.sh ARGS`)
        if script is not None and words[:n] == SCRIPT_COMMAND:
            self.set("spec.execution.script", without_block(script), command)
            if len(words) > n:
                self.set("spec.execution.arguments", shlex.join(words[n:]), command)
        elif (
            script is not None
            and words[1 : n + 1] == SCRIPT_COMMAND
            and not script.startswith("#!")
        ):
            self.set("spec.execution.shell", words[0], command.children[0])
            self.set("spec.execution.script", without_block(script), command)
            if len(words) > n + 1:
                self.set("spec.execution.arguments", shlex.join(words[n + 1 :]), command)
        else:
            self.set("spec.execution.executable", words[0], command.children[0])
            if len(words) > 1:
                self.set("spec.execution.arguments", shlex.join(words[1:]), command)
        if len(tasks.children) > 1:
            self.ext("tasks", tasks.plain(), tasks)
            self.r.report(
                "W301",
                f"{len(tasks.children)} tasks: SPLAT runs the first task's command; the "
                "others are kept in `extensions.flux.tasks` for Flux",
                tasks.children[1].span,
                field="spec.extensions.flux.tasks",
                help="a SPLAT job runs one command",
            )
            return
        rest = {k.value: v.plain() for k, v in first.items if k.value != "command"}
        self.ext("task", rest, first)

    # ── attributes.system ────────────────────────────────────────────────────────────────

    def attribute(self, name: str, key: Node, value: Node) -> None:
        k = key.span
        if name == "duration":
            seconds = value.value
            if seconds == 0 or math.isinf(seconds):
                self.keep(name, value)
            else:
                whole = math.ceil(seconds)
                self.set("spec.schedule.walltime", Duration.from_seconds(whole), value, k)
                if whole != seconds:
                    self.keep(name, value)
                    self.r.report(
                        "W301",
                        f"a duration of {seconds} s is {whole} s in SPLAT (whole seconds)",
                        value.span,
                        field="spec.schedule.walltime",
                        help="write a whole number of seconds",
                    )
        elif name == "preemptible-after":
            self.ext("preemptible_after", float(value.value), value, k)
        elif name == "cwd":
            self.set("spec.execution.workingDir", value.value, value, k)
        elif name == "queue":
            self.set("spec.schedule.queue", value.value, value, k)
        elif name == "bank":
            self.set("spec.schedule.account", value.value, value, k)
        elif name == "project":
            self.set("spec.schedule.project", value.value, value, k)
        elif name == "environment":
            self.environment(value, k)
        elif name == "job":
            self.job(value, k)
        elif name == "shell":
            self.shell(value, k)
        elif name == "dependencies":
            self.dependencies(value, k)
        elif name == "constraints":
            plain = value.plain()
            self.ext("constraints_spec", plain, value, k)
            text = constraint_to_splat(plain)
            if text is not None:
                self.set("spec.placement.constraint", text, value, k)
        elif name == "files":
            pass  # read by files() first: the script decides how the command reads
        else:
            self.keep(name, value)

    def environment(self, value: Node, key: Span) -> None:
        env: dict[str, str] = {}
        unset: list[str] = []
        for k, v in value.items:
            if v.value is None and v.style is None:
                unset.append(str(k.value))
            elif isinstance(v.value, str):
                env[str(k.value)] = v.value
            else:
                self.keep("environment", value)
                return
        if env:
            self.set("spec.execution.environment.vars", env, value, key)
        if unset:
            self.ext("env_unset", unset, value, key)
        if not env and not unset:
            self.keep("environment", value)

    def job(self, value: Node, key: Span) -> None:
        rest = {}
        for k, v in value.items:
            if k.value == "name" and is_str(v):
                self.set("metadata.name", v.value, v, k.span)
            else:
                rest[k.value] = v.plain()
        if rest or not value.items:
            self.system["job"] = rest
            self.source_map.add("spec.extensions.flux.system.job", key, value.span)

    def shell(self, value: Node, key: Span) -> None:
        rest = {k.value: v.plain() for k, v in value.items if k.value != "options"}
        options = get(value, "options")
        if options is not None:
            plain = options.plain()
            output = plain.get("output")
            if isinstance(output, dict):
                if isinstance(output.get("stdout"), dict) and "stderr" not in output:
                    # the shell writes stderr where stdout goes unless `stderr` says otherwise
                    self.set("spec.output.mergeStderr", True, options, key)
                for stream in ("stdout", "stderr"):
                    spec = output.get(stream)
                    if not (
                        isinstance(spec, dict)
                        and set(spec) == {"type", "path"}
                        and spec["type"] == "file"
                        and isinstance(spec["path"], str)
                    ):
                        continue
                    template = from_mustache(spec["path"])
                    if template is None:
                        continue
                    self.set(f"spec.output.{stream}", template, options, key)
                    del output[stream]
                if not output:
                    del plain["output"]
            if plain or not options.items:
                self.ext("shell_options", plain, options, key)
        if rest:
            self.system["shell"] = rest
            self.source_map.add("spec.extensions.flux.system.shell", key, value.span)

    def dependencies(self, value: Node, key: Span) -> None:
        """RFC 26 objects -> SPLAT dependencies (flux_lang.to_splat), `string`/`fluid` ones
        -> `symbolic_dependencies`; kept as written when the writer would not give them back
        exactly (an `after`, options, an order the two lists cannot keep)."""
        portable: list[Dependency] = []
        symbolic: list[dict[str, Any]] = []
        plain = value.plain()
        for obj in plain:
            try:
                dep = from_object(obj)
            except FluxLangError:
                self.keep("dependencies", value)
                return
            splat = to_splat(dep)
            if splat is not None:
                portable.append(splat)
            elif dep.scheme in ("string", "fluid") and set(obj) <= {
                "scheme",
                "value",
                "type",
                "scope",
            }:
                symbolic.append(obj)
            else:
                self.keep("dependencies", value)
                return
        if [dependency_object(d) for d in portable] + symbolic != plain:
            self.keep("dependencies", value)
            return
        if portable:
            wire = [msgspec.to_builtins(d) for d in portable]
            self.set("spec.dependencies", wire, value, key)
        if symbolic:
            self.ext("symbolic_dependencies", symbolic, value, key)

    def files(self, system: Node | None) -> str | None:
        """RFC 37 `files`: embedded files. The text of the file `script` (the job's script
        when the command runs it)."""
        files = get(system, "files") if system is not None else None
        if files is None:
            return None
        plain = files.plain()
        entries: dict[str, Any] = {}
        if isinstance(plain, dict):
            entries = plain
        ok = bool(entries) and all(
            isinstance(e, dict)
            and isinstance(e.get("data"), str)
            and set(e) <= {"data", "encoding", "size", "mode"}
            and e.get("encoding") in (None, "utf-8", "base64")
            and (e.get("mode") is None or is_nonneg(e.get("mode")))
            and (e.get("size") is None or is_nonneg(e.get("size")))
            for e in entries.values()
        )
        if not ok:
            self.keep("files", files)
            return None
        self.ext("embeddedFiles", entries, files, key_of(system, "files"))
        script = entries.get("script")
        if script is not None and script.get("encoding") in (None, "utf-8"):
            return str(script["data"])
        return None


def dependency_object(dep: Dependency) -> dict[str, Any] | None:
    """The jobspec object of a SPLAT dependency (None when Flux has none).

    >>> dependency_object(Dependency(scheme="after", value="f123"))
    {'scheme': 'afterstart', 'value': 'f123'}
    """
    uri = from_splat(dep)
    return None if uri is None else to_object(parse_dependency(uri))


def without_block(script: str) -> str:
    """The script without the variables block a bammmc writer put after its `#!` line."""
    if script.startswith("#!"):
        first, nl, rest = script.partition("\n")
        return first + nl + strip_compatibility_block(rest)
    return strip_compatibility_block(script)


def is_nonneg(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def key_of(node: Node | None, name: str) -> Span | None:
    if node is None:
        return None
    for k, _ in node.items:
        if k.value == name:
            return k.span
    return None


__all__ = ["SCRIPT_COMMAND", "from_mustache", "is_int", "lower", "to_mustache", "v1_shape"]
