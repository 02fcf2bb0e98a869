"""``--diagnostics json``: one JSON object per line, stable keys.

Keys: ``kind code name severity message file line column end_line end_column notes help field``
(``null`` where not applicable). ``kind`` is ``diagnostic`` (``--explain`` adds lines of kind
``explain`` to the same stream). ``field`` is the SPLAT field path the diagnostic is about.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from bammmc.diagnostics.model import Diagnostic


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
