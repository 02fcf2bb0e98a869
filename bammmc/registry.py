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
        """Does the content look like this format, and like no other? (`#BSUB` lines in a
        Slurm script are foreign there: LSF's sniffer says no.)"""
        sniffer: Callable[[str], bool] = self.reader().sniff
        return sniffer(text)

    def marks(self, text: str) -> bool:
        """Does the text hold this format's own markers at all (its directive prefix, its
        submit commands, its keys), whatever else it holds? The sniffer when the reader has
        no ``marks`` of its own."""
        marker: Callable[[str], bool] = getattr(self.reader(), "marks", self.reader().sniff)
        return marker(text)

    @property
    def family(self) -> str:
        """Formats that share their directives: PBS Pro and Torque (`#PBS`)."""
        return "pbs" if self.name == "torque" else self.name


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
    """The format of an input: by extension, unless the content decisively says otherwise,
    else by content; E010 when neither tells.

    Content beats the extension when the text holds none of the extension's format's own
    markers and the markers of exactly one other format (a `run.sub` holding `#!/bin/bash`
    and `#SBATCH` lines is a Slurm script), and a `.pbs`/`.qsub` file with Torque-only
    constructs (`nodes=N:ppn=M`, `-t`, `-d`) is Torque; N002 says so. docs/cli.md."""
    if not text.strip():
        reporter.report("E001", "the input is empty", help="give a job file")
        return None
    if path:
        fmt = by_extension(path)
        if fmt is not None:
            other = _decisively_other(fmt, text)
            if other is None:
                return fmt
            ext = next(e for e in fmt.extensions if path.lower().endswith(e))
            reporter.report(
                "N002",
                f"read as `{other.name}`, not as `{fmt.name}` (its `{ext}` extension): "
                + _why(fmt, other),
                help=f"pass `--from {fmt.name}` to read it as `{fmt.name}` all the same"
                if fmt.family == other.family
                else f"nothing to do if that is right; a `{other.extensions[0]}` extension says so",
            )
            return other
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


#: what each format's own markers are, in the messages of N002 and E019
MARKERS: dict[str, str] = {
    "splat": "`apiVersion: bammm.io/…`",
    "slurm": "`#SBATCH` lines",
    "pbs": "`#PBS` lines",
    "torque": "`#PBS` lines",
    "lsf": "`#BSUB` lines",
    "sge": "`#$` lines",
    "htcondor": "submit commands with a `queue` statement",
    "flux": "jobspec keys (`version`, `resources`, `tasks`)",
    "flux-batch": "`#flux:` lines",
}


def _why(fmt: Format, other: Format) -> str:
    if fmt.family == other.family:  # `.pbs` with Torque-only constructs
        return "its `#PBS` lines use Torque-only constructs (`nodes=…:ppn=`, `-t`, `-d`)"
    return (
        f"the file holds {MARKERS.get(other.name, 'the markers of ' + other.name)} and no "
        f"{MARKERS.get(fmt.name, 'markers of ' + fmt.name)}"
    )


#: formats whose directives are comment lines at the top of a script
SCRIPT_FAMILIES: frozenset[str] = frozenset({"slurm", "pbs", "lsf", "sge", "flux-batch"})


def _header(text: str) -> str:
    """The lines before the first command (blank lines and comments): where sbatch, qsub and
    bsub read their directives. A `#PBS` line in a script's body is no PBS directive."""
    lines = text[:65536].split("\n")
    end = next(
        (i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")),
        len(lines),
    )
    return "\n".join(lines[:end]) + "\n"


def _others(fmt: Format, text: str) -> dict[str, Format]:
    """The formats of other families the content is written in: a script format by the
    directives of its header only, the others by their whole text."""
    head = _header(text)
    return {
        f.family: f
        for f in FORMATS.values()
        if f.family != fmt.family and f.sniff(head if f.family in SCRIPT_FAMILIES else text)
    }


def _decisively_other(fmt: Format, text: str) -> Format | None:
    """The one other format the content is written in when it holds none of ``fmt``'s own
    markers (``None``: ``fmt`` it is, or the content does not say which other)."""
    if fmt.name == "pbs" and FORMATS["torque"].sniff(text):
        return FORMATS["torque"]
    if fmt.marks(text):
        return None
    families = _others(fmt, text)
    return next(iter(families.values())) if len(families) == 1 else None


def check_explicit(fmt: Format, text: str, reporter: Reporter) -> bool:
    """`--from FORMAT` on a file whose job directives are all of another scheduler (no `#PBS`
    line but `#SBATCH` lines under `--from pbs`) is E019 with the format it is written in:
    read as asked, every directive would be a comment and the job another one. False then."""
    if not text.strip() or fmt.marks(text):
        return True
    families = _others(fmt, text)
    if len(families) != 1:
        return True
    (other,) = families.values()
    if other.family == "pbs":
        other = FORMATS["torque"] if FORMATS["torque"].sniff(text) else FORMATS["pbs"]
    reporter.report(
        "E019",
        f"`--from {fmt.name}`, but the file is written for `{other.name}`: it holds "
        f"{MARKERS.get(other.name, other.name)} and no {MARKERS.get(fmt.name, fmt.name)}",
        notes=(
            f"read as `{fmt.name}`, none of its directives would be read, and the job would "
            "be another one",
        ),
        help=f"did you mean `--from {other.name}`?",
    )
    return False


def target_for(path: str) -> Format | None:
    return by_extension(path)
