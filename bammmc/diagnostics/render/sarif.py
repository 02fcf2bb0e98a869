"""``--diagnostics sarif``: SARIF 2.1.0, for code-scanning tools.

One run, the tool's rules from the code registry, one result per diagnostic with its region; its
``level`` is the diagnostic's severity (``error`` for a warning promoted by ``--strict`` or
``--deny``, the rule's ``defaultConfiguration`` keeping the code's own). ``--explain`` rows go
into the run's property bag (``explain``, ``explainSummaries``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from bammmc.diagnostics.codes import CODES
from bammmc.diagnostics.model import Diagnostic

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVELS = {"error": "error", "warning": "warning", "note": "note"}


def document(
    diagnostics: Iterable[Diagnostic], properties: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The SARIF log; ``properties`` (``--explain``'s rows) go into the run's property bag."""
    from bammmc import __version__

    diags = list(diagnostics)
    used = sorted({d.code for d in diags})
    rules = [
        {
            "id": code,
            "name": CODES[code].name,
            "shortDescription": {"text": CODES[code].summary},
            "fullDescription": {"text": CODES[code].means},
            "help": {"text": CODES[code].fix, "markdown": CODES[code].explanation},
            "defaultConfiguration": {"level": _LEVELS[_severity(code)]},
        }
        for code in used
    ]
    index = {code: i for i, code in enumerate(used)}
    results = []
    for d in diags:
        result: dict[str, Any] = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": _LEVELS[d.severity],
            "message": {"text": d.message + (f"\nhelp: {d.help}" if d.help else "")},
        }
        if d.span is None and d.file is not None:
            result["locations"] = [{"physicalLocation": {"artifactLocation": {"uri": d.file}}}]
        if d.span is not None:
            result["locations"] = [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": d.span.file or "stdin"},
                        "region": {
                            "startLine": d.span.line,
                            "startColumn": d.span.column,
                            "endLine": d.span.end_line,
                            "endColumn": d.span.end_column,
                        },
                    }
                }
            ]
        if d.field:
            result["properties"] = {"field": d.field}
        results.append(result)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "bammmc",
                "version": __version__,
                "rules": rules,
            }
        },
        "results": results,
    }
    if properties:
        run["properties"] = properties
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def _severity(code: str) -> str:
    return {"E": "error", "W": "warning", "N": "note"}[code[0]]


def render(diagnostics: Iterable[Diagnostic], properties: dict[str, Any] | None = None) -> str:
    return (
        orjson.dumps(document(diagnostics, properties), option=orjson.OPT_INDENT_2).decode() + "\n"
    )
