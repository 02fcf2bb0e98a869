"""How much of an input bammmc reads: its lines, and a script's directive text (issue 18,
item 5).

A directive costs a Lark parse of its words, about 1-5 µs a character, so a 10 MiB header of
`#SBATCH` lines (or one 9 MB `-l` list) took 20-60 s to refuse. The largest header of the
real-world corpus (`../shared/corpus/`, 600 files) holds 1.5 KB of directives in 55 lines, the
longest directive 226 characters; :data:`MAX_DIRECTIVE_TEXT` is forty times that. A script
whose directives hold more is refused (E006) at the directive that crosses it, and the rest is
not read: every script is answered in well under a second.
"""

from __future__ import annotations

from typing import Any, Final

from bammmc.diagnostics.model import Reporter, Span

#: bytes of directive lines (with their newlines) a script may hold
MAX_DIRECTIVE_TEXT: Final = 65_536


def _line_span(reporter: Reporter, line: int, offset: int, width: int) -> Span:
    """The first ``width`` characters (at most 80) of ``line``, which starts at ``offset``."""
    width = max(1, min(80, width))
    return Span(
        file=reporter.file,
        line=line,
        column=1,
        end_line=line,
        end_column=1 + width,
        start=offset,
        end=offset + width,
    )


def too_long(text: str, reporter: Reporter) -> bool:
    """Does ``text`` hold more than :data:`~bammmc.source.MAX_LINES` lines? (E006 at the first
    line past them, before a reader runs: a reader takes 10-30 µs a line.)"""
    from bammmc.source import MAX_LINES

    if text.count("\n", 0, len(text) - 1) < MAX_LINES:
        return False
    at = 0
    for _ in range(MAX_LINES):
        at = text.index("\n", at) + 1
    end = text.find("\n", at)
    reporter.report(
        "E006",
        f"the input has more than {MAX_LINES:,} lines, more than bammmc reads",
        _line_span(reporter, MAX_LINES + 1, at, (len(text) if end < 0 else end) - at),
        notes=("the longest job description of the real-world corpus has 665 lines",),
        help="check that this is the job file meant; keep long data (item lists, embedded "
        "files) in a file the job reads",
    )
    return True


class DirectiveBudget:
    """Counts the directive text read; :meth:`spend` says whether a directive is still read.

    >>> from bammmc.diagnostics.model import Reporter
    >>> budget = DirectiveBudget(Reporter(), "#SBATCH", limit=20)
    >>> budget.spend("#SBATCH -n 1", 1, 0), budget.spend("#SBATCH -N 2", 2, 13)
    (True, False)
    """

    def __init__(self, reporter: Reporter, magic: str, limit: int = MAX_DIRECTIVE_TEXT) -> None:
        self.reporter = reporter
        self.magic = magic
        self.left = limit
        self.limit = limit

    def spend(self, text: str, line: int, offset: int) -> bool:
        """Take the directive ``text`` (on ``line``, at ``offset``) from the budget; past the
        budget report E006 there and answer False (the caller reads no further directive)."""
        self.left -= len(text) + 1
        if self.left >= 0:
            return True
        self.reporter.report(
            "E006",
            f"the script's `{self.magic}` directives hold more than {self.limit // 1024} KiB "
            "of text, more than bammmc reads",
            _line_span(self.reporter, line, offset, len(text)),
            notes=("the directives of a real job hold a few kilobytes",),
            help="check that this is the job script meant; a long list (nodes, variables) "
            "belongs in a file the job reads",
        )
        return False

    def spend_token(self, tok: Any) -> bool:
        """:meth:`spend` for a Lark token."""
        return self.spend(str(tok), tok.line or 1, tok.start_pos or 0)
