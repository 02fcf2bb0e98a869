"""The Torque reader's front half (format ``torque``): the PBS scanner in its Torque dialect.

Torque differs from PBS Pro in options (`-t`, `-d`, `-w`, `-n`…), resources (`nodes=N:ppn=M`)
and CRLF handling (converted, not refused): shared/docs/formats/torque.md. Siblings:
``frontends/pbs.py``, ``passes/lower/torque.py``, ``backends/torque.py``.
"""

from __future__ import annotations

from bammmc.diagnostics.model import Reporter
from bammmc.frontends.pbs import PbsScript, marks
from bammmc.frontends.pbs import scan as _scan
from bammmc.frontends.pbs import sniff_torque as sniff

__all__ = ["marks", "scan", "sniff"]


def scan(text: str, reporter: Reporter) -> PbsScript:
    return _scan(text, reporter, dialect="torque")
