"""``--diagnostics json``: one JSON object per line, stable keys.

Keys: ``kind code name severity message file line column end_line end_column notes help field``
(``null`` where not applicable). ``kind`` is ``diagnostic`` (``--explain`` adds lines of kind
``explain`` and ``explain-summary`` to the same stream; ``--to all`` prints lines of kind
``target`` on stdout). ``field`` is the SPLAT field path the diagnostic is about. ``severity`` is
``error`` for a warning promoted by ``--strict``/``--deny``; its ``code`` stays. Every kind is
described by ``bammmc/diagnostics/diagnostics.schema.json`` (:data:`SCHEMA_PATH`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from bammmc.diagnostics.model import Diagnostic

#: the JSON Schema of every line object (diagnostic, explain, explain-summary, target)
SCHEMA_PATH = Path(__file__).parent.parent / "diagnostics.schema.json"


def as_dict(diag: Diagnostic) -> dict[str, Any]:
    span = diag.span
    return {
        "kind": "diagnostic",
        "code": diag.code,
        "name": diag.name,
        "severity": diag.severity,
        "message": diag.message,
        "file": diag.path,
        "line": span.line if span else None,
        "column": span.column if span else None,
        "end_line": span.end_line if span else None,
        "end_column": span.end_column if span else None,
        "notes": list(diag.notes),
        "help": diag.help,
        "field": diag.field,
    }


def render(diagnostics: Iterable[Diagnostic]) -> str:
    return "".join(orjson.dumps(as_dict(d)).decode() + "\n" for d in diagnostics)
