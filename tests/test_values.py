"""Table-driven tests of SPLAT's value languages (``bammmc/ir/values.py``, ``values.lark``).

Every table row asserts concrete numbers: bytes, cores, seconds, indices, template parts,
signal numbers, and for invalid input the diagnostic code and the exact characters the error
points at (``text[start:end]``; ``end=None`` means "to the end", as ``ir/decode.py`` reads it).
"""

from __future__ import annotations

import datetime as dt
import re
from fractions import Fraction

import pytest

from bammmc.ir.values import (
    SIZE_UNITS,
    TEMPLATE_VARIABLES,
    VALUE_TYPES,
    Count,
    Cpu,
    DateTime,
    Duration,
    IndexSpec,
    Signal,
    Size,
    Template,
    Value,
    ValueSyntaxError,
)

KI, MI, GI, TI = 1024, 1024**2, 1024**3, 1024**4


def fail(cls: type[Value], raw: str | int | float) -> ValueSyntaxError:
    with pytest.raises(ValueSyntaxError) as info:
        cls.parse(raw)
    return info.value


def pointed(exc: ValueSyntaxError, text: str) -> str:
    """The characters an error points at, read the way ``ir/decode.py`` reads the span."""
    assert 0 <= exc.start <= len(text)
    end = exc.end if exc.end is not None else len(text)
    assert exc.start <= end <= len(text)
    return text[exc.start : end]


def backticked(text: str | None) -> list[str]:
    return re.findall(r"`([^`]*)`", text or "")


# ---- Size ------------------------------------------------------------------------------------

SIZE_VALID = [
    # (raw, bytes, unit, scope)
    ("4Gi", 4 * GI, "Gi", None),
    ("4G", 4 * 10**9, "G", None),  # Kubernetes decimal
    ("4096M", 4096 * 10**6, "M", None),
    ("4096", 4096 * MI, None, None),  # bare = MiB
    (4096, 4096 * MI, None, None),  # YAML integer
    ("512", 512 * MI, None, None),
    ("0.5Gi", GI // 2, "Gi", None),
    ("1.5", 3 * MI // 2, None, None),
    (1.5, 3 * MI // 2, None, None),  # YAML float
    ("4Ki", 4 * KI, "Ki", None),
    ("4Mi", 4 * MI, "Mi", None),
    ("2Ti", 2 * TI, "Ti", None),
    ("1Pi", 1024**5, "Pi", None),
    ("1Ei", 1024**6, "Ei", None),
    ("4KiB", 4 * KI, "KiB", None),
    ("4MiB", 4 * MI, "MiB", None),
    ("4GiB", 4 * GI, "GiB", None),
    ("4k", 4000, "k", None),
    ("4K", 4000, "K", None),
    ("3T", 3 * 10**12, "T", None),
    ("1P", 10**15, "P", None),
    ("1E", 10**18, "E", None),
    # PBS suffixes are powers of 1024 (pbs_resources: kb = 1024 bytes)
    ("4gb", 4 * GI, "gb", None),
    ("512kb", 512 * KI, "kb", None),
    ("1tb", TI, "tb", None),
    ("100b", 100, "b", None),
    ("100B", 100, "B", None),
    ("10w", 80, "w", None),  # words of 8 bytes
    ("2kw", 2 * 8 * KI, "kw", None),
    ("4mb", 4 * MI, "mb", None),
    ("4KB", 4 * KI, "KB", None),
    ("4MB", 4 * MI, "MB", None),
    ("4GB", 4 * GI, "GB", None),
    ("4Gb", 4 * GI, "Gb", None),
    ("0.3b", 1, "b", None),  # rounded up to a whole byte
    ("0", 0, None, None),
    # scopes
    ("2G/node", 2 * 10**9, "G", "node"),
    ("2Gi/cpu", 2 * GI, "Gi", "cpu"),
    ("1Gi/task", GI, "Gi", "task"),
    ("16Gi/gpu", 16 * GI, "Gi", "gpu"),
    ("4gb/chunk", 4 * GI, "gb", "chunk"),
    ("1Gi/slot", GI, "Gi", "slot"),
    ("1Gi/process", GI, "Gi", "process"),
    ("64Gi/job", 64 * GI, "Gi", "job"),
    ("512/node", 512 * MI, None, "node"),
]


@pytest.mark.parametrize(("raw", "nbytes", "unit", "scope"), SIZE_VALID)
def test_size_valid(
    raw: str | int | float, nbytes: int, unit: str | None, scope: str | None
) -> None:
    size = Size.parse(raw)
    assert (size.bytes, size.unit, size.scope) == (nbytes, unit, scope)
    assert size.raw == raw
    assert size.wire() == raw
    assert size.mebibytes == Fraction(nbytes, MI)


SIZE_INVALID = [
    # (raw, characters pointed at, text in message or help)
    ("4XB", "XB", "unexpected `XB`"),
    ("4m", "m", "`4Mi`"),  # ambiguous: milli (K8s) or MiB (Slurm); help offers Mi and M
    ("4g", "g", "`4Gi`"),
    ("4t", "t", "`4Ti`"),
    ("4p", "p", "`4Pi`"),
    ("4 G", " ", "unexpected ` `"),
    ("-4G", "-", "unexpected `-`"),
    ("G", "G", "unexpected `G`"),
    ("4G/rack", "rack", "unexpected `rack`"),
    ("", "", "found nothing"),
    ("4.5.6", ".", "unexpected `.`"),
    ("4G/", "", "ends too early"),
    ("4G/node/cpu", "/", "unexpected `/`"),
    ("4Gi ", " ", "unexpected ` `"),
    (" 4Gi", " ", "unexpected ` `"),
    ("4GiB5", "5", "unexpected `5`"),
    ("4gigabytes", "gigabytes", "unexpected `gigabytes`"),
    (".5Gi", ".", "unexpected `.`"),
    ("4e9", "e", "unexpected `e`"),
    ("4Gi/Node", "Node", "unexpected `Node`"),  # scopes are lower-case
]


@pytest.mark.parametrize(("raw", "at", "said"), SIZE_INVALID)
def test_size_invalid(raw: str, at: str, said: str) -> None:
    exc = fail(Size, raw)
    assert exc.code == "E105"
    assert pointed(exc, raw) == at
    assert said in f"{exc.message} {exc.help}"


def test_size_ambiguous_m_help_offers_both_spellings() -> None:
    exc = fail(Size, "4m")
    assert (exc.start, exc.end) == (1, 2)
    assert "ambiguous" in exc.message
    assert backticked(exc.help) == ["4Mi", "4M"]
    assert [Size.parse(s).bytes for s in backticked(exc.help)] == [4 * MI, 4 * 10**6]


@pytest.mark.parametrize("unit", sorted(SIZE_UNITS))
def test_size_every_unit_multiplies(unit: str) -> None:
    assert Size.parse(f"3{unit}").bytes == 3 * SIZE_UNITS[unit]
    assert Size.parse(f"3{unit}/node").scope == "node"


FROM_BYTES = [
    # (bytes, shortest exact spelling)
    (0, "0b"),
    (1, "1b"),
    (1500, "1500b"),
    (1000, "1k"),
    (KI, "1Ki"),
    (3 * GI, "3Gi"),
    (4096 * MI, "4Gi"),
    (4 * 10**9, "4G"),
    (10**6, "1M"),
    (MI, "1Mi"),
    (2048000, "2048k"),
    (5 * 1024**6, "5Ei"),
    (7 * 10**18, "7E"),
]


@pytest.mark.parametrize(("nbytes", "spelling"), FROM_BYTES)
def test_size_from_bytes(nbytes: int, spelling: str) -> None:
    size = Size.from_bytes(nbytes)
    assert size.raw == spelling
    assert size.bytes == nbytes
    assert size.scope is None
    assert Size.parse(size.raw).bytes == nbytes


def test_size_from_bytes_with_scope() -> None:
    size = Size.from_bytes(2 * GI, scope="node")
    assert (size.raw, size.bytes, size.scope) == ("2Gi/node", 2 * GI, "node")


def test_size_equality_is_by_spelling_and_same_is_by_meaning() -> None:
    a, b = Size.parse("4Gi"), Size.parse("4096")
    assert a.bytes == b.bytes
    assert a != b
    assert a.same(b)
    assert a == Size.parse("4Gi")
    assert hash(a) == hash(Size.parse("4Gi"))
    assert not a.same(Size.parse("4Gi/node"))
    assert Size.parse("4096") != Size.parse(4096)  # str and int spellings differ


def test_size_with_scope() -> None:
    assert Size.parse("4Gi").with_scope("node").raw == "4Gi/node"
    assert Size.parse("4Gi/node").with_scope("cpu").scope == "cpu"
    assert Size.parse("4Gi/node").with_scope(None).raw == "4Gi"
    assert Size.parse("4Gi/node").with_scope(None).bytes == 4 * GI


def test_values_are_immutable() -> None:
    size = Size.parse("4Gi")
    with pytest.raises(AttributeError):
        size.bytes = 1


# ---- Cpu -------------------------------------------------------------------------------------

CPU_VALID = [
    ("4", Fraction(4), True),
    ("0.5", Fraction(1, 2), False),
    ("500m", Fraction(1, 2), False),
    ("1500m", Fraction(3, 2), False),
    ("2000m", Fraction(2), True),
    (2, Fraction(2), True),
    (0.25, Fraction(1, 4), False),
    ("1.5m", Fraction(3, 2000), False),
]


@pytest.mark.parametrize(("raw", "cores", "whole"), CPU_VALID)
def test_cpu_valid(raw: str | int | float, cores: Fraction, whole: bool) -> None:
    cpu = Cpu.parse(raw)
    assert cpu.cores == cores
    assert cpu.whole is whole
    assert cpu.raw == raw


CPU_INVALID = [
    # (raw, code, characters pointed at)
    ("0", "E118", "0"),
    ("0m", "E118", "0m"),
    ("0.0", "E118", "0.0"),
    ("abc", "E105", "abc"),
    ("4Gi", "E105", "Gi"),
    ("", "E105", ""),
    ("-1", "E105", "-"),
    ("4 ", "E105", " "),
    ("500 m", "E105", " "),
    ("4mm", "E105", "m"),
    ("4/node", "E105", "/"),
]


@pytest.mark.parametrize(("raw", "code", "at"), CPU_INVALID)
def test_cpu_invalid(raw: str, code: str, at: str) -> None:
    exc = fail(Cpu, raw)
    assert exc.code == code
    assert pointed(exc, raw) == at


# ---- Count -----------------------------------------------------------------------------------

COUNT_VALID = [
    ("2", Fraction(2), None),
    ("0.5", Fraction(1, 2), None),
    ("4/node", Fraction(4), "node"),
    ("1/gpu", Fraction(1), "gpu"),
    ("8/task", Fraction(8), "task"),
    (3, Fraction(3), None),
    ("0", Fraction(0), None),
]


@pytest.mark.parametrize(("raw", "amount", "scope"), COUNT_VALID)
def test_count_valid(raw: str | int | float, amount: Fraction, scope: str | None) -> None:
    count = Count.parse(raw)
    assert (count.amount, count.scope) == (amount, scope)


COUNT_INVALID = [
    ("", ""),
    ("x", "x"),
    ("4/rack", "rack"),
    ("-1", "-"),
    ("4/", ""),
    ("2 /node", " "),
    ("4Gi", "Gi"),
    ("500m", "m"),
    ("4//node", "/"),
]


@pytest.mark.parametrize(("raw", "at"), COUNT_INVALID)
def test_count_invalid(raw: str, at: str) -> None:
    exc = fail(Count, raw)
    assert exc.code == "E105"
    assert pointed(exc, raw) == at


# ---- Duration --------------------------------------------------------------------------------

DURATION_VALID = [
    # ISO 8601
    ("PT2H30M", 9000),
    ("P1DT2H", 93600),
    ("PT90S", 90),
    ("PT0.5S", 1),  # rounded up to a whole second
    ("P1D", 86400),
    ("P1DT2H3M4S", 93784),
    ("PT1.5H", 5400),
    ("P1.5D", 129600),
    ("PT0S", 0),
    ("PT45S", 45),
    # clocks
    ("2:30:00", 9000),
    ("0:01:30", 90),
    ("0:00:45", 45),  # pitfall 15: 45 s is not 0
    ("100:00:00", 360000),
    ("2-12:00:00", 216000),  # Slurm D-HH:MM:SS
    ("2-12", 216000),  # D-HH
    ("1-12", 129600),  # pitfall 14: slurm2flux read this as 72 s
    ("2-12:30", 217800),  # pitfall 14: D-HH:MM, not 2 h 12 min 30 s
    ("0-0:0:1", 1),
    # suffixed
    ("150m", 9000),
    ("1h30m", 5400),
    ("2h30m", 9000),
    ("9000s", 9000),
    ("2d", 172800),
    ("1d2h3m4s", 93784),
    ("30m1h", 5400),
    ("1.5h", 5400),
    ("1hour", 3600),
    ("2hours", 7200),
    ("1hr", 3600),
    ("90min", 5400),
    ("2mins", 120),
    ("45secs", 45),
    ("1day", 86400),
    ("3days", 259200),
    ("1minute", 60),
    ("10seconds", 10),
    # bare numbers are seconds (pitfall 13: not Slurm's minutes)
    ("9000", 9000),
    (9000, 9000),
    ("0", 0),
    ("59", 59),
    # no limit
    ("unlimited", None),
    ("UNLIMITED", None),
    ("infinite", None),
    ("INFINITE", None),
    ("inf", None),
]


@pytest.mark.parametrize(("raw", "seconds"), DURATION_VALID)
def test_duration_valid(raw: str | int | float, seconds: int | None) -> None:
    duration = Duration.parse(raw)
    assert duration.seconds == seconds
    assert duration.unlimited is (seconds is None)
    assert duration.raw == raw


DURATION_INVALID = [
    # (raw, characters pointed at, text in message or help)
    ("1:30", "1:30", "ambiguous"),  # pitfall 12: Slurm MM:SS vs LSF HH:MM
    ("1:90:00", "1:90:00", "below 60"),
    ("0:00:60", "0:00:60", "below 60"),
    ("2-12:60", "2-12:60", "below 60"),
    ("PT", "PT", "no amount"),
    ("P", "P", "no amount"),
    ("P1DT", "T", "`T` with no hours"),
    ("1h1h", "h", "twice"),
    ("1d2d", "d", "twice"),
    ("1h2hours", "hours", "twice"),
    ("abc", "abc", "unexpected `abc`"),
    ("-5", "-", "unexpected `-`"),
    ("1:2:3:4", "1:2:3:4", "too many fields"),
    ("2-12:00:00:00", "2-12:00:00:00", "too many fields"),
    ("2-", "", "ends too early"),
    ("1h30", "", "ends too early"),
    ("1 h", " ", "unexpected ` `"),
    ("0.5", "0.5", "whole number"),  # bare fractional seconds
    ("1.5:00:00", "1.5", "whole number"),
    ("PT1H1H", "H", "unexpected `H`"),
    ("PT2h", "h", "unexpected `h`"),  # ISO designators are upper-case
    ("pt2h", "pt", "unexpected `pt`"),
    ("", "", "found nothing"),
    ("Unlimited", "Unlimited", "unexpected"),
    ("1w", "w", "unexpected `w`"),
    ("2:30:00 ", " ", "unexpected ` `"),
]


@pytest.mark.parametrize(("raw", "at", "said"), DURATION_INVALID)
def test_duration_invalid(raw: str, at: str, said: str) -> None:
    exc = fail(Duration, raw)
    assert exc.code == "E106"
    assert pointed(exc, raw) == at
    assert said in f"{exc.message} {exc.help}"


def test_two_field_duration_help_offers_both_readings() -> None:
    exc = fail(Duration, "1:30")
    assert exc.help is not None
    assert "minutes:seconds" in exc.help
    assert "hours:minutes" in exc.help
    readings = [Duration.parse(s).seconds for s in backticked(exc.help)]
    assert readings == [90, 5400]


FROM_SECONDS = [
    (0, "PT0S"),
    (1, "PT1S"),
    (59, "PT59S"),
    (60, "PT1M"),
    (90, "PT1M30S"),
    (3600, "PT1H"),
    (9000, "PT2H30M"),
    (86400, "P1D"),
    (86401, "P1DT1S"),
    (93600, "P1DT2H"),
    (90061, "P1DT1H1M1S"),
    (216000, "P2DT12H"),
    (None, "unlimited"),
]


@pytest.mark.parametrize(("seconds", "spelling"), FROM_SECONDS)
def test_duration_from_seconds(seconds: int | None, spelling: str) -> None:
    duration = Duration.from_seconds(seconds)
    assert duration.raw == spelling
    assert duration.seconds == seconds
    assert Duration.parse(spelling).seconds == seconds


# ---- IndexSpec -------------------------------------------------------------------------------

INDICES_VALID = [
    # (raw, indices, throttle, has_step, is_list)
    ("0-99", list(range(100)), None, False, False),
    ("1-50:2", list(range(1, 51, 2)), None, True, False),
    ("0-999%50", list(range(1000)), 50, False, False),
    ("1,3,7-12", [1, 3, 7, 8, 9, 10, 11, 12], None, False, True),
    ("5", [5], None, False, False),
    (5, [5], None, False, False),
    ("1-10:3%2", [1, 4, 7, 10], 2, True, False),
    ("1-7:3%2", [1, 4, 7], 2, True, False),
    ("0-99%10", list(range(100)), 10, False, False),
    ("0-0", [0], None, False, False),
    ("1-3,2-4", [1, 2, 3, 4], None, False, True),  # overlaps counted once
    ("3,1,2", [3, 1, 2], None, False, True),  # order as written
    ("0-9:20", [0], None, True, False),  # step past the end
    ("1,3-9:2%1", [1, 3, 5, 7, 9], 1, True, True),
]


@pytest.mark.parametrize(("raw", "indices", "throttle", "has_step", "is_list"), INDICES_VALID)
def test_indices_valid(
    raw: str | int | float, indices: list[int], throttle: int | None, has_step: bool, is_list: bool
) -> None:
    spec = IndexSpec.parse(raw)
    assert spec.indices() == indices
    assert list(spec) == indices
    assert len(spec) == len(indices)
    assert spec.throttle == throttle
    assert spec.has_step is has_step
    assert spec.is_list is is_list


def test_indices_ranges() -> None:
    assert IndexSpec.parse("1,3,7-12%2").ranges == ((1, 1, 1), (3, 3, 1), (7, 12, 1))
    assert IndexSpec.parse("1-50:2").ranges == ((1, 50, 2),)


INDICES_INVALID = [
    # (raw, characters pointed at, text in message or help)
    ("10-1", "10-1", "`1-10`"),  # help offers the range the right way round
    ("1,10-1,3", "10-1", "ends before it starts"),
    ("1-", "", "ends too early"),
    ("%5", "%", "unexpected `%`"),
    ("1-5:0", "0", "step must be at least 1"),
    ("1-5%0", "0", "throttle must be at least 1"),
    ("a-b", "a", "unexpected `a`"),
    ("1,,2", ",", "unexpected `,`"),
    ("1-5,", "", "ends too early"),
    ("", "", "found nothing"),
    ("1.5", "1.5", "whole number"),
    ("1-5%1.5", "1.5", "whole number"),
    ("1-5:2.5", "2.5", "whole number"),
    ("-1", "-", "unexpected `-`"),
    ("1-5:2:3", ":", "unexpected `:`"),
    ("1-5%2%3", "%", "unexpected `%`"),
    (" 1-5", " ", "unexpected ` `"),
    ("1 - 5", " ", "unexpected ` `"),
    ("1:2", ":", "unexpected `:`"),  # a step needs a range
    ("[1-5]", "[", "unexpected `[`"),
]


@pytest.mark.parametrize(("raw", "at", "said"), INDICES_INVALID)
def test_indices_invalid(raw: str, at: str, said: str) -> None:
    exc = fail(IndexSpec, raw)
    assert exc.code == "E107"
    assert pointed(exc, raw) == at
    assert said in f"{exc.message} {exc.help}"


# ---- Template --------------------------------------------------------------------------------

TEMPLATE_VALID = [
    # (raw, parts)
    ("{job_id}", (("var", "job_id"),)),
    ("{array_job_id}", (("var", "array_job_id"),)),
    ("{array_index}", (("var", "array_index"),)),
    ("{job_name}", (("var", "job_name"),)),
    ("{node_hostname}", (("var", "node_hostname"),)),
    ("{task_index}", (("var", "task_index"),)),
    (
        "/scratch/{job_name}-{job_id}_{array_index}.out",
        (
            ("text", "/scratch/"),
            ("var", "job_name"),
            ("text", "-"),
            ("var", "job_id"),
            ("text", "_"),
            ("var", "array_index"),
            ("text", ".out"),
        ),
    ),
    ("{job_id}.{{x}}", (("var", "job_id"), ("text", ".{x}"))),
    ("a{{b}}c", (("text", "a{b}c"),)),
    ("{{", (("text", "{"),)),
    ("}}{{", (("text", "}{"),)),
    ("{{{job_id}}}", (("text", "{"), ("var", "job_id"), ("text", "}"))),
    ("{job_id}}}", (("var", "job_id"), ("text", "}"))),
    ("plain.txt", (("text", "plain.txt"),)),
    ("/tmp/out %j $(Cluster).log", (("text", "/tmp/out %j $(Cluster).log"),)),
    ("", ()),
    (42, (("text", "42"),)),
]


@pytest.mark.parametrize(("raw", "parts"), TEMPLATE_VALID)
def test_template_valid(raw: str | int | float, parts: tuple[tuple[str, str], ...]) -> None:
    template = Template.parse(raw)
    assert template.parts == parts
    assert template.variables() == [name for kind, name in parts if kind == "var"]


def test_template_all_variables_known() -> None:
    text = "-".join(f"{{{name}}}" for name in TEMPLATE_VARIABLES)
    assert Template.parse(text).variables() == list(TEMPLATE_VARIABLES)
    assert len(TEMPLATE_VARIABLES) == 6


SLURM_TOKENS = {"job_id": "%j", "array_job_id": "%A", "array_index": "%a", "job_name": "%x"}

TEMPLATE_RENDER = [
    ("/scratch/{job_name}-{array_job_id}_{array_index}.out", "/scratch/%x-%A_%a.out"),
    ("out_{job_id}.log", "out_%j.log"),
    ("{{literal}}-{job_id}", "{literal}-%j"),
    ("no variables", "no variables"),
    ("", ""),
]


@pytest.mark.parametrize(("raw", "rendered"), TEMPLATE_RENDER)
def test_template_render(raw: str, rendered: str) -> None:
    assert Template.parse(raw).render(SLURM_TOKENS) == rendered


def test_template_render_escapes_text_only() -> None:
    template = Template.parse("100%_{job_id}.log")
    assert template.render(SLURM_TOKENS, escape=lambda s: s.replace("%", "%%")) == "100%%_%j.log"


def test_template_render_missing_variable_raises_key_error() -> None:
    with pytest.raises(KeyError):
        Template.parse("{node_hostname}.out").render(SLURM_TOKENS)


TEMPLATE_INVALID = [
    # (raw, characters pointed at, text in message or help)
    ("{jobid}", "{jobid}", "`{job_id}`"),  # did you mean
    ("out-{JOB_ID}.log", "{JOB_ID}", "`{job_id}`"),
    ("{foo}", "{foo}", "`{{`"),  # help lists the variables and the escape
    ("{", "", "ends too early"),
    ("}", "}", "unexpected `}`"),
    ("a}b", "}", "unexpected `}`"),
    ("{job_id", "", "ends too early"),
    ("{job_id}}", "}", "unexpected `}`"),
    ("{1}", "1", "unexpected `1`"),
    ("{}", "}", "unexpected `}`"),
    ("{{job_id}", "}", "unexpected `}`"),
]


@pytest.mark.parametrize(("raw", "at", "said"), TEMPLATE_INVALID)
def test_template_invalid(raw: str, at: str, said: str) -> None:
    exc = fail(Template, raw)
    assert exc.code == "E108"
    assert pointed(exc, raw) == at
    assert said in f"{exc.message} {exc.help}"


def test_template_unknown_variable_help_lists_all_variables() -> None:
    exc = fail(Template, "{foo}")
    assert exc.help is not None
    for name in TEMPLATE_VARIABLES:
        assert f"`{{{name}}}`" in exc.help


# ---- Signal ----------------------------------------------------------------------------------

SIGNAL_VALID = [
    # (raw, name, number, seconds)
    ("USR1@60", "USR1", 10, 60),
    ("SIGUSR1@90", "USR1", 10, 90),
    ("10@120", "USR1", 10, 120),
    ("TERM@300", "TERM", 15, 300),
    ("SIGTERM@300", "TERM", 15, 300),
    ("USR2@0", "USR2", 12, 0),
    ("KILL@5", "KILL", 9, 5),
    ("HUP@1", "HUP", 1, 1),
    ("SYS@1", "SYS", 31, 1),
    ("15@10", "TERM", 15, 10),
    ("64@1", None, 64, 1),  # real-time signal: a number without a name
    # names are case-insensitive, as Slurm's sig_name2num (strncasecmp); stored upper-case
    ("usr1@60", "USR1", 10, 60),
    ("sigusr1@60", "USR1", 10, 60),
    ("SigUsr2@5", "USR2", 12, 5),
    ("sigTERM@30", "TERM", 15, 30),
]


@pytest.mark.parametrize(("raw", "name", "number", "seconds"), SIGNAL_VALID)
def test_signal_valid(raw: str, name: str | None, number: int, seconds: int) -> None:
    signal = Signal.parse(raw)
    assert (signal.name, signal.number, signal.seconds) == (name, number, seconds)
    assert signal.raw == raw  # the spelling is kept for SPLAT output


SIGNAL_INVALID = [
    # (raw, characters pointed at, text in message or help)
    ("USR3@60", "USR3", "`USR1`"),  # did you mean
    ("usr3@60", "usr3", "unknown signal `usr3`"),
    ("SIGFOO@60", "SIGFOO", "unknown signal"),
    ("SIG@5", "SIG", "unknown signal"),
    ("USR1", "", "ends too early"),
    ("USR1@", "", "ends too early"),
    ("@60", "@", "unexpected `@`"),
    ("99@1", "99", "between 1 and 64"),
    ("0@60", "0", "between 1 and 64"),
    ("65@1", "65", "between 1 and 64"),
    ("USR1@1.5", "1.5", "whole number"),
    ("USR1@-5", "-", "unexpected `-`"),
    ("USR1 @60", " ", "unexpected ` `"),
    ("USR1@60s", "s", "unexpected `s`"),
    ("B:USR1@60", ":", "unexpected `:`"),  # Slurm's flag prefix is not SPLAT
    ("", "", "found nothing"),
]


@pytest.mark.parametrize(("raw", "at", "said"), SIGNAL_INVALID)
def test_signal_invalid(raw: str, at: str, said: str) -> None:
    exc = fail(Signal, raw)
    assert exc.code == "E110"
    assert pointed(exc, raw) == at
    assert said in f"{exc.message} {exc.help}"


# ---- DateTime --------------------------------------------------------------------------------

UTC = dt.UTC
DATETIME_VALID = [
    ("2026-03-01T08:00:00Z", dt.datetime(2026, 3, 1, 8, 0, tzinfo=UTC)),
    ("2026-03-01T08:00", dt.datetime(2026, 3, 1, 8, 0)),
    ("2026-03-01", dt.datetime(2026, 3, 1)),
    (
        "2026-03-01T08:00:00+02:00",
        dt.datetime(2026, 3, 1, 8, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))),
    ),
    (
        "2026-03-01T08:00:00-05:30",
        dt.datetime(2026, 3, 1, 8, 0, tzinfo=dt.timezone(-dt.timedelta(hours=5, minutes=30))),
    ),
    ("2026-03-01T08:00:30.5Z", dt.datetime(2026, 3, 1, 8, 0, 30, 500000, tzinfo=UTC)),
    ("2028-02-29T23:59:59", dt.datetime(2028, 2, 29, 23, 59, 59)),
]


@pytest.mark.parametrize(("raw", "value"), DATETIME_VALID)
def test_datetime_valid(raw: str, value: dt.datetime) -> None:
    parsed = DateTime.parse(raw)
    assert parsed.value == value
    assert parsed.value.utcoffset() == value.utcoffset()


DATETIME_INVALID = [
    "next tuesday",
    "2026-13-01",
    "2026-02-30",
    "2027-02-29",
    "2026-03-01T25:00",
    "2026-03-01T08:60",
    "01/03/2026",
    "2026-03-01T08:00:00+25:00",
    "tomorrow",
    "",
]


@pytest.mark.parametrize("raw", DATETIME_INVALID)
def test_datetime_invalid(raw: str) -> None:
    exc = fail(DateTime, raw)
    assert exc.code == "E109"
    assert pointed(exc, raw) == raw
    assert "ISO 8601" in exc.message
    assert "2026-03-01T08:00:00Z" in str(exc.help)


# ---- all values ------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", VALUE_TYPES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("raw", [True, False])
def test_booleans_are_not_values(cls: type[Value], raw: bool) -> None:
    exc = fail(cls, raw)
    assert exc.code == "E102"
    assert str(raw).lower() in exc.message


VALUE_STR = [
    (Size, "4Gi", "4Gi"),
    (Size, 4096, "4096"),
    (Cpu, 0.5, "0.5"),
    (Cpu, 2.0, "2"),
    (Duration, "PT2H", "PT2H"),
    (Signal, "usr1@60", "usr1@60"),
]


@pytest.mark.parametrize(("cls", "raw", "text"), VALUE_STR)
def test_value_str_is_the_spelling(cls: type[Value], raw: str | int | float, text: str) -> None:
    value = cls.parse(raw)
    assert str(value) == text
    assert repr(value) == f"{cls.__name__}({raw!r})"
