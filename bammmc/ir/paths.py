"""Every field of the job model as a path, and the leaves a given job sets.

Two views of the same tree, both in the wire spelling that diagnostics use (``field``):

* :func:`field_paths` — the *schema* paths, generated from the IR types so a new field cannot be
  forgotten: ``spec.resources.cpusPerTask``, ``spec.tasks[].name`` (``[]`` stands for any item
  of a list of structs). A map (``metadata.labels``) or a list of plain values is one leaf.
* :func:`set_leaves` — the *instance* paths a job sets, with their values:
  ``spec.tasks[1].name``, ``spec.execution.environment.vars`` … Same leaves, concrete indices.

:func:`schema_path` turns an instance path into its schema path (``[1]`` → ``[]``), which is how
the capability tables (``bammmc.capabilities``) are looked up.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

import msgspec
from msgspec import inspect as mi

from bammmc.ir.job import Job

_INDEX = re.compile(r"\[\d+\]")


def _struct(t: mi.Type) -> mi.StructType | None:
    if isinstance(t, mi.UnionType):
        for option in t.types:
            if isinstance(option, mi.StructType):
                return option
        return None
    return t if isinstance(t, mi.StructType) else None


def _list_of_structs(t: mi.Type) -> mi.StructType | None:
    if isinstance(t, mi.UnionType):
        for option in t.types:
            found = _list_of_structs(option)
            if found is not None:
                return found
        return None
    if isinstance(t, mi.ListType):
        return _struct(t.item_type)
    return None


@functools.cache
def field_paths() -> tuple[str, ...]:
    """Every leaf field of :class:`~bammmc.ir.job.Job`, in declaration order.

    >>> paths = field_paths()
    >>> "spec.resources.cpusPerTask" in paths, "spec.tasks[].name" in paths
    (True, True)
    >>> "spec.resources" in paths  # a struct is not a leaf
    False
    """
    out: list[str] = []

    def walk(t: mi.StructType, prefix: str, seen: tuple[type, ...]) -> None:
        for f in t.fields:
            path = f"{prefix}.{f.encode_name}" if prefix else f.encode_name
            sub = _struct(f.type)
            items = _list_of_structs(f.type)
            if sub is not None and sub.cls not in seen:
                walk(sub, path, (*seen, sub.cls))
            elif items is not None and items.cls not in seen:
                walk(items, path + "[]", (*seen, items.cls))
            else:
                out.append(path)

    root = mi.type_info(Job)
    assert isinstance(root, mi.StructType)
    walk(root, "", (Job,))
    return tuple(out)


def schema_path(path: str) -> str:
    """The schema path of an instance path.

    >>> schema_path("spec.tasks[1].resources.cpusPerTask")
    'spec.tasks[].resources.cpusPerTask'
    """
    return _INDEX.sub("[]", path)


def set_leaves(job: Job) -> Iterator[tuple[str, Any]]:
    """The leaves ``job`` sets, as ``(instance path, value)``; the value is the field's own
    Python value (a struct is walked into, a list of structs item by item). An empty map or list
    sets nothing; ``0``, ``False`` and ``""`` do.

    >>> from bammmc.ir.job import new_job, Resources
    >>> list(set_leaves(new_job(resources=Resources(cpus_per_task=4))))
    [('apiVersion', 'bammm.io/v1alpha1'), ('kind', 'Job'), ('spec.resources.cpusPerTask', 4)]
    """
    yield from _leaves(job, "")


def _leaves(node: msgspec.Struct, prefix: str) -> Iterator[tuple[str, Any]]:
    for f in msgspec.structs.fields(node):
        value = getattr(node, f.name)
        if value is None or (isinstance(value, (list, dict)) and not value):
            continue
        path = f"{prefix}.{f.encode_name}" if prefix else f.encode_name
        if isinstance(value, msgspec.Struct):
            yield from _leaves(value, path)
        elif isinstance(value, list) and all(isinstance(v, msgspec.Struct) for v in value):
            for i, item in enumerate(value):
                yield from _leaves(item, f"{path}[{i}]")
        else:
            yield path, value


def get_path(job: Job, path: str) -> Any:
    """The value at an instance path (None when unset or out of range).

    >>> from bammmc.ir.job import new_job, Resources
    >>> get_path(new_job(resources=Resources(cpus_per_task=4)), "spec.resources.cpusPerTask")
    4
    """
    node: Any = job
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if node is None:
            return None
        if part.startswith("["):
            index = int(part[1:-1])
            node = node[index] if isinstance(node, list) and index < len(node) else None
            continue
        names = {f.encode_name: f.name for f in msgspec.structs.fields(node)}
        if part not in names:
            return None
        node = getattr(node, names[part])
    return node


def related(path: str, field: str) -> bool:
    """Is a diagnostic about ``field`` about the leaf ``path``? It is when ``field`` is the
    leaf itself, a parent of it, or a part of its value (`spec.dependencies[1]` of a leaf
    `spec.dependencies` that one directive set, `…vars.KEY` of a map). The rule of
    ``--explain`` (bammmc/explain.py) and of the honesty test (tests/test_honesty.py).

    >>> related("spec.resources.gpu.type", "spec.resources.gpu")
    True
    >>> related("spec.dependencies", "spec.dependencies[1]")
    True
    >>> related("spec.resources.gpu", "spec.resources.gpuX"), related("spec.tasks", "spec")
    (False, True)
    """
    return (
        path == field
        or path.startswith((field + ".", field + "["))
        or field.startswith((path + ".", path + "["))
    )


def same_value(a: Any, b: Any) -> bool:
    """Do two field values mean the same? Typed values compare by meaning (`4Gi` is `4096Mi`,
    `PT1H` is `3600`), not by spelling as ``==`` does; structs, maps and lists item by item.

    >>> from bammmc.ir.values import Size
    >>> four, same_four = Size.parse("4Gi"), Size.parse("4096Mi")
    >>> same_value(four, same_four), four == same_four
    (True, False)
    >>> same_value({"a": [1, True]}, {"a": [1, 1]})
    False
    """
    from bammmc.ir.values import Value

    if isinstance(a, Value) or isinstance(b, Value):
        return type(a) is type(b) and _meaning(a) == _meaning(b)
    if isinstance(a, msgspec.Struct) or isinstance(b, msgspec.Struct):
        return type(a) is type(b) and same_value(
            msgspec.structs.asdict(a), msgspec.structs.asdict(b)
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


def _meaning(value: Any) -> Any:
    from bammmc.ir import values as v

    if isinstance(value, v.Size):
        return (value.bytes, value.scope)
    if isinstance(value, v.Cpu):
        return value.cores
    if isinstance(value, v.Count):
        return (value.amount, value.scope)
    if isinstance(value, v.Duration):
        return value.seconds
    if isinstance(value, v.IndexSpec):  # the indices, however the ranges are cut
        indices = tuple(sorted(set(value))) if len(value) <= 100_000 else value.ranges
        return (indices, value.throttle)
    if isinstance(value, v.Template):
        return value.parts
    if isinstance(value, v.Signal):
        return (value.number, value.seconds)
    if isinstance(value, v.DateTime):
        return value.value
    return value.raw
