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
#: lines bammmc reads of one input (E006 beyond): a reader takes 10-30 µs a line, and the
#: longest job file of the real-world corpus has 665 lines
MAX_LINES: Final = 20_000


@dataclass
class Source:
    """One input: its display name, path (``None`` for stdin) and text."""

    name: str
    path: str | None
    text: str


def read_input(path: str, reporter: Reporter, max_size: int = MAX_INPUT_SIZE) -> Source | None:
    """Read ``path`` (``-`` = standard input) as UTF-8 text, or report why not.

    Only a regular file or a pipe is read, and never more than ``max_size + 1`` bytes, so a
    device (``/dev/zero``), a directory or a pipe nobody writes to is an E007, never a hang."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            data = sys.stdin.buffer.read(max_size + 1)
        else:
            read = _read_path(path, reporter, max_size)
            if read is None:
                return None
            data = read
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


def read_bounded(path: str, max_size: int = MAX_INPUT_SIZE) -> tuple[bytes | None, str]:
    """``(bytes, "")`` of a regular file or a pipe of at most ``max_size`` bytes, or ``(None,
    why)``: the same rules as :func:`read_input`, for files that are not the job (the
    configuration: `--config /dev/zero`, a FIFO, a 3 GB `bammmc.toml`)."""
    reporter = Reporter(path)
    try:
        data = _read_path(path, reporter, max_size)
    except OSError as exc:
        return None, str(exc.strerror or exc)
    if data is None:
        return None, reporter.diagnostics[0].message if reporter.diagnostics else "unreadable"
    if len(data) > max_size:
        return None, f"`{path}` is more than {max_size:,} bytes"
    return data, ""


def _kind(mode: int) -> str | None:
    """What a file that is neither a regular file nor a pipe is, or None when it is one."""
    if stat.S_ISREG(mode) or stat.S_ISFIFO(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _read_path(path: str, reporter: Reporter, max_size: int) -> bytes | None:
    """The bytes of a regular file or a pipe (at most ``max_size + 1``), or None (reported)."""
    kind = _kind(os.stat(path).st_mode)  # before opening: opening a device can act on it
    if kind is None:
        # O_NONBLOCK: opening a pipe with no writer returns at once instead of waiting for one
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        try:
            st = os.fstat(fd)  # the file opened, not the one stat() saw (it may have changed)
            kind = _kind(st.st_mode)
            if kind is None:
                if stat.S_ISREG(st.st_mode) and st.st_size > max_size:
                    _too_large(reporter, path, st.st_size, max_size)
                    return None
                data = _read_fd(fd, max_size + 1, stat.S_ISFIFO(st.st_mode))
                if data is None:
                    reporter.report(
                        "E007",
                        f"`{path}` is a pipe that no program is writing to",
                        help="start the program that writes the job first, or give a file",
                    )
                return data
        finally:
            os.close(fd)
    if kind == "a directory" or kind == "not a regular file":
        what = f"is {kind}"
    else:
        what = f"is {kind}, not a regular file"
    reporter.report("E007", f"`{path}` {what}", help="give a job file")
    return None


def _read_fd(fd: int, limit: int, pipe: bool) -> bytes | None:
    """Up to ``limit`` bytes from ``fd``; None for a pipe with no writer."""
    chunks: list[bytes] = []
    size = 0
    if pipe:
        try:
            first = os.read(fd, limit)
        except BlockingIOError:  # a writer, no data yet: wait for it like `cat` would
            first = None
        if first == b"":
            return None
        os.set_blocking(fd, True)
        if first:
            chunks.append(first)
            size = len(first)
    while size < limit:
        chunk = os.read(fd, min(1 << 20, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


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
