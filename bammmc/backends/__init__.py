"""Backends: IR -> output files. One module per target format, its capability table on top."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OutputFile:
    """One file a backend produces. ``suffix`` is appended to the main output's stem for the
    extra files of a multi-file output ("" for the main file)."""

    text: str
    suffix: str = ""
