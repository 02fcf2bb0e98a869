"""The one list of formats: name, extensions, detection, and where its reader and writer live.

The CLI, ``bammmc formats``, the docs and the tests are generated from :data:`FORMATS`; a format
is listed only once it really reads and writes. Modules are imported only when a format is used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from bammmc.diagnostics.model import Reporter


@dataclass(frozen=True)
class Format:
    name: str
    description: str
    extensions: tuple[str, ...]
    frontend: str
    backend: str
    #: the lowering pass (format AST -> IR); ``None`` when the frontend reads the IR itself
    lowering: str | None = None
    #: can hold several jobs in one file (``--batch``), joined by this separator
    document_separator: str | None = None

    def reader(self) -> ModuleType:
        return importlib.import_module(self.frontend)

    def lowerer(self) -> ModuleType | None:
        return importlib.import_module(self.lowering) if self.lowering else None

    def writer(self) -> ModuleType:
        return importlib.import_module(self.backend)

    def sniff(self, text: str) -> bool:
        sniffer: Callable[[str], bool] = self.reader().sniff
        return sniffer(text)


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format(
            "splat",
            "SPLAT YAML (apiVersion: bammm.io/v1alpha1), the IR's own text form",
            (".splat.yaml", ".splat.yml", ".splat"),
            "bammmc.frontends.splat",
            "bammmc.backends.splat",
            document_separator="---\n",
        ),
        Format(
            "slurm",
            "Slurm sbatch script (#SBATCH directives), heterogeneous jobs included",
            (".sbatch", ".slurm"),
            "bammmc.frontends.slurm",
            "bammmc.backends.slurm",
            lowering="bammmc.passes.lower.slurm",
        ),
        Format(
            "pbs",
            "PBS Professional / OpenPBS script (#PBS, select= and place=)",
            (".pbs", ".qsub"),
            "bammmc.frontends.pbs",
            "bammmc.backends.pbs",
            lowering="bammmc.passes.lower.pbs",
        ),
        Format(
            "torque",
            "Torque / PBS classic script (#PBS, nodes=N:ppn=M, -t arrays)",
            (".torque",),
            "bammmc.frontends.torque",
            "bammmc.backends.torque",
            lowering="bammmc.passes.lower.torque",
        ),
        Format(
            "lsf",
            "IBM Spectrum LSF script for `bsub < script` (#BSUB, -R resource strings)",
            (".lsf", ".bsub"),
            "bammmc.frontends.lsf",
            "bammmc.backends.lsf",
            lowering="bammmc.passes.lower.lsf",
        ),
        # ── LSF (the LSF work adds its Format entry above this line) ──
        Format(
            "sge",
            "Grid Engine script (#$ directives)",
            (".sge",),
            "bammmc.frontends.sge",
            "bammmc.backends.sge",
            lowering="bammmc.passes.lower.sge",
        ),
        # ── SGE (the SGE work adds its Format entry above this line) ──
        Format(
            "htcondor",
            "HTCondor submit description (condor_submit; ClassAd expressions inside it)",
            (".sub", ".submit", ".condor", ".jdl"),
            "bammmc.frontends.htcondor",
            "bammmc.backends.htcondor",
            lowering="bammmc.passes.lower.htcondor",
        ),
        Format(
            "flux",
            "Flux jobspec, YAML or JSON (canonical RFC 14 and V1 RFC 25)",
            (".jobspec.yaml", ".jobspec.yml", ".jobspec.json", ".jobspec"),
            "bammmc.frontends.flux",
            "bammmc.backends.flux",
            lowering="bammmc.passes.lower.flux",
        ),
        # ── Flux jobspec (the `flux` work adds its Format entry above this line) ──
        Format(
            "flux-batch",
            "Flux batch script for `flux batch` (RFC 36 `#flux:` directives)",
            (".flux",),
            "bammmc.frontends.flux_batch",
            "bammmc.backends.flux_batch",
            lowering="bammmc.passes.lower.flux_batch",
        ),
        # ── Flux batch script (the `flux-batch` work adds its Format entry above this line) ──
    )
}


def by_extension(path: str) -> Format | None:
    """The format whose extension ends ``path`` (the longest match wins)."""
    lowered = path.lower()
    best: tuple[int, Format] | None = None
    for fmt in FORMATS.values():
        for ext in fmt.extensions:
            if lowered.endswith(ext) and (best is None or len(ext) > best[0]):
                best = (len(ext), fmt)
    return best[1] if best else None


def detect(path: str | None, text: str, reporter: Reporter) -> Format | None:
    """The format of an input: by extension, else by content; E010 when neither tells."""
    if not text.strip():
        reporter.report("E001", "the input is empty", help="give a job file")
        return None
    if path:
        fmt = by_extension(path)
        if fmt is not None:
            return fmt
    matches = [fmt for fmt in FORMATS.values() if fmt.sniff(text)]
    if len(matches) == 1:
        note: Callable[[str], str | None] | None = getattr(
            matches[0].reader(), "detection_note", None
        )
        message = note(text) if note is not None else None
        if message:
            reporter.report("N001", message, help="pass `--from` to choose another reading")
        return matches[0]
    names = ", ".join(f"`{f}`" for f in FORMATS)
    if matches:
        candidates = ", ".join(f"`{f.name}`" for f in matches)
        reporter.report(
            "E010",
            f"the input could be any of {candidates}",
            help="name the format with `--from FORMAT`",
        )
        return None
    reporter.report(
        "E010",
        "cannot tell the input's format",
        notes=(
            f"neither the file extension nor the content identifies a format; formats: {names}",
        ),
        help="name the format with `--from FORMAT`",
    )
    return None


def target_for(path: str) -> Format | None:
    return by_extension(path)
