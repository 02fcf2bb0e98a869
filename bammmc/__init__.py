"""bammmc, the BAMMM compiler: batch job specifications between schedulers, through SPLAT.

The library API mirrors the command line. Each function returns its result together with the
diagnostics it produced; a result is ``None`` when an error prevented it.

>>> import bammmc
>>> job, diagnostics = bammmc.parse(
...     "apiVersion: bammm.io/v1alpha1\\nkind: Job\\nspec:\\n  resources:\\n    cpusPerTask: 4\\n",
...     "splat",
... )
>>> job.spec.resources.cpus_per_task.cores, diagnostics
(Fraction(4, 1), [])
>>> text, diagnostics = bammmc.emit(job, "splat")
>>> print(text, end="")
apiVersion: bammm.io/v1alpha1
kind: Job
spec:
  resources:
    cpusPerTask: 4
>>> bad = "apiVersion: bammm.io/v1alpha1\\nkind: Jb\\n"
>>> out, diagnostics = bammmc.convert(bad, "splat", "splat")
>>> out is None, [d.code for d in diagnostics]
(True, ['E104'])
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bammmc.diagnostics.model import Diagnostic
    from bammmc.ir.job import Job
    from bammmc.ir.priority import PriorityBand
    from bammmc.pipeline import Compiled

__version__ = "0.1.0"
__all__ = ["__version__", "convert", "convert_files", "emit", "emit_files", "parse"]


def parse(
    text: str,
    fmt: str | None = None,
    *,
    filename: str | None = None,
    priority_range: str | None = None,
) -> tuple[Job | None, list[Diagnostic]]:
    """Read one job from ``text`` in format ``fmt`` (detected from ``filename`` or the content
    when ``None``) and validate it."""
    compiled, diagnostics = _compile(text, fmt, filename, priority_range)
    return (compiled.job if compiled else None), diagnostics


def emit(
    job: Job, fmt: str, *, priority_range: str | None = None, preserve: bool = False
) -> tuple[str | None, list[Diagnostic]]:
    """Write ``job`` in format ``fmt``; returns the main file's text (`emit_files` for all),
    ``None`` when an error was reported. ``preserve`` embeds what the target cannot express, as
    ``--preserve`` does."""
    files, diagnostics = emit_files(job, fmt, priority_range=priority_range, preserve=preserve)
    return (files[0][1] if files is not None else None), diagnostics


def emit_files(
    job: Job,
    fmt: str,
    *,
    priority_range: str | None = None,
    stem: str = "job",
    preserve: bool = False,
) -> tuple[list[tuple[str, str]] | None, list[Diagnostic]]:
    """Write ``job`` in format ``fmt``: every file, main file first, as ``(suffix, text)``;
    ``None`` when an error was reported (a value the target cannot carry, E140: the text
    without it would be another job).

    A suffix is ``""`` for the main file; an extra file is named after the main one's stem
    (``stem`` + suffix): an HTCondor submit file of a script job runs ``job.sh``."""
    from bammmc.backends import WriteOptions
    from bammmc.diagnostics.model import Reporter
    from bammmc.pipeline import emit_job, get_format

    reporter = Reporter()
    options = WriteOptions(band=_band(priority_range), script_stem=stem, preserve=preserve)
    files = emit_job(job, get_format(fmt), reporter, None, options)
    if reporter.has_errors:
        return None, reporter.diagnostics
    return [(f.suffix, f.text) for f in files], reporter.diagnostics


def convert(
    text: str,
    src: str | None,
    dst: str,
    *,
    filename: str | None = None,
    priority_range: str | None = None,
    preserve: bool = False,
) -> tuple[str | None, list[Diagnostic]]:
    """Convert ``text`` from format ``src`` (``None``: detect) to ``dst``; ``None`` on error.
    The target's diagnostics point at the source text that set each field. Returns the main
    file's text (`convert_files` for all)."""
    files, diagnostics = convert_files(
        text, src, dst, filename=filename, priority_range=priority_range, preserve=preserve
    )
    return (files[0][1] if files is not None else None), diagnostics


def convert_files(
    text: str,
    src: str | None,
    dst: str,
    *,
    filename: str | None = None,
    priority_range: str | None = None,
    stem: str = "job",
    preserve: bool = False,
) -> tuple[list[tuple[str, str]] | None, list[Diagnostic]]:
    """`convert`, returning every file the target needs, main file first, as
    ``(suffix, text)``; ``None`` on error.

    >>> files, _ = convert_files("#!/bin/bash\\n#SBATCH -n 2\\nhostname\\n", "slurm", "htcondor")
    >>> [suffix for suffix, _ in files]
    ['', '.sh']
    >>> files[0][1].splitlines()[0], files[1][1]
    ('executable = job.sh', '#!/bin/bash\\nhostname\\n')
    """
    from bammmc.backends import WriteOptions
    from bammmc.diagnostics.model import Reporter
    from bammmc.pipeline import emit_job, get_format

    compiled, diagnostics = _compile(text, src, filename, priority_range)
    if compiled is None or compiled.job is None or any(d.is_error for d in diagnostics):
        return None, diagnostics
    reporter = Reporter(filename)
    options = WriteOptions(band=_band(priority_range), script_stem=stem, preserve=preserve)
    files = emit_job(compiled.job, get_format(dst), reporter, compiled.source_map, options)
    if reporter.has_errors:  # the text without the refused value would be another job
        return None, diagnostics + reporter.diagnostics
    return [(f.suffix, f.text) for f in files], diagnostics + reporter.diagnostics


def _band(priority_range: str | None) -> PriorityBand:
    from bammmc.ir.priority import DEFAULT_BAND, PriorityBand

    return PriorityBand.parse(priority_range) if priority_range else DEFAULT_BAND


def _compile(
    text: str, fmt: str | None, filename: str | None, priority_range: str | None
) -> tuple[Compiled | None, list[Diagnostic]]:
    from bammmc.diagnostics.model import Reporter
    from bammmc.pipeline import Options, compile_text, get_format
    from bammmc.registry import check_explicit, detect

    reporter = Reporter(filename)
    fmt_obj = get_format(fmt) if fmt else detect(filename, text, reporter)
    if fmt_obj is None or (fmt and not check_explicit(fmt_obj, text, reporter)):
        return None, reporter.diagnostics
    compiled = compile_text(text, fmt_obj, reporter, Options(band=_band(priority_range)))
    return (compiled[0] if compiled else None), reporter.diagnostics
