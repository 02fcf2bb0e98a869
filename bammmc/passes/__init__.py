"""IR passes: pure functions ``(job, ctx) -> job`` run in the fixed order of :data:`PIPELINE`.

A pass never prints; it reports through ``ctx.reporter`` and finds source locations through
``ctx.source_map``. New values are built with ``msgspec.structs.replace``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bammmc.diagnostics.model import Reporter, Span
from bammmc.ir.priority import DEFAULT_BAND, PriorityBand
from bammmc.ir.sourcemap import SourceMap

if TYPE_CHECKING:
    from bammmc.ir.job import Job


@dataclass
class PassContext:
    reporter: Reporter
    source_map: SourceMap = field(default_factory=SourceMap)
    band: PriorityBand = DEFAULT_BAND

    def report(
        self,
        code: str,
        message: str,
        path: str,
        *,
        at: str = "key",
        help: str | None = None,
        notes: tuple[str, ...] = (),
        label: str | None = None,
    ) -> None:
        """Report about the field at ``path``, located at its key (or its value)."""
        span: Span | None = (
            self.source_map.key(path) if at == "key" else self.source_map.value(path)
        )
        self.reporter.report(code, message, span, field=path, help=help, notes=notes, label=label)


Pass = Callable[["Job", PassContext], "Job"]


def pipeline() -> tuple[Pass, ...]:
    """The passes every job goes through after lowering, in order."""
    from bammmc.passes.validate import validate

    return (validate,)


def run_passes(job: Job, ctx: PassContext) -> Job:
    for p in pipeline():
        job = p(job, ctx)
    return job
