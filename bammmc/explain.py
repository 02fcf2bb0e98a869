"""``--explain``: what each field of the source became in the target.

One row per field the input set: its path, the source text and location, what the target got,
and the status (``exact`` / ``approximated`` / ``lost``) with the diagnostic code, then a
summary line. The SPLAT target keeps every field exactly; the per-target capability model that
fills the other statuses comes with the fidelity pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from bammmc.diagnostics.model import Diagnostic
from bammmc.pipeline import Compiled

_RANK = {"exact": 0, "approximated": 1, "lost": 2}


def rows(
    compiled: Compiled, target: str, diagnostics: Sequence[Diagnostic] = ()
) -> list[dict[str, Any]]:
    """One row per field the source set; a W2xx/W3xx about the field, a parent of it or a part
    of its value marks it lost/approximated (the worst one wins)."""
    verdicts: dict[str, tuple[str, str]] = {}
    for d in diagnostics:
        if d.field and d.code[:2] in ("W2", "W3"):
            verdicts[d.field] = ("lost" if d.code.startswith("W2") else "approximated", d.code)
    smap = compiled.source_map
    parents = set()
    for q in smap.values:  # every proper prefix of a path is a parent, not a leaf
        for i, ch in enumerate(q):
            if ch in ".[" and i:
                parents.add(q[:i])
    leaves = [p for p in smap.values if p not in parents]
    out = []
    for path in leaves:
        span = smap.values[path]
        status, code = "exact", None
        for field, verdict in verdicts.items():
            # the diagnostic is about this field, a parent of it, or a part of its value
            # (`spec.dependencies[1]` of a row `spec.dependencies` set by one directive)
            related = path == field or path.startswith((field + ".", field + "["))
            related = related or field.startswith((path + ".", path + "["))
            if related and _RANK[verdict[0]] > _RANK[status]:
                status, code = verdict
        out.append(
            {
                "field": path,
                "line": span.line,
                "column": span.column,
                "target": target,
                "status": status,
                "code": code,
            }
        )
    return out


def explain_text(
    compiled: Compiled, target: str, diag_format: str, diagnostics: Sequence[Diagnostic] = ()
) -> str:
    table = rows(compiled, target, diagnostics)
    if diag_format == "json":
        # one object per line, told apart from diagnostics by `"kind": "explain"` (docs/cli.md)
        return "".join(orjson.dumps({"kind": "explain", **row}).decode() + "\n" for row in table)
    width = max((len(r["field"]) for r in table), default=5)
    lines = [f"{'field':<{width}}  {'source':<9}  status"]
    for r in table:
        where = f"{r['line']}:{r['column']}"
        code = f" ({r['code']})" if r["code"] else ""
        lines.append(f"{r['field']:<{width}}  {where:<9}  {r['status']}{code}")
    exact = sum(r["status"] == "exact" for r in table)
    approx = sum(r["status"] == "approximated" for r in table)
    lost = sum(r["status"] == "lost" for r in table)
    lines.append(f"{target}: {exact} exact, {approx} approximated, {lost} lost")
    return "\n".join(lines) + "\n"
