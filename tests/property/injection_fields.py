"""Every string a job can hold, listed from the IR types, and a SPLAT document that sets one.

The injection tests (tests/property/test_injection.py) put adversarial values into each of
these leaves for every target; the list is walked from :class:`~bammmc.ir.job.Job` with
``msgspec.inspect`` (as :func:`bammmc.ir.paths.field_paths` does), so a new string field is
covered without touching the tests.

A leaf is a tuple of steps from the document's root: a wire name (``"spec"``), ``"[]"`` (the one
item of a list), ``"{k}"`` (the key of a map: the leaf *is* the key) or ``"{v}"`` (the value of
the map's one entry). Its display form is the schema path: ``spec.tasks[].name``,
``spec.execution.environment.vars{k}``. Below a free-form map (``dict[str, Any]``: a Flux
attribute, a Kubernetes toleration) a value may itself be a map or a list: the strings one
level down are leaves too (``spec.extensions.flux.user_attributes{v}{v}``, ``…{v}[]``).
"""

from __future__ import annotations

import functools
from typing import Any

from msgspec import inspect as mi

from bammmc.ir.job import Job

Leaf = tuple[str, ...]

#: the key of the one entry a leaf's map gets when the leaf is not the key itself
KEY = "K1"
#: the value given to the required strings around a leaf (a task's `name` …)
PLAIN = "p1"
#: plain values of the typed values a map may hold (`genericResources`, `slot_memory` …)
TYPED = {"Count": 1, "Size": "1Gi", "Cpu": 1, "Duration": 60}
#: what an item of these lists needs beside its required fields to be valid at all
ITEM_CONTEXT: dict[str, dict[str, Any]] = {
    "spec.dependencies[]": {"scheme": "afterok"},
    "spec.volumes[]": {"emptyDir": True},
}
#: fields of which an item has exactly one (a volume's source)
ONE_OF = ("pvc", "configMap", "secret", "hostPath", "emptyDir", "nfs")


def _options(t: mi.Type) -> list[mi.Type]:
    if isinstance(t, mi.UnionType):
        return [x for x in t.types if not isinstance(x, mi.NoneType)]
    return [t]


def _walk(t: mi.Type, prefix: Leaf, seen: tuple[type, ...], out: list[Leaf]) -> None:
    for option in _options(t):
        template = isinstance(option, mi.CustomType) and option.cls.__name__ == "Template"
        if isinstance(option, mi.StrType) or template:
            out.append(prefix)
        elif isinstance(option, mi.StructType):
            if option.cls in seen:
                continue
            for f in option.fields:
                _walk(f.type, (*prefix, f.encode_name), (*seen, option.cls), out)
        elif isinstance(option, mi.ListType):
            _walk(option.item_type, (*prefix, "[]"), seen, out)
        elif isinstance(option, mi.DictType):
            out.append((*prefix, "{k}"))
            if isinstance(option.value_type, mi.AnyType):
                _free((*prefix, "{v}"), out)
            else:
                _walk(option.value_type, (*prefix, "{v}"), seen, out)
        elif isinstance(option, mi.AnyType):  # free-form data: a map of it
            out.append((*prefix, "{k}"))
            _free((*prefix, "{v}"), out)


def _free(prefix: Leaf, out: list[Leaf]) -> None:
    """The strings of a free-form value (`dict[str, Any]`'s values): the value itself, and
    one level below it, a key and a value of a map and an item of a list."""
    out.extend((prefix, (*prefix, "{k}"), (*prefix, "{v}"), (*prefix, "[]")))


@functools.cache
def _root() -> mi.Type:
    return mi.type_info(Job)


@functools.cache
def string_leaves() -> tuple[Leaf, ...]:
    """Every string-valued leaf of the job model (str fields, list items, map keys and values,
    templates, the extensions' strings), in declaration order."""
    root = _root()
    assert isinstance(root, mi.StructType)
    out: list[Leaf] = []
    for f in root.fields:
        if f.encode_name not in ("apiVersion", "kind"):  # constants, not values
            _walk(f.type, (f.encode_name,), (Job,), out)
    return tuple(dict.fromkeys(out))


def display(leaf: Leaf) -> str:
    text = ""
    for step in leaf:
        text += step if step in ("[]", "{k}", "{v}") or not text else "." + step
    return text


def _type_at(leaf: Leaf) -> list[mi.Type]:
    """The types met along ``leaf``, one per step (the struct/list/dict option taken)."""
    node: mi.Type = _root()
    types: list[mi.Type] = []
    for step in leaf:
        options = _options(node)
        if step == "[]":
            lists = [o for o in options if isinstance(o, mi.ListType)]
            node = lists[0].item_type if lists else mi.AnyType()
        elif step in ("{k}", "{v}"):
            found = [o for o in options if isinstance(o, mi.DictType)]
            node = found[0].value_type if found else mi.AnyType()
        else:
            struct = next(o for o in options if isinstance(o, mi.StructType))
            node = next(f.type for f in struct.fields if f.encode_name == step)
        types.append(node)
    return types


def _required(t: mi.Type) -> Any:
    """A plain value for a required field of type ``t``."""
    option = _options(t)[0]
    if isinstance(option, mi.StructType):
        return {f.encode_name: _required(f.type) for f in option.fields if f.required}
    if isinstance(option, mi.LiteralType):
        return option.values[0]
    if isinstance(option, mi.IntType):
        return 1
    if isinstance(option, mi.DictType):
        return {}
    if isinstance(option, mi.ListType):
        return []
    if isinstance(option, mi.CustomType) and option.cls.__name__ in TYPED:
        return TYPED[option.cls.__name__]
    return PLAIN


def document(leaf: Leaf, value: str, *, script: bool = True) -> dict[str, Any]:
    """A SPLAT document (plain data) with ``leaf`` set to ``value`` (and, with ``script``, a
    script to run; without, the job needs the leaf to say what it runs: `executable`)."""
    spec: dict[str, Any] = {"execution": {"script": "#!/bin/bash\necho hi\n"}} if script else {}
    doc: dict[str, Any] = {"apiVersion": "bammm.io/v1alpha1", "kind": "Job", "spec": spec}
    if display(leaf) == "spec.tasks[].dependsOn[].name":  # names another task of the job
        spec["tasks"] = [{"name": value}]
    types = _type_at(leaf)
    node: Any = doc
    for i, step in enumerate(leaf):
        last = i == len(leaf) - 1
        here = types[i]
        if step == "[]":
            if last:
                node.append(value)
                return doc
            item = _required(here)
            for key, plain in ITEM_CONTEXT.get(display(leaf[: i + 1]), {}).items():
                if key in ONE_OF and leaf[i + 1] in ONE_OF:  # the leaf is another one of them
                    continue
                item[key] = plain
            node.append(item)
            node = node[-1]
        elif step == "{k}":
            kept = _required(here)
            node[value] = [PLAIN] if kept == [] else PLAIN if kept == {} else kept
            return doc
        elif step == "{v}":
            if last:
                node[KEY] = value
                return doc
            node[KEY] = [] if leaf[i + 1] == "[]" else _container(here)
            node = node[KEY]
        else:
            if last:
                node[step] = value
                if not script and step == "arguments":  # the arguments of a program
                    node["executable"] = "/bin/" + PLAIN
                return doc
            if step not in node:
                node[step] = _container(here)
            node = node[step]
    return doc


def _container(t: mi.Type) -> Any:
    options = _options(t)
    if any(isinstance(o, mi.StructType) for o in options):
        struct = next(o for o in options if isinstance(o, mi.StructType))
        return {f.encode_name: _required(f.type) for f in struct.fields if f.required}
    if any(isinstance(o, mi.ListType) for o in options):
        return []
    return {}
