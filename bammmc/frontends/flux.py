"""The Flux jobspec reader's front half (format ``flux``): YAML or JSON jobspec -> checked tree.

A jobspec (shared/docs/formats/flux.md §1, §2) is one YAML or JSON document; JSON is read as
YAML (a subset), by our own composer (``frontends/yamlnodes.py``), so every key and value keeps
its line and column. :func:`scan` checks the document against the canonical jobspec (RFC 14:
the rules of Flux's schema and the ones flux-core's validator adds, oracle README rules 1-7),
each error at the value it is about; a ``version: 1`` jobspec is also checked against the V1
shape (RFC 25, rules 8-10), whose violations are W430 (flux-core's job-ingest would refuse it,
other Flux readers would not). Siblings: ``passes/lower/flux.py`` (tree -> IR),
``backends/flux.py`` (IR -> jobspec).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Final

from bammmc.diagnostics.model import Reporter, Span
from bammmc.diagnostics.suggest import did_you_mean
from bammmc.frontends.yamlnodes import MAX_DEPTH, Node, compose
from bammmc.ir.decode import MAX_NODES
from bammmc.ir.values import MAX_WHOLE

TOP_KEYS: Final = ("version", "resources", "tasks", "attributes")
VERTEX_KEYS: Final = ("type", "count", "unit", "exclusive", "with", "label", "id")
RANGE_KEYS: Final = ("min", "max", "operator", "operand")
TASK_KEYS: Final = ("command", "slot", "count", "attributes", "distribution")
COUNT_KEYS: Final = ("per_slot", "per_resource", "total")
CONSTRAINT_OPERATORS: Final = ("properties", "hostlist", "ranks", "and", "or", "not")
#: RFC 14's reserved system attributes (and the ones flux-core itself writes); others warn
SYSTEM_KEYS: Final = (
    "duration",
    "preemptible-after",
    "environment",
    "cwd",
    "queue",
    "bank",
    "project",
    "dependencies",
    "constraints",
    "job",
    "shell",
    "files",
    "batch",
    "exec",
    "alloc-bypass",
)
#: RFC 45 range strings and RFC 22 idsets, the two string forms of a count (RFC 14 schema)
RANGE_STRING: Final = re.compile(
    r"^(?=\[.*]$|[^][]*$)\[?[1-9]\d*(\+|-[1-9]\d*)?(:[1-9]\d*(:[+*^])?)?]?$"
)
IDSET: Final = re.compile(r"(?=^\[.*]$|^[^][]*$)((^\[?|,)[1-9]\d*(-[1-9]\d*)?)*]?$")
#: characters flux-core refuses in a `properties` constraint
_BAD_PROPERTY: Final = re.compile(r"[&'\"`|()\\]")


@dataclass
class Jobspec:
    """A read jobspec: its located tree (``None`` when unreadable) and what the checks found."""

    root: Node | None
    #: true when the document was written as JSON (`{` first)
    json: bool = False
    #: V1 shape violations and where (each reported as W430)
    not_v1: list[tuple[str, Span]] = field(default_factory=list)


def sniff(text: str) -> bool:
    """Does the text look like a jobspec? (top-level `version`, `resources` and `tasks` keys)

    >>> sniff('{"version": 1, "resources": [], "tasks": []}')
    True
    >>> sniff("version: 1\\nresources: []\\ntasks: []\\nattributes: {}\\n"), sniff("#!/bin/sh\\n")
    (True, False)
    """
    head = text[:65536]
    return all(
        re.search(rf'(?m)^\s*"?{k}"?\s*:', head) or re.search(rf'[{{,]\s*"{k}"\s*:', head)
        for k in ("version", "resources", "tasks")
    ) and not re.search(r"(?m)^\s*\"?apiVersion\"?\s*:", head)


def scan(text: str, reporter: Reporter) -> Jobspec:
    docs = compose(text, reporter)
    if reporter.has_errors:
        return Jobspec(None)
    docs = [d for d in docs if not (d.kind == "scalar" and d.value is None and d.style is None)]
    if not docs:
        reporter.report("E001", "the input holds no jobspec", help="give a Flux jobspec")
        return Jobspec(None)
    if not _within_budget(docs[0], reporter):
        return Jobspec(None)
    spec = Jobspec(docs[0], json=text.lstrip().startswith("{"))
    before = sum(d.is_error for d in reporter.diagnostics)
    _Checker(reporter, spec).document(docs[0])
    if sum(d.is_error for d in reporter.diagnostics) > before:
        spec.root = None
    else:
        for message, span in dict.fromkeys(spec.not_v1):
            reporter.report(
                "W430",
                f"not a V1 jobspec: {message}",
                span,
                notes=("flux-core's job-ingest accepts only V1 jobspecs (RFC 25)",),
                help="V1 is one node or slot on top, slot > core[,gpu], fixed counts, one "
                "task counted per slot or in total, and a duration",
            )
    return spec


def _within_budget(root: Node, reporter: Reporter, max_nodes: int = MAX_NODES) -> bool:
    """Does the tree, its aliases expanded, stay within ``max_nodes``? (E006 at the alias that
    goes over: an alias bomb, or an alias inside itself, never reaches the checks)"""
    stack = [(root, 1)]
    seen = 0
    while stack:
        node, depth = stack.pop()
        seen += 1
        if seen > max_nodes or depth > MAX_DEPTH:
            reporter.report(
                "E006",
                f"the jobspec expands to more than {max_nodes:,} values or {MAX_DEPTH} levels",
                node.span,
                label="its aliases expand past the limit here",
                notes=("an alias inside its own anchor never ends",),
                help="write the values out plainly instead of nesting aliases",
            )
            return False
        stack.extend((v, depth + 1) for _, v in node.items)
        stack.extend((c, depth + 1) for c in node.children)
    return True


def get(node: Node, key: str) -> Node | None:
    """The value of ``key`` in a mapping node (``None`` when absent or not a mapping)."""
    if node.kind != "map":
        return None
    for k, v in node.items:
        if k.kind == "scalar" and k.value == key:
            return v
    return None


def key_span(node: Node, key: str) -> Span | None:
    for k, _ in node.items:
        if k.kind == "scalar" and k.value == key:
            return k.span
    return None


def is_int(node: Node | None) -> bool:
    return (
        node is not None
        and node.kind == "scalar"
        and isinstance(node.value, int)
        and not isinstance(node.value, bool)
    )


def is_str(node: Node | None) -> bool:
    return node is not None and node.kind == "scalar" and isinstance(node.value, str)


def is_number(node: Node | None) -> bool:
    return (
        node is not None
        and node.kind == "scalar"
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    )


def count_value(node: Node) -> int | None:
    """A fixed count (an integer, or a one-number idset string), else None."""
    if is_int(node):
        return int(node.value)
    return None


class _Checker:
    def __init__(self, reporter: Reporter, spec: Jobspec) -> None:
        self.r = reporter
        self.spec = spec
        self.labels: dict[str, Node] = {}

    # ── reporting helpers ────────────────────────────────────────────────────────────────

    def err(self, code: str, message: str, node: Node | Span | None, help: str) -> None:
        span = node.span if isinstance(node, Node) else node
        self.r.report(code, message, span, help=help)

    def wrong(self, node: Node, where: str, want: str) -> None:
        self.err("E102", f"`{where}` must be {want}, not {node.type_name}", node, f"write {want}")

    def keys(self, node: Node, allowed: tuple[str, ...], where: str) -> None:
        for k, _ in node.items:
            name = k.value if k.kind == "scalar" else k.text
            if name not in allowed:
                self.err(
                    "E101",
                    f"unknown key `{name}` in {where}",
                    k,
                    did_you_mean(str(name), allowed)
                    or "allowed keys: " + ", ".join(f"`{a}`" for a in allowed),
                )

    def required(self, node: Node, names: tuple[str, ...], where: str) -> bool:
        ok = True
        for name in names:
            if get(node, name) is None:
                self.err("E103", f"{where} has no `{name}`", node, f"add `{name}`")
                ok = False
        return ok

    def v1(self, message: str, where: Node | Span) -> None:
        span = where.span if isinstance(where, Node) else where
        self.spec.not_v1.append((message, span))

    # ── the document ─────────────────────────────────────────────────────────────────────

    def document(self, root: Node) -> None:
        if root.kind != "map":
            self.wrong(root, "the jobspec", "a mapping")
            return
        self.keys(root, TOP_KEYS, "the jobspec")
        self.required(root, TOP_KEYS, "the jobspec")
        version = get(root, "version")
        if version is not None:
            if not is_int(version):
                self.wrong(version, "version", "an integer")
            elif version.value < 1:
                self.err("E118", "`version` must be 1 or more", version, "write `version: 1`")
        resources = get(root, "resources")
        if resources is not None:
            if resources.kind != "seq":
                self.wrong(resources, "resources", "a list of resource vertices")
            elif not resources.children:
                self.err("E103", "`resources` is empty", resources, "request at least a slot")
            else:
                for child in resources.children:
                    self.vertex(child, in_slot=False)
        tasks = get(root, "tasks")
        if tasks is not None:
            if tasks.kind != "seq":
                self.wrong(tasks, "tasks", "a list of tasks")
            elif not tasks.children:
                self.err("E103", "`tasks` is empty", tasks, "give one task")
            else:
                for task in tasks.children:
                    self.task(task)
        attributes = get(root, "attributes")
        if attributes is not None:
            self.attributes(attributes)
        if tasks is not None and tasks.kind == "seq":
            for task in tasks.children:
                slot = get(task, "slot")
                if is_str(slot) and slot is not None and slot.value not in self.labels:
                    self.r.report(
                        "W432",
                        f"the task's slot `{slot.value}` is no vertex's label",
                        slot.span,
                        notes=(
                            "Flux's validators do not check it; the scheduler cannot "
                            "place the task",
                        ),
                        help=did_you_mean(slot.value, self.labels)
                        or "labels: " + ", ".join(f"`{n}`" for n in self.labels),
                    )
        if is_int(version) and version is not None:
            if version.value == 1:
                self.v1_shape(root)
            else:
                self.v1(f"`version: {version.value}`: V1 is `version: 1`", version)

    # ── resources ────────────────────────────────────────────────────────────────────────

    def vertex(self, node: Node, in_slot: bool) -> None:
        if node.kind != "map":
            self.wrong(node, "a resource vertex", "a mapping")
            return
        self.keys(node, VERTEX_KEYS, "a resource vertex")
        self.required(node, ("type", "count"), "the resource vertex")
        typ = get(node, "type")
        if typ is not None and not is_str(typ):
            self.wrong(typ, "type", "a string")
        kind = typ.value if is_str(typ) and typ is not None else None
        count = get(node, "count")
        if count is not None:
            self.count(count, kind)
        for name in ("unit", "label", "id"):
            value = get(node, name)
            if value is not None and not is_str(value):
                self.wrong(value, name, "a string")
        exclusive = get(node, "exclusive")
        if exclusive is not None and not (
            exclusive.kind == "scalar" and isinstance(exclusive.value, bool)
        ):
            self.wrong(exclusive, "exclusive", "`true` or `false`")
        label = get(node, "label")
        if kind == "slot":
            if label is None:
                self.err(
                    "E103",
                    "a `slot` vertex has no `label`",
                    node,
                    "add `label: task` (tasks name their slot by its label)",
                )
            if get(node, "with") is None:
                self.err("E103", "a `slot` vertex has no `with`", node, "say what a slot holds")
        if is_str(label) and label is not None:
            other = self.labels.get(label.value)
            if other is not None:
                self.err(
                    "E155",
                    f"the label `{label.value}` is used twice",
                    label,
                    f"labels are unique in a jobspec (the first is at line {other.span.line})",
                )
            else:
                self.labels[label.value] = label
        children = get(node, "with")
        if children is not None:
            if children.kind != "seq":
                self.wrong(children, "with", "a list of resource vertices")
            elif not children.children:
                self.err("E103", "`with` is empty", children, "list the vertices inside")
            else:
                for child in children.children:
                    self.vertex(child, in_slot or kind == "slot")

    def count(self, node: Node, kind: str | None) -> None:
        if node.kind == "map":
            self.range(node)
        elif is_int(node):
            least = 1 if kind in ("node", "slot", "core") or kind is None else 0
            if node.value < least:
                self.err(
                    "E118",
                    f"a `{kind}` count must be {least} or more, not {node.value}",
                    node,
                    f"write a count of at least {least}",
                )
        elif is_str(node):
            if not (RANGE_STRING.match(node.value) or IDSET.match(node.value)):
                self.err(
                    "E105",
                    f"`{node.value}` is neither an idset nor a range",
                    node,
                    "write a number (`4`), an idset (`4,9,16`) or a range "
                    "(`2-32:2:*`, `2+`: min[-max][:operand[:operator]])",
                )
        else:
            self.wrong(node, "count", "a positive integer, a range string or a range mapping")

    def range(self, node: Node) -> None:
        self.keys(node, RANGE_KEYS, "a count range")
        values: dict[str, int] = {}
        for name in ("min", "max", "operand"):
            value = get(node, name)
            if value is None:
                continue
            if not is_int(value):
                self.wrong(value, name, "an integer")
            elif value.value < 1:
                self.err("E118", f"`{name}` must be 1 or more", value, f"write `{name}: 1` or more")
            else:
                values[name] = value.value
        if get(node, "min") is None:
            self.err("E103", "the count range has no `min`", node, "add `min`")
        operator = get(node, "operator")
        op = None
        if operator is not None:
            if not is_str(operator) or operator.value not in ("+", "*", "^"):
                self.err(
                    "E104",
                    f"`operator` must be `+`, `*` or `^`, not {operator.type_name}",
                    operator,
                    'write `operator: "+"` (add), `"*"` (multiply) or `"^"` (power)',
                )
            else:
                op = operator.value
        operand = get(node, "operand")
        if (operator is None) != (operand is None):
            missing = "operand" if operand is None else "operator"
            self.err(
                "E103",
                f"the count range has `{'operator' if operand is None else 'operand'}` but no "
                f"`{missing}`",
                node,
                "give `operator` and `operand` together, or neither",
            )
        if "max" in values and "min" in values and values["max"] < values["min"]:
            maximum = get(node, "max")
            self.err("E118", "`max` is less than `min`", maximum, "make `max` at least `min`")
        if op in ("*", "^") and "operand" in values and values["operand"] < 2:
            self.err(
                "E118",
                f"with operator `{op}` the operand must be 2 or more",
                operand,
                "an operand of 1 would never grow the count",
            )
        if op == "^" and "min" in values and values["min"] < 2:
            self.err(
                "E118",
                "with operator `^` the `min` must be 2 or more",
                get(node, "min"),
                "1 to any power stays 1",
            )

    # ── tasks ────────────────────────────────────────────────────────────────────────────

    def task(self, node: Node) -> None:
        if node.kind != "map":
            self.wrong(node, "a task", "a mapping")
            return
        self.keys(node, TASK_KEYS, "a task")
        self.required(node, ("command", "slot", "count"), "the task")
        command = get(node, "command")
        if command is not None:
            if command.kind != "seq":
                self.wrong(command, "command", "a list of strings (program and arguments)")
            elif not command.children:
                self.err("E103", "`command` is empty", command, "name the program to run")
            else:
                for word in command.children:
                    if not is_str(word):
                        self.wrong(word, "a command word", "a string")
        slot = get(node, "slot")
        if slot is not None and not is_str(slot):
            self.wrong(slot, "slot", "a string (a slot's label)")
        count = get(node, "count")
        if count is not None:
            self.task_count(count)
        attributes = get(node, "attributes")
        if attributes is not None and attributes.kind != "map":
            self.wrong(attributes, "attributes", "a mapping")
        distribution = get(node, "distribution")
        if distribution is not None and not is_str(distribution):
            self.wrong(distribution, "distribution", "a string")

    def task_count(self, node: Node) -> None:
        if node.kind != "map":
            self.wrong(node, "count", "a mapping with `per_slot`, `per_resource` or `total`")
            return
        self.keys(node, COUNT_KEYS, "a task count")
        given = [k for k in COUNT_KEYS if get(node, k) is not None]
        if len(given) != 1:
            self.err(
                "E156",
                "a task count needs exactly one of `per_slot`, `per_resource`, `total`"
                + (f" (it has {', '.join(f'`{g}`' for g in given)})" if given else ""),
                node,
                "keep one: `per_slot: 1` runs a task in every slot",
            )
        for name in ("per_slot", "total"):
            value = get(node, name)
            if value is None:
                continue
            if not is_int(value):
                self.wrong(value, name, "an integer")
            elif value.value < 1:
                self.err("E118", f"`{name}` must be 1 or more", value, f"write `{name}: 1`")
        per_resource = get(node, "per_resource")
        if per_resource is not None:
            if per_resource.kind != "map":
                self.wrong(per_resource, "per_resource", "a mapping `{type, count}`")
            else:
                self.keys(per_resource, ("type", "count"), "per_resource")
                self.required(per_resource, ("type", "count"), "per_resource")
                typ = get(per_resource, "type")
                if typ is not None and not is_str(typ):
                    self.wrong(typ, "type", "a string")
                cnt = get(per_resource, "count")
                if cnt is not None and not (is_int(cnt) and cnt.value >= 1):
                    self.wrong(cnt, "count", "an integer of 1 or more")

    # ── attributes ───────────────────────────────────────────────────────────────────────

    def attributes(self, node: Node) -> None:
        if node.kind != "map":
            self.wrong(node, "attributes", "a mapping with `system` and `user`")
            return
        self.keys(node, ("system", "user"), "`attributes`")
        user = get(node, "user")
        if user is not None and user.kind != "map":
            self.wrong(user, "attributes.user", "a mapping")
        system = get(node, "system")
        if system is None:
            return
        if system.kind != "map":
            self.wrong(system, "attributes.system", "a mapping")
            return
        for k, v in system.items:
            name = k.value if k.kind == "scalar" else k.text
            self.system(str(name), k, v)

    def system(self, name: str, key: Node, value: Node) -> None:
        where = f"attributes.system.{name}"
        if name in ("duration", "preemptible-after"):
            if not is_number(value):
                self.wrong(value, where, "a number of seconds")
            elif value.value < 0:
                self.err("E118", f"`{where}` is negative", value, "write 0 or more seconds")
            elif name == "duration" and value.value != math.inf and value.value > MAX_WHOLE:
                self.err(
                    "E106",
                    f"`{where}` is longer than any scheduler holds",
                    value,
                    f"write at most {MAX_WHOLE} seconds, or 0 for no limit",
                )
        elif name in ("cwd", "queue", "bank", "project"):
            if not is_str(value):
                self.wrong(value, where, "a string")
        elif name == "environment":
            if value.kind != "map":
                self.wrong(value, where, "a mapping of names to values")
            else:
                for _, v in value.items:
                    if v.kind != "scalar":
                        self.wrong(v, "an environment value", "a string (or null to unset)")
        elif name == "dependencies":
            self.dependencies(value, where)
        elif name == "constraints":
            if value.kind != "map":
                self.wrong(value, where, "an RFC 31 constraint mapping")
            else:
                self.constraint(value)
        elif name in ("job", "shell"):
            if value.kind != "map":
                self.wrong(value, where, "a mapping")
            elif name == "shell":
                options = get(value, "options")
                if options is not None and options.kind != "map":
                    self.wrong(options, f"{where}.options", "a mapping")
        elif name == "files":
            if value.kind not in ("map", "seq"):
                self.wrong(value, where, "an RFC 37 file archive (a mapping or a list)")
        elif name not in SYSTEM_KEYS:
            self.r.report(
                "W431",
                f"`{where}` is not a system attribute Flux defines",
                key.span,
                notes=("RFC 14: unknown system attributes only produce a warning",),
                help=did_you_mean(name, SYSTEM_KEYS)
                or "user-defined attributes belong under `attributes.user`",
            )

    def dependencies(self, value: Node, where: str) -> None:
        if value.kind != "seq":
            self.wrong(value, where, "a list of `{scheme, value}` mappings")
            return
        for dep in value.children:
            if dep.kind != "map":
                self.wrong(dep, "a dependency", "a mapping `{scheme, value}`")
                continue
            self.required(dep, ("scheme", "value"), "the dependency")
            for name in ("scheme", "value"):
                v = get(dep, name)
                if v is not None and not is_str(v):
                    self.wrong(v, f"dependency {name}", "a string")

    def constraint(self, node: Node) -> None:
        for k, v in node.items:
            op = k.value if k.kind == "scalar" else k.text
            if op not in CONSTRAINT_OPERATORS:
                self.err(
                    "E104",
                    f"unknown constraint operator `{op}`",
                    k,
                    did_you_mean(str(op), CONSTRAINT_OPERATORS)
                    or "operators: " + ", ".join(f"`{o}`" for o in CONSTRAINT_OPERATORS),
                )
                continue
            if v.kind != "seq":
                self.wrong(v, f"constraint `{op}`", "a list")
                continue
            for item in v.children:
                if op in ("and", "or", "not"):
                    if item.kind != "map":
                        self.wrong(item, f"an `{op}` operand", "a constraint mapping")
                    else:
                        self.constraint(item)
                elif not is_str(item):
                    self.wrong(item, f"a `{op}` value", "a string")
                elif op == "properties" and _BAD_PROPERTY.search(item.value.lstrip("^")):
                    self.err(
                        "E104",
                        f"the property `{item.value}` holds a character Flux refuses",
                        item,
                        "property names may not contain & ' \" ` | ( ) or \\",
                    )
            if op == "not" and len(v.children) > 1:
                self.err("E118", "`not` takes one constraint", v, "wrap several in `and`")

    # ── V1 (RFC 25 and flux-core's validator) ────────────────────────────────────────────

    def v1_shape(self, root: Node) -> None:
        resources = get(root, "resources")
        if resources is not None and resources.kind == "seq":
            if len(resources.children) != 1:
                self.v1(
                    "V1 has exactly one top-level resource vertex",
                    resources.children[1] if resources.children else resources,
                )
            elif resources.children[0].kind == "map":
                top = resources.children[0]
                typ = get(top, "type")
                if is_str(typ) and typ is not None and typ.value == "node":
                    self.v1_keys(top, ("type", "count", "with", "unit"), "a V1 node vertex")
                    self.v1_count(top, "node", 1)
                    children = get(top, "with")
                    if not (
                        children is not None
                        and children.kind == "seq"
                        and len(children.children) == 1
                        and getattr(get(children.children[0], "type"), "value", None) == "slot"
                    ):
                        self.v1("a V1 node holds exactly one slot", children or top)
                    else:
                        self.v1_slot(children.children[0])
                elif is_str(typ) and typ is not None and typ.value == "slot":
                    self.v1_slot(top)
                else:
                    self.v1("the V1 top-level vertex is a node or a slot", typ or top)
        tasks = get(root, "tasks")
        if tasks is not None and tasks.kind == "seq":
            if len(tasks.children) != 1:
                self.v1("V1 has exactly one task", tasks.children[1] if tasks.children else tasks)
            elif tasks.children[0].kind == "map":
                task = tasks.children[0]
                self.v1_keys(task, ("command", "slot", "count"), "a V1 task")
                count = get(task, "count")
                per_resource = get(count, "per_resource") if count is not None else None
                if count is not None and per_resource is not None:
                    self.v1(
                        "V1 task counts are `per_slot` or `total` (no `per_resource`)",
                        key_span(count, "per_resource") or per_resource.span,
                    )
        attributes = get(root, "attributes")
        if attributes is not None and attributes.kind == "map":
            system = get(attributes, "system")
            if system is None or system.kind != "map":
                self.v1("V1 requires `attributes.system`", system or attributes)
            elif not is_number(get(system, "duration")):
                self.v1(
                    "V1 requires `attributes.system.duration`",
                    key_span(attributes, "system") or system.span,
                )
            for sec in ("system", "user"):
                value = get(attributes, sec)
                if value is not None and value.kind == "map" and not value.items:
                    self.v1(f"V1 `attributes.{sec}`, if present, is not empty", value)

    def v1_keys(self, node: Node, allowed: tuple[str, ...], what: str) -> None:
        for k, _ in node.items:
            if k.text not in allowed:
                self.v1(f"{what} has only {', '.join(allowed)} (not `{k.text}`)", k)

    def v1_count(self, node: Node, kind: str, least: int) -> None:
        count = get(node, "count")
        if count is None:
            return
        if not is_int(count):
            self.v1(f"a V1 {kind} count is a fixed integer", count)
        elif count.value < least:
            self.v1(f"a V1 {kind} count is {least} or more", count)

    def v1_slot(self, slot: Node) -> None:
        self.v1_keys(slot, ("type", "count", "with", "label", "exclusive"), "a V1 slot")
        self.v1_count(slot, "slot", 1)
        children = get(slot, "with")
        if children is None or children.kind != "seq" or not 1 <= len(children.children) <= 2:
            self.v1("a V1 slot holds a core and optionally a gpu", children or slot)
            return
        types = []
        for child in children.children:
            typ = get(child, "type")
            kind = typ.value if is_str(typ) and typ is not None else None
            types.append(kind)
            if (
                child.kind != "map"
                or kind not in ("core", "gpu")
                or any(k.text not in ("type", "count") for k, _ in child.items)
            ):
                self.v1("a V1 slot holds only `{type: core|gpu, count: N}` vertices", child)
                continue
            self.v1_count(child, kind, 1 if kind == "core" else 0)
        if "core" not in types or len(set(types)) != len(types):
            self.v1("a V1 slot holds one core vertex and at most one gpu vertex", children)
