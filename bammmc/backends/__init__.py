"""Backends: IR -> output files. One module per target format, its capability table on top."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bammmc.ir.priority import DEFAULT_BAND, PriorityBand


@dataclass(frozen=True)
class OutputFile:
    """One file a backend produces. ``suffix`` is appended to the main output's stem for the
    extra files of a multi-file output ("" for the main file)."""

    text: str
    suffix: str = ""
    #: written with execute permission (a script the main file runs)
    executable: bool = False


@dataclass(frozen=True)
class WriteOptions:
    """How a backend writes, as chosen on the command line."""

    #: how script-based targets run a container image: `apptainer` or `singularity`
    container_runtime: str = "apptainer"
    #: the Grid Engine `-l` resource that carries memory per slot (`--sge-memory-resource`)
    sge_memory_resource: str = "h_vmem"
    #: the site's `LSF_UNIT_FOR_LIMITS` and `rusage[mem]` reservation (`host`, `task`), None
    #: when not given (the LSF writer writes explicit units and methods; its read-back uses them)
    lsf_unit: str | None = None
    lsf_reserve: str | None = None
    #: the canonical priority band (`--priority-range`) that `schedule.priority` is on
    band: PriorityBand = DEFAULT_BAND
    #: the main output's file name without its extension: extra files are named after it
    #: (`-o out.sub` -> `out.sh`, which the submit file names as its `executable`)
    script_stem: str = "job"
    #: write a Flux jobspec as JSON, not YAML (`-o x.jobspec.json`)
    flux_json: bool = False
    #: embed what the target cannot express in a block it ignores (`--preserve`, preserve.py)
    preserve: bool = False
    #: write the body's launcher lines for the target (`--no-rewrite-body`: only report them)
    rewrite_body: bool = True
    #: the value of a Flux jobspec's `attributes.user.bammmc` (set by preserve.py only)
    preserve_block: Mapping[str, Any] | None = None
