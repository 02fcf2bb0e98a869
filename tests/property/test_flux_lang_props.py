"""Property tests of the Flux languages (frontends/flux_lang.py): every parser is total (a value
or a FluxLangError with a span inside the text), and every writer reads back.

- FSD: ``parse_fsd(format_fsd(s)) == s`` for every non-negative float, and never longer than
  writing the seconds.
- RFC 26: ``parse_dependency(format_dependency(d)) == d``; ``to_splat(from_splat(x)) == x``.
- RFC 35: ``parse(format(parse(q))) == parse(q)`` for grammar-generated queries; for any
  generated RFC 31 object, ``format_requires`` gives a query meaning the same (checked by
  evaluating both on every node of a small universe).
- SPLAT constraint: the same two ways.
"""

from __future__ import annotations

import functools
import importlib.resources
import math
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark

from bammmc.frontends.flux_lang import (
    FluxDependency,
    FluxLangError,
    constraint_from_splat,
    constraint_to_splat,
    format_dependency,
    format_fsd,
    format_requires,
    from_splat,
    parse_dependency,
    parse_fsd,
    parse_requires,
    to_splat,
)
from bammmc.ir.job import Dependency

PROPS = settings(derandomize=True, deadline=None, max_examples=80)
#: hypothesis' grammar strategy draws ~100 symbols a query: a few of them, the rest from QUERIES
FEW = settings(derandomize=True, deadline=None, max_examples=8)


@functools.cache
def lark_for(start: str) -> Lark:
    text = (importlib.resources.files("bammmc") / "grammars" / "flux_lang.lark").read_text()
    return Lark(text, parser="lalr", lexer="contextual", start=start)


def total(parse: Callable[[str], Any], text: str) -> Any:
    """The value, or None on a FluxLangError whose span lies inside the text."""
    try:
        return parse(text)
    except FluxLangError as exc:
        assert exc.message and exc.help
        assert exc.language in ("fsd", "dependency", "requires", "constraint")
        assert 0 <= exc.start <= exc.end <= len(text), (exc, text)
        return None


ALPHABET = st.sampled_from(list("0123456789.eE+-smhdxinfINF: ?=&;|()'\"^,ab\t"))
TEXTS = st.one_of(st.text(max_size=30), st.text(ALPHABET, max_size=20))


@PROPS
@given(TEXTS)
def test_parsers_are_total(text: str) -> None:
    for parse in (parse_fsd, parse_dependency, parse_requires, constraint_from_splat):
        total(parse, text)


# ── RFC 23 ───────────────────────────────────────────────────────────────────────────────────


@PROPS
@given(st.floats(min_value=0, allow_nan=False, allow_infinity=True))
def test_fsd_round_trip(seconds: float) -> None:
    text = format_fsd(seconds)
    assert parse_fsd(text) == seconds
    if not math.isinf(seconds) and seconds:
        assert len(text) <= len(repr(seconds)) + 1


@PROPS
@given(st.integers(min_value=0, max_value=10**9), st.sampled_from(["ms", "s", "m", "h", "d", ""]))
def test_fsd_units(number: int, unit: str) -> None:
    scale = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "": 1}[unit]
    assert math.isclose(parse_fsd(f"{number}{unit}"), number * scale)
    assert parse_fsd(format_fsd(parse_fsd(f"{number}{unit}"))) == parse_fsd(f"{number}{unit}")


@PROPS
@given(from_lark(lark_for("fsd"), start="fsd"))
def test_fsd_generated(text: str) -> None:
    seconds = total(parse_fsd, text)
    if seconds is not None:
        assert parse_fsd(format_fsd(seconds)) == seconds


# ── RFC 26 ───────────────────────────────────────────────────────────────────────────────────

SCHEME = st.from_regex(r"[A-Za-z][A-Za-z0-9+.\-]{0,8}", fullmatch=True)
WORD = st.text(
    st.one_of(st.characters(codec="utf-8", exclude_categories=["Cs"]), st.sampled_from("+%&;=?# ")),
    min_size=1,
    max_size=10,
)
VALUE = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cs", "Zs", "Cc", "Zl", "Zp"]).filter(
        lambda c: c != "?" and not c.isspace()
    ),
    min_size=1,
    max_size=12,
)


@PROPS
@given(SCHEME, VALUE, st.dictionaries(WORD, WORD, max_size=3))
def test_dependency_round_trip(scheme: str, value: str, query: dict[str, str]) -> None:
    dep = FluxDependency(scheme, value, query)
    try:
        text = format_dependency(dep)
    except FluxLangError:
        # only a begin-time that is not a number is refused
        assert scheme == "begin-time"
        return
    assert parse_dependency(text) == dep


@PROPS
@given(from_lark(lark_for("dependency"), start="dependency"))
def test_dependency_generated(text: str) -> None:
    dep = total(parse_dependency, text)
    if dep is not None:
        assert parse_dependency(format_dependency(dep)) == dep


SPLAT_DEPS = st.one_of(
    st.builds(
        Dependency,
        scheme=st.sampled_from(["afterok", "afternotok", "afterany", "after"]),
        value=st.from_regex(r"[A-Za-z0-9ƒ]{1,10}", fullmatch=True),
    ),
    st.just(Dependency(scheme="singleton")),
    st.builds(
        lambda n: Dependency(scheme="begin_time", value=str(n)),
        st.integers(min_value=0, max_value=2**40),
    ),
)


@PROPS
@given(SPLAT_DEPS)
def test_splat_dependency_round_trip(dep: Dependency) -> None:
    uri = from_splat(dep)
    assert uri is not None
    assert to_splat(parse_dependency(uri)) == dep


# ── RFC 31 objects, evaluated ────────────────────────────────────────────────────────────────

NAMES = ["a", "b", "c", "ssd", "not", "-x", "a b", "a:b"]
HOSTS = ["n1", "n2", "n[1-2]"]
#: a node: (its properties, its host name, its rank)
UNIVERSE = [
    (frozenset(props), host, rank)
    for props in (
        [],
        ["a"],
        ["b", "c"],
        ["a", "ssd", "not"],
        ["-x", "a b", "a:b"],
        ["ib", "avx512", "b"],
        ["a", "x-1", "k=v", "ib"],
        NAMES,
    )
    for host, rank in (("n1", "0"), ("n2", "1"))
]


def matches(obj: dict[str, Any], node: tuple[frozenset[str], str, str]) -> bool:
    """RFC 31 on one node (the operators these tests generate)."""
    props, host, rank = node
    ((op, values),) = obj.items()
    if op == "and":
        return all(matches(v, node) for v in values)
    if op == "or":
        return any(matches(v, node) for v in values)
    if op == "not":
        return not matches(values[0], node)
    if op == "properties":
        return all((v[1:] not in props) if v.startswith("^") else (v in props) for v in values)
    if op == "hostlist":
        return any(host in (v if v != "n[1-2]" else "n1 n2").split() for v in values)
    if op == "ranks":
        return rank in values
    raise AssertionError(op)


TERMS = st.one_of(
    st.builds(lambda v: {"properties": v}, st.lists(st.sampled_from([*NAMES, "^a"]), min_size=1)),
    st.builds(lambda h: {"hostlist": [h]}, st.sampled_from(HOSTS)),
    st.builds(lambda r: {"ranks": [r]}, st.sampled_from(["0", "1"])),
)
OBJECTS = st.recursive(
    TERMS,
    lambda inner: st.one_of(
        st.builds(lambda v: {"and": v}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda v: {"or": v}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda v: {"not": [v]}, inner),
    ),
    max_leaves=8,
)


@PROPS
@given(OBJECTS)
def test_format_requires_means_the_same(obj: dict[str, Any]) -> None:
    text = format_requires(obj)
    assert text is not None, obj
    back = parse_requires(text)
    for node in UNIVERSE:
        assert matches(back, node) == matches(obj, node), (obj, text, back, node)
    assert format_requires(back) is not None
    assert parse_requires(format_requires(back) or "") == back


#: terminals drawn from short lists: hypothesis' own regex strategies for these are slow
REQUIRES_TERMINALS = {
    "TERM": st.sampled_from(["a", "b", "ssd", "host:n1", "rank:0-1", "x-y", "^a", "a,b", "f:g"]),
    "OPEN": st.sampled_from(["host:", "rank:", "properties:"]),
    "SQUOTED": st.sampled_from(["'a b'", "'c'"]),
    "DQUOTED": st.sampled_from(['"d e"', '"it\'s"']),
    "NOT": st.just("not"),
    "AND": st.sampled_from(["&", "&&", "and"]),
    "OR": st.sampled_from(["|", "||", "or"]),
    "BLANK": st.sampled_from([" ", "\t"]),
}


QUERY_ATOMS = st.sampled_from(
    ["a", "b", "ssd", "^a", "a,b", "host:n1", "host: n2", "rank:0", "'a b'", "-a", "-host:n1"]
)
JOINERS = [" ", " & ", "&&", " and ", "|", " || ", " or ", " -", " not "]
QUERIES = st.recursive(
    QUERY_ATOMS,
    lambda inner: st.one_of(
        st.builds(lambda a, op, b: f"{a}{op}{b}", inner, st.sampled_from(JOINERS), inner),
        st.builds(lambda a: f"({a})", inner),
        st.builds(lambda a: f"not {a}", inner),
    ),
    max_leaves=10,
)


@FEW
@given(from_lark(lark_for("requires"), start="requires", explicit=REQUIRES_TERMINALS))
def test_requires_grammar(text: str) -> None:
    test_requires_generated.hypothesis.inner_test(text)  # type: ignore[attr-defined]


@PROPS
@given(QUERIES)
def test_requires_generated(text: str) -> None:
    obj = total(parse_requires, text)
    if obj is not None:
        again = format_requires(obj)
        if again is not None:  # e.g. a literal `host:`-named operator has no query
            assert parse_requires(again) == obj


FEATURES = st.sampled_from(["a", "b", "ib", "avx512", "x-1", "k=v"])
SPLAT_OBJECTS = st.recursive(
    st.builds(lambda v: {"properties": v}, st.lists(FEATURES, min_size=1, max_size=3)),
    lambda inner: st.one_of(
        st.builds(lambda v: {"and": v}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda v: {"or": v}, st.lists(inner, min_size=1, max_size=3)),
    ),
    max_leaves=8,
)


@PROPS
@given(SPLAT_OBJECTS)
def test_splat_constraint_means_the_same(obj: dict[str, Any]) -> None:
    text = constraint_to_splat(obj)
    assert text is not None
    back = constraint_from_splat(text)
    for node in UNIVERSE:
        assert matches(back, node) == matches(obj, node), (obj, text, back)
    assert (
        constraint_to_splat(back) == text
        or constraint_from_splat(constraint_to_splat(back) or "") == back
    )


SPLAT_TERMINALS = {
    "FEATURE": FEATURES,
    "S_INT": st.sampled_from(["1", "16"]),
    "BLANK": st.just(" "),
}


@FEW
@given(from_lark(lark_for("splat_constraint"), start="splat_constraint", explicit=SPLAT_TERMINALS))
def test_splat_constraint_grammar(text: str) -> None:
    test_splat_constraint_generated.hypothesis.inner_test(text)  # type: ignore[attr-defined]


CONSTRAINTS = st.recursive(
    FEATURES,
    lambda inner: st.one_of(
        st.builds(lambda a, op, b: f"{a}{op}{b}", inner, st.sampled_from(["&", "|"]), inner),
        st.builds(lambda a: f"({a})", inner),
    ),
    max_leaves=10,
)


@PROPS
@given(CONSTRAINTS)
def test_splat_constraint_generated(text: str) -> None:
    obj = total(constraint_from_splat, text)
    if obj is not None:
        canonical = constraint_to_splat(obj)
        assert canonical is not None
        assert constraint_from_splat(canonical) == obj
