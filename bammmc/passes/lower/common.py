"""What every lowering shares: the exception of a reported value, and the one refusal of a
number the user wrote that no scheduler holds (issue #9: a 5,000-digit walltime is a coded
error where it is read, not a traceback in a pass or a writer).

A lowering reads option values with :func:`whole` (instead of ``int()``) and makes walltimes
with :func:`duration` (instead of ``Duration.from_seconds``); both report E134 at the value
and raise :class:`Invalid`, which every lowering already catches around each option.
"""

from __future__ import annotations

from fractions import Fraction

from bammmc.diagnostics.model import Reporter
from bammmc.frontends.slurm import Occurrence
from bammmc.ir.values import Duration, ValueSyntaxError, decimal_number, whole_number


class Invalid(Exception):
    """A value that is reported (an error) and left out."""


def refuse(reporter: Reporter, occ: Occurrence, exc: ValueSyntaxError) -> Invalid:
    reporter.report(
        "E134",
        exc.message,
        occ.value_span or occ.span,
        notes=("no scheduler holds a number this large",),
        help=exc.help,
    )
    return Invalid()


def whole(text: str, occ: Occurrence, reporter: Reporter) -> int:
    """The whole number ``text`` (digits the grammar or the caller checked), or E134."""
    try:
        return whole_number(text)
    except ValueSyntaxError as exc:
        raise refuse(reporter, occ, exc) from None


def decimal(text: str, occ: Occurrence, reporter: Reporter) -> Fraction:
    """The decimal number ``text`` (``1.5``, checked by the grammar or the caller), or E134."""
    try:
        return decimal_number(text)
    except ValueSyntaxError as exc:
        raise refuse(reporter, occ, exc) from None


def duration(seconds: int | None, occ: Occurrence, reporter: Reporter) -> Duration:
    """``Duration.from_seconds(seconds)``, or E134 when no scheduler holds that many."""
    try:
        return Duration.from_seconds(seconds)
    except ValueSyntaxError as exc:
        raise refuse(reporter, occ, exc) from None
