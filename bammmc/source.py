"""Reading inputs safely: size limits, encodings, unreadable paths, as coded diagnostics.

Every frontend gets its text through :func:`decode_text` (bytes -> str) and the CLI reads files
through :func:`read_input`, so a hostile or broken file becomes an E0xx diagnostic, never a
traceback or a hang.
"""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass
from typing import Final

from bammmc.diagnostics.model import Reporter, Span

#: Default input size limit (``--max-input-size``): no job description comes near it.
MAX_INPUT_SIZE: Final = 10 * 1024 * 1024


@dataclass
class Source:
    """One input: its display name, path (``None`` for stdin) and text."""

    name: str
    path: str | None
    text: str


def read_input(path: str, reporter: Reporter, max_size: int = MAX_INPUT_SIZE) -> Source | None:
    """Read ``path`` (``-`` = standard input) as UTF-8 text, or report why not."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            data = sys.stdin.buffer.read(max_size + 1)
        else:
            st = os.stat(path)
            if stat.S_ISDIR(st.st_mode):
                reporter.report("E007", f"`{path}` is a directory", help="give a job file")
                return None
            if not stat.S_ISREG(st.st_mode) and not stat.S_ISFIFO(st.st_mode):
                reporter.report("E007", f"`{path}` is not a regular file", help="give a job file")
                return None
            if st.st_size > max_size:
                _too_large(reporter, path, st.st_size, max_size)
                return None
            with open(path, "rb") as fh:
                data = fh.read(max_size + 1)
    except OSError as exc:
        reporter.report("E007", f"cannot read `{name}`: {exc.strerror or exc}")
        return None
    if len(data) > max_size:
        _too_large(reporter, name, None, max_size)
        return None
    text = decode_text(data, reporter)
    if text is None:
        return None
    return Source(name, None if path == "-" else path, text)


def _too_large(reporter: Reporter, name: str, size: int | None, max_size: int) -> None:
    shown = f"{size:,} bytes" if size is not None else f"more than {max_size:,} bytes"
    reporter.report(
        "E005",
        f"`{name}` is {shown}; the limit is {max_size:,}",
        help="give the right file, or raise the limit with `--max-input-size BYTES`",
    )


def decode_text(data: bytes, reporter: Reporter) -> str | None:
    """UTF-8 text from bytes (a BOM is dropped, CRLF kept), or E002."""
    nul = data.find(b"\x00")
    if nul >= 0:
        reporter.report(
            "E002",
            "the input contains NUL bytes: it is binary, not a job description",
            _offset_span(reporter.file, data, nul),
            help="give the text file itself; convert UTF-16 files with `iconv -f UTF-16 -t UTF-8`",
        )
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        reporter.report(
            "E002",
            f"the input is not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}",
            _offset_span(reporter.file, data, exc.start),
            help="convert the file to UTF-8 (`iconv -f LATIN1 -t UTF-8`)",
        )
        return None
    return text.removeprefix("\ufeff")


def _offset_span(file: str | None, data: bytes, offset: int) -> Span:
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return Span(
        file=file,
        line=line,
        column=col,
        end_line=line,
        end_column=col + 1,
        start=offset,
        end=offset + 1,
    )
