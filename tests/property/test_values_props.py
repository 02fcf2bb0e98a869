"""Property tests of the value languages: total parsers, grammar-generated input, round trips."""

from __future__ import annotations

import functools
import importlib.resources
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark

from bammmc.ir.values import (
    SIZE_UNITS,
    TEMPLATE_VARIABLES,
    VALUE_TYPES,
    Count,
    Cpu,
    Duration,
    IndexSpec,
    Signal,
    Size,
    Template,
    Value,
    ValueSyntaxError,
)

PROPS = settings(derandomize=True, deadline=None, max_examples=200)

START_RULES = {
    "size": Size,
    "cpu": Cpu,
    "count": Count,
    "duration": Duration,
    "indices": IndexSpec,
    "template": Template,
    "signal": Signal,
}


def parse_or_syntax_error(cls: type[Value], raw: str | int | float) -> Value | None:
    """Parse, or return None on a ValueSyntaxError with a span inside the text; anything else
    (a crash, a span outside the text) fails the test."""
    text = str(raw)
    try:
        value: Value = cls.parse(raw)
    except ValueSyntaxError as exc:
        assert exc.code.startswith("E1"), exc.code
        assert exc.message
        assert 0 <= exc.start <= len(text)
        assert exc.end is None or exc.start <= exc.end <= len(text)
        return None
    return value


@functools.cache
def grammar_text() -> str:
    return (importlib.resources.files("bammmc") / "grammars" / "values.lark").read_text()


@functools.cache
def lark_for(start: str) -> Lark:
    return Lark(grammar_text(), parser="lalr", start=start)


# ---- (a) every parser is total: a value or a ValueSyntaxError ---------------------------------

VALUE_ALPHABET = st.sampled_from(list("0123456789.-:/%,@{}_ PTDHMSdhmsGgiKkBbwmnoeUSRtux\n"))
RAW_VALUES = st.one_of(
    st.text(),
    st.text(VALUE_ALPHABET, max_size=12),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
)


@pytest.mark.parametrize("cls", VALUE_TYPES, ids=lambda c: c.__name__)
@PROPS
@given(raw=RAW_VALUES)
def test_parse_returns_or_raises_value_syntax_error(
    cls: type[Value], raw: str | int | float
) -> None:
    value = parse_or_syntax_error(cls, raw)
    if value is not None:
        assert value.raw is raw


# ---- (b) strings generated from the grammar parse or raise ValueSyntaxError ------------------

# Known variable names as well as arbitrary ones, so that templates also parse.
EXPLICIT = {
    "template": {
        "VARNAME": st.one_of(
            st.sampled_from(list(TEMPLATE_VARIABLES)),
            st.from_regex(r"[A-Za-z_][A-Za-z0-9_]*", fullmatch=True),
        )
    }
}


@pytest.mark.parametrize("start", sorted(START_RULES))
def test_grammar_strategy_builds(start: str) -> None:
    assert start in lark_for(start).options.start


def _check_generated(start: str, text: str) -> None:
    value = parse_or_syntax_error(START_RULES[start], text)
    if value is None:
        return
    if isinstance(value, Size):
        assert value.bytes >= 0
    elif isinstance(value, Cpu):
        assert value.cores > 0
    elif isinstance(value, Count):
        assert value.amount >= 0
    elif isinstance(value, Duration):
        assert value.seconds is None or value.seconds >= 0
    elif isinstance(value, IndexSpec):
        assert all(lo <= hi and step >= 1 for lo, hi, step in value.ranges)
        assert value.throttle is None or value.throttle >= 1
    elif isinstance(value, Template):
        assert set(value.variables()) <= set(TEMPLATE_VARIABLES)
        assert Template.parse(_respell(value)).parts == value.parts
    elif isinstance(value, Signal):
        assert 1 <= value.number <= 64
        assert value.name is None or value.name == value.name.upper()


def _respell(template: Template) -> str:
    """Template text back from its parts: variables in braces, literal braces doubled."""
    double = {ord("{"): "{{", ord("}"): "}}"}
    return template.render(
        {v: f"{{{v}}}" for v in TEMPLATE_VARIABLES}, lambda s: s.translate(double)
    )


def _grammar_test(start: str) -> Callable[[], None]:
    strategy = from_lark(lark_for(start), start=start, explicit=EXPLICIT.get(start))

    @PROPS
    @given(text=strategy)
    def test(text: str) -> None:
        _check_generated(start, text)

    test.__name__ = f"test_generated_{start}_parses_or_raises"
    return test


test_generated_size = _grammar_test("size")
test_generated_cpu = _grammar_test("cpu")
test_generated_count = _grammar_test("count")
test_generated_duration = _grammar_test("duration")
test_generated_indices = _grammar_test("indices")
test_generated_template = _grammar_test("template")
test_generated_signal = _grammar_test("signal")


# ---- (c) round trips -------------------------------------------------------------------------


@PROPS
@given(n=st.integers(min_value=0, max_value=2**70))
def test_size_from_bytes_round_trip(n: int) -> None:
    size = Size.from_bytes(n)
    assert size.bytes == n
    assert Size.parse(size.raw).bytes == n
    assert len(str(size.raw)) <= len(f"{n}b")


@PROPS
@given(
    n=st.integers(min_value=0, max_value=10**6),
    unit=st.sampled_from(sorted(u for u in SIZE_UNITS if u not in {"m", "g", "t", "p"})),
    scope=st.sampled_from([None, "node", "task", "cpu", "gpu", "job"]),
)
def test_size_unit_arithmetic(n: int, unit: str, scope: str | None) -> None:
    text = f"{n}{unit}" + (f"/{scope}" if scope else "")
    size = Size.parse(text)
    assert (size.bytes, size.unit, size.scope) == (n * SIZE_UNITS[unit], unit, scope)


@PROPS
@given(s=st.one_of(st.none(), st.integers(min_value=0, max_value=10**10)))
def test_duration_from_seconds_round_trip(s: int | None) -> None:
    duration = Duration.from_seconds(s)
    assert duration.seconds == s
    assert Duration.parse(duration.raw).seconds == s


@PROPS
@given(
    d=st.integers(0, 400),
    h=st.integers(0, 23),
    m=st.integers(0, 59),
    s=st.integers(0, 59),
)
def test_duration_spellings_agree(d: int, h: int, m: int, s: int) -> None:
    total = d * 86400 + h * 3600 + m * 60 + s
    assert Duration.parse(f"{d}-{h:02}:{m:02}:{s:02}").seconds == total
    assert Duration.parse(f"{d * 24 + h}:{m:02}:{s:02}").seconds == total
    assert Duration.parse(f"{d}d{h}h{m}m{s}s").seconds == total
    assert Duration.parse(f"P{d}DT{h}H{m}M{s}S").seconds == total
    assert Duration.parse(str(total)).seconds == total
    assert Duration.parse(total).seconds == total


RANGE = st.tuples(
    st.integers(0, 5000),  # start
    st.integers(0, 200),  # length
    st.integers(1, 20),  # step
    st.sampled_from(["range", "single", "no-step"]),
)


def _spell(start: int, length: int, step: int, form: str) -> tuple[str, tuple[int, int, int]]:
    if form == "single":
        return str(start), (start, start, 1)
    if form == "no-step":
        return f"{start}-{start + length}", (start, start + length, 1)
    return f"{start}-{start + length}:{step}", (start, start + length, step)


@PROPS
@given(
    ranges=st.lists(RANGE, min_size=1, max_size=6),
    throttle=st.one_of(st.none(), st.integers(1, 1000)),
)
def test_index_spec_round_trip(
    ranges: list[tuple[int, int, int, str]], throttle: int | None
) -> None:
    spelled = [_spell(*r) for r in ranges]
    text = ",".join(t for t, _ in spelled) + (f"%{throttle}" if throttle is not None else "")
    spec = IndexSpec.parse(text)
    assert spec.ranges == tuple(r for _, r in spelled)
    assert spec.throttle == throttle
    assert str(spec) == text
    assert IndexSpec.parse(str(spec)) == spec

    expected: list[int] = []
    for lo, hi, step in spec.ranges:
        expected += [i for i in range(lo, hi + 1, step) if i not in expected]
    assert spec.indices() == expected
    assert len(spec) == len(expected)
    assert spec.has_step is any(step != 1 and form == "range" for _, _, step, form in ranges)
