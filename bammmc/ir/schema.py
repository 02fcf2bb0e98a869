"""The JSON Schema of SPLAT (``bammmc schema``), generated from the IR by msgspec.

Typed values (sizes, durations…) are strings or numbers on the wire; the schema says which and
describes the syntax. bammmc's own reader is stricter than the schema (it parses each value).
"""

from __future__ import annotations

from typing import Any

from bammmc.ir.values import Count, Cpu, DateTime, Duration, IndexSpec, Signal, Size, Template

_VALUE_SCHEMAS: dict[type, dict[str, Any]] = {
    Size: {
        "anyOf": [{"type": "string"}, {"type": "number", "minimum": 0}],
        "description": "size: 4Gi, 4G, 4096M, 4096 (MiB), 4gb; optional /scope (2G/node)",
        "examples": ["4Gi", "512Mi", "4096"],
    },
    Cpu: {
        "anyOf": [{"type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?m?$"}, {"type": "number"}],
        "description": "CPU count: 4, 0.5 or 500m",
        "examples": [4, "500m"],
    },
    Count: {
        "anyOf": [{"type": "string"}, {"type": "number", "minimum": 0}],
        "description": "count with optional /scope: 2, 0.5, 4/node",
        "examples": [2, "4/node"],
    },
    Duration: {
        "anyOf": [{"type": "string"}, {"type": "integer", "minimum": 0}],
        "description": "duration: PT2H30M, 2:30:00, 2-12:00:00, 150m, 9000s, 9000 (seconds), "
        "unlimited",
        "examples": ["PT2H30M", "2:30:00"],
    },
    IndexSpec: {
        "anyOf": [{"type": "string"}, {"type": "integer", "minimum": 0}],
        "description": "array indices: 0-99, 1-50:2, 0-999%50, 1,3,7-12",
        "examples": ["0-99%10"],
    },
    Template: {
        "type": "string",
        "description": "path template with {job_id} {array_job_id} {array_index} {job_name} "
        "{node_hostname} {task_index}",
    },
    Signal: {"type": "string", "description": "SIGNAL@SECONDS, e.g. USR1@60"},
    DateTime: {
        "type": "string",
        "description": "ISO 8601 date and time, e.g. 2026-03-01T08:00:00Z",
    },
}


def schema_hook(t: type) -> dict[str, Any]:
    if t in _VALUE_SCHEMAS:
        return dict(_VALUE_SCHEMAS[t])
    raise NotImplementedError(t)  # msgspec's hook protocol: "not a type this hook knows"


def json_schema() -> dict[str, Any]:
    import msgspec

    from bammmc.ir.job import Job

    schema = msgspec.json.schema(Job, schema_hook=schema_hook)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "SPLAT v1alpha1 job (bammm.io/v1alpha1)"
    return schema
