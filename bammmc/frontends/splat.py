"""The SPLAT reader (format ``splat``): YAML text -> :class:`bammmc.ir.job.Job` + source map.

SPLAT is the IR's own text form, so there is no separate lowering step: the located YAML tree
(``frontends/yamlnodes.py``) is decoded straight into the IR by ``ir/decode.py``, which reports
unknown keys with a did-you-mean, wrong types, and values that do not parse, each at its line
and column. Siblings: ``backends/splat.py`` (the writer), ``ir/job.py`` (the model).
"""

from __future__ import annotations

from dataclasses import dataclass

from bammmc.diagnostics.model import Reporter
from bammmc.frontends.yamlnodes import Node, compose
from bammmc.ir.decode import MAX_NODES, Decoder
from bammmc.ir.job import API_VERSION, Job
from bammmc.ir.sourcemap import SourceMap


@dataclass
class Read:
    """One document read: the job (``None`` if errors prevent building it) and where each of
    its fields was written."""

    job: Job | None
    source_map: SourceMap


def sniff(text: str) -> bool:
    """Does the text look like SPLAT? (an ``apiVersion`` of ``bammm.io/…`` near the top, in
    block YAML, flow YAML or JSON, minified or not)

    >>> sniff('{"apiVersion":"bammm.io/v1alpha1","kind":"Job"}'), sniff("apiVersion: v1")
    (True, False)
    """
    head = text[:8192]
    at = head.find("apiVersion")
    while at >= 0:
        rest = head[at + len("apiVersion") : at + len("apiVersion") + 40].lstrip("\"' \t:")
        if rest.startswith("bammm.io/"):
            return True
        at = head.find("apiVersion", at + 1)
    return False


def read(
    text: str,
    reporter: Reporter,
    *,
    batch: bool = False,
    max_nodes: int = MAX_NODES,
) -> list[Read]:
    """Every job in ``text`` (one, unless ``batch``)."""
    docs = compose(text, reporter, allow_multiple=batch)
    if reporter.has_errors:
        return []
    docs = [d for d in docs if not (d.kind == "scalar" and d.value is None and d.style is None)]
    if not docs:
        reporter.report(
            "E001",
            "the input holds no job" if text.strip() else "the input is empty",
            help="give a SPLAT document starting with `apiVersion: bammm.io/v1alpha1`",
        )
        return []
    return [_read_document(doc, reporter, max_nodes) for doc in docs]


def _read_document(doc: Node, reporter: Reporter, max_nodes: int) -> Read:
    decoder = Decoder(reporter, Job, max_nodes)
    if doc.kind == "map":
        for key, value in doc.items:
            if key.text == "apiVersion" and value.kind == "scalar" and value.text != API_VERSION:
                if isinstance(value.value, str) and value.text.startswith("bammm.io/"):
                    reporter.report(
                        "E111",
                        f"unsupported SPLAT version `{value.text}`",
                        value.span,
                        field="apiVersion",
                        notes=(f"this bammmc reads `{API_VERSION}`",),
                        help=f"set `apiVersion: {API_VERSION}` after migrating the document",
                    )
                    return Read(None, decoder.source_map)
    job = decoder.decode(doc)
    return Read(job if isinstance(job, Job) else None, decoder.source_map)
