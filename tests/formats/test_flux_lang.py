"""The small Flux languages (frontends/flux_lang.py, grammars/flux_lang.lark), one table per
language: RFC 23 durations, RFC 26 dependencies, RFC 35 queries, SPLAT constraint <-> RFC 31.

The RFC 35 expectations are what flux-core's own PLY parser (``flux/constraint/parser.py`` with
``MiniConstraintParser``'s operator table, flux-core v0.88) returns for the same text; they were
produced by running it, including the nestings its precedence table gives juxtaposed terms.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from bammmc.frontends.flux_lang import (
    FluxDependency,
    FluxLangError,
    FluxLangUnsupported,
    constraint_from_splat,
    constraint_to_splat,
    format_dependency,
    format_fsd,
    format_requires,
    from_object,
    from_splat,
    parse_dependency,
    parse_fsd,
    parse_requires,
    to_object,
    to_splat,
)
from bammmc.ir.job import Dependency

SHARED = Path("/work/shared/corpus/flux/rfc26-dependencies")

# ── RFC 23 ───────────────────────────────────────────────────────────────────────────────────

FSD_VALID = [
    ("30", 30.0),
    ("30s", 30.0),
    ("0", 0.0),
    ("0s", 0.0),
    ("2.5m", 150.0),
    ("1.2h", 4320.0),
    ("5d", 432000.0),
    ("2ms", 0.002),
    ("1e3s", 1000.0),
    ("1E3", 1000.0),
    ("2.5e-1m", 15.0),
    (".5h", 1800.0),
    ("5.", 5.0),
    ("+5s", 5.0),
    ("-0", 0.0),
    ("inf", math.inf),
    ("infinity", math.inf),
    ("INF", math.inf),
    ("INFINITY", math.inf),
]


@pytest.mark.parametrize(("text", "seconds"), FSD_VALID)
def test_fsd_valid(text: str, seconds: float) -> None:
    assert parse_fsd(text) == seconds


@pytest.mark.parametrize(
    ("text", "minutes"), [("30", 1800.0), ("1.5", 90.0), ("30s", 30.0), ("2h", 7200.0)]
)
def test_fsd_bare_minutes(text: str, minutes: float) -> None:
    """`flux batch -t 30` is 30 minutes; a suffix still wins."""
    assert parse_fsd(text, bare="m") == minutes


FSD_INVALID = [
    # text, start, end, words in the message
    ("", 0, 0, "found nothing"),
    ("-1", 0, 2, "negative"),
    ("-2.5m", 0, 5, "negative"),
    ("2x", 1, 2, "unknown unit `x`"),
    ("2min", 1, 4, "unknown unit `min`"),
    ("2S", 1, 2, "unknown unit `S`"),
    ("2M", 1, 2, "unknown unit `M`"),
    ("1 h", 1, 2, "blank"),
    (" 1h", 0, 1, "blank"),
    ("1h ", 2, 3, "blank"),
    ("infs", 0, 4, "unexpected"),
    ("Inf", 0, 3, "unexpected"),
    ("h", 0, 1, "unexpected"),
    ("1.5.3", 3, 5, "unexpected"),
    ("nan", 0, 3, "unexpected"),
    ("0x10", 2, 4, "unexpected `10`"),
    ("1e999", 0, 5, "too large"),
    ("1h30m", 2, 5, "unexpected `30m`"),
]


@pytest.mark.parametrize(("text", "start", "end", "words"), FSD_INVALID)
def test_fsd_invalid(text: str, start: int, end: int, words: str) -> None:
    with pytest.raises(FluxLangError) as info:
        parse_fsd(text)
    err = info.value
    assert (err.start, err.end) == (start, end)
    assert words in err.message
    assert err.help
    assert err.language == "fsd"


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0s"),
        (30, "30s"),
        (59, "59s"),
        (60, "1m"),
        (90, "90s"),
        (150, "2.5m"),
        (3600, "1h"),
        (5400, "90m"),
        (9000, "2.5h"),
        (86400, "1d"),
        (172800, "2d"),
        (0.002, "2ms"),
        (0.5, "0.5s"),
        (0.25, "0.25s"),  # a tie goes to the larger unit
        (0.001, "1ms"),
        (1e-7, "1e-07s"),
        (1e20, "1e+20s"),
        (math.inf, "inf"),
    ],
)
def test_format_fsd(seconds: float, text: str) -> None:
    assert format_fsd(seconds) == text
    assert parse_fsd(text) == seconds


@pytest.mark.parametrize("seconds", [-1.0, math.nan, -math.inf])
def test_format_fsd_refuses(seconds: float) -> None:
    with pytest.raises(FluxLangError):
        format_fsd(seconds)


# ── RFC 26 ───────────────────────────────────────────────────────────────────────────────────

DEP_VALID = [
    ("afterok:ƒ2oLkTLb", "afterok", "ƒ2oLkTLb", {}),
    ("afterany:ƒ2oLkTLb", "afterany", "ƒ2oLkTLb", {}),
    ("afternotok:1234", "afternotok", "1234", {}),
    ("after:0x1a2b", "after", "0x1a2b", {}),
    ("afterstart:fXYZ", "afterstart", "fXYZ", {}),
    ("afterexcept:fXYZ", "afterexcept", "fXYZ", {}),
    ("singleton", "singleton", "", {}),
    ("begin-time:1772352000.0", "begin-time", "1772352000.0", {}),
    ("string:foo?type=out", "string", "foo", {"type": "out"}),
    ("fluid:hungry-hippos-white-elephant", "fluid", "hungry-hippos-white-elephant", {}),
    ("string:A?type=in&scope=user", "string", "A", {"type": "in", "scope": "user"}),
    ("string:A?type=in;scope=user", "string", "A", {"type": "in", "scope": "user"}),
    ("string:A?note=a%20b&x=c+d", "string", "A", {"note": "a b", "x": "c d"}),
    ("afterok:a:b", "afterok", "a:b", {}),
    ("my.plugin+v2:x", "my.plugin+v2", "x", {}),
]


@pytest.mark.parametrize(("uri", "scheme", "value", "query"), DEP_VALID)
def test_dependency_valid(uri: str, scheme: str, value: str, query: dict[str, str]) -> None:
    dep = parse_dependency(uri)
    assert (dep.scheme, dep.value, dep.query) == (scheme, value, query)
    assert (dep.start, dep.end) == (0, len(uri))
    assert parse_dependency(format_dependency(dep)) == dep


DEP_INVALID = [
    ("", 0, 0, "found nothing"),
    ("afterok:", 0, 8, "needs a job id"),
    ("afterok", 0, 7, "needs a job id"),
    ("string:", 0, 7, "needs a name"),
    ("begin-time:", 0, 11, "needs a time"),
    ("begin-time:tomorrow", 11, 19, "seconds since the epoch"),
    ("begin-time:-5", 11, 13, "seconds since the epoch"),
    ("afterok: 12", 8, 9, "blank"),
    ("afterok:1 2", 9, 10, "blank"),
    ("1abc:x", 0, 6, "unexpected"),
    (":x", 0, 2, "unexpected"),
    ("string:foo?type", 15, 15, "ends too early"),
    ("string:foo?", 11, 11, "ends too early"),
    ("string:foo?type=", 11, 16, "has no value"),
    ("string:foo?type=in&type=out", 19, 27, "given twice"),
    ("string:foo?type=in&&scope=user", 19, 20, "unexpected"),
]


@pytest.mark.parametrize(("uri", "start", "end", "words"), DEP_INVALID)
def test_dependency_invalid(uri: str, start: int, end: int, words: str) -> None:
    with pytest.raises(FluxLangError) as info:
        parse_dependency(uri)
    err = info.value
    assert (err.start, err.end) == (start, end)
    assert words in err.message
    assert err.help
    assert err.language == "dependency"


def _corpus() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in sorted(SHARED.glob("*.yaml")):
        for obj in yaml.safe_load(path.read_text()):
            out.append((path.stem, obj))
    return out


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared corpus not mounted")
@pytest.mark.parametrize(("name", "obj"), _corpus())
def test_rfc26_corpus(name: str, obj: dict[str, Any]) -> None:
    """RFC 26's examples: object -> URI -> object, and none is a SPLAT dependency."""
    dep = from_object(obj)
    uri = format_dependency(dep)
    assert uri.startswith(f"{obj['scheme']}:{obj['value']}?")
    assert to_object(parse_dependency(uri)) == obj
    assert to_splat(dep) is None


@pytest.mark.parametrize(
    ("query", "uri"),
    [
        ({"k": "a+b"}, "x:y?k=a%2Bb"),
        ({"k": "a b"}, "x:y?k=a%20b"),
        ({"k": "a&b;c=d"}, "x:y?k=a%26b%3Bc%3Dd"),
        ({"k": "50%"}, "x:y?k=50%25"),
        ({"a=b": "c"}, "x:y?a%3Db=c"),
        ({"k": "ƒ2oL"}, "x:y?k=%C6%922oL"),
    ],
)
def test_format_dependency_quotes(query: dict[str, str], uri: str) -> None:
    dep = FluxDependency("x", "y", query)
    assert format_dependency(dep) == uri
    assert parse_dependency(uri) == dep


@pytest.mark.parametrize(
    "dep",
    [
        FluxDependency("afterok", "a b"),
        FluxDependency("afterok", "a?b"),
        FluxDependency("1x", "y"),
        FluxDependency("", "y"),
        FluxDependency("afterok", ""),
        FluxDependency("begin-time", "soon"),
    ],
)
def test_format_dependency_refuses(dep: FluxDependency) -> None:
    with pytest.raises(FluxLangError) as info:
        format_dependency(dep)
    assert info.value.language == "dependency"


def test_rfc26_corpus_uri() -> None:
    dep = from_object({"type": "inout", "scope": "user", "scheme": "string", "value": "foo"})
    assert format_dependency(dep) == "string:foo?type=inout&scope=user"


def test_to_object_numbers() -> None:
    """flux-core's URIArg turns query values that read as numbers into numbers."""
    obj = to_object(parse_dependency("x:y?n=3&f=1.5&s=abc"))
    assert obj == {"scheme": "x", "value": "y", "n": 3, "f": 1.5, "s": "abc"}
    assert from_object(obj) == FluxDependency("x", "y", {"n": "3", "f": "1.5", "s": "abc"})


@pytest.mark.parametrize(
    "obj",
    [
        {"value": "x"},
        {"scheme": "", "value": "x"},
        {"scheme": "afterok"},
        {"scheme": "afterok", "value": 12},
        {"scheme": "string", "value": "x", "type": ["in"]},
        {"scheme": "string", "value": "x", "type": True},
        {"scheme": "afterok", "value": ""},
        {"scheme": "begin-time", "value": "soon"},
        {"scheme": "begin-time", "value": "-1"},
    ],
)
def test_from_object_invalid(obj: dict[str, Any]) -> None:
    with pytest.raises(FluxLangError) as info:
        from_object(obj)
    assert info.value.language == "dependency"


@pytest.mark.parametrize(
    ("uri", "splat"),
    [
        ("afterok:f1", Dependency(scheme="afterok", value="f1")),
        ("afternotok:f1", Dependency(scheme="afternotok", value="f1")),
        ("afterany:f1", Dependency(scheme="afterany", value="f1")),
        ("afterstart:f1", Dependency(scheme="after", value="f1")),
        ("after:f1", Dependency(scheme="after", value="f1")),
        ("singleton", Dependency(scheme="singleton")),
        ("begin-time:1772352000.0", Dependency(scheme="begin_time", value="1772352000")),
        ("begin-time:1772352000", Dependency(scheme="begin_time", value="1772352000")),
        (
            "begin-time:1772352000.5",
            Dependency(scheme="begin_time", value="2026-03-01T08:00:00.500000+00:00"),
        ),
        ("afterexcept:f1", None),
        ("string:foo?type=in", None),
        ("fluid:f1?type=in&scope=user", None),
        ("afterok:f1?x=1", None),
        ("singleton:x", None),
        ("custom:x", None),
    ],
)
def test_to_splat(uri: str, splat: Dependency | None) -> None:
    assert to_splat(parse_dependency(uri)) == splat


@pytest.mark.parametrize(
    "dep",
    [
        FluxDependency("afterok", ""),
        FluxDependency("begin-time", ""),
        FluxDependency("string", "x"),
        FluxDependency("afterok", "f1", {"x": "1"}),
        FluxDependency("begin-time", "soon"),
    ],
)
def test_to_splat_none_for_objects(dep: FluxDependency) -> None:
    """Objects come from jobspec unchecked: an empty job id has no SPLAT form either."""
    assert to_splat(dep) is None


@pytest.mark.parametrize(
    ("splat", "uri"),
    [
        (Dependency(scheme="afterok", value="f1"), "afterok:f1"),
        (Dependency(scheme="afternotok", value="123"), "afternotok:123"),
        (Dependency(scheme="afterany", value="123"), "afterany:123"),
        (Dependency(scheme="after", value="123"), "afterstart:123"),
        (Dependency(scheme="singleton"), "singleton"),
        (Dependency(scheme="begin_time", value="1772352000"), "begin-time:1772352000.0"),
        (Dependency(scheme="begin_time", value="2026-03-01T08:00:00Z"), "begin-time:1772352000.0"),
        (
            Dependency(scheme="begin_time", value="2026-03-01T09:00:00+01:00"),
            "begin-time:1772352000.0",
        ),
        (Dependency(scheme="begin_time", value="2026-03-01T08:00:00"), None),  # no time zone
        (Dependency(scheme="begin_time", value="soon"), None),
        (Dependency(scheme="afterok", value="1", count=3), None),  # PBS on:N
        (Dependency(scheme="afterok", value="a?b"), None),
        (Dependency(scheme="afterok", value="a b"), None),
        (Dependency(scheme="afterok"), None),
        (Dependency(scheme="singleton", value="x"), None),
        (Dependency(count=2), None),
    ],
)
def test_from_splat(splat: Dependency, uri: str | None) -> None:
    assert from_splat(splat) == uri
    if uri is not None:
        assert to_splat(parse_dependency(uri)) is not None


# ── RFC 35 (expectations from flux-core's PLY parser) ──────────────────────────────────────────


def P(*names: str) -> dict[str, Any]:
    return {"properties": list(names)}


def NOT(obj: dict[str, Any]) -> dict[str, Any]:
    return {"not": [obj]}


def AND(*objs: dict[str, Any]) -> dict[str, Any]:
    return {"and": list(objs)}


def OR(*objs: dict[str, Any]) -> dict[str, Any]:
    return {"or": list(objs)}


REQUIRES = [
    ("ssd", P("ssd")),
    ("ssd,gpu", P("ssd", "gpu")),
    ("^ssd", P("^ssd")),
    ("a b c", P("a", "b", "c")),
    ("a & b && c and d", P("a", "b", "c", "d")),
    ("a|b|c", OR(P("a"), P("b"), P("c"))),
    ("a || b or c", OR(P("a"), P("b"), P("c"))),
    ("a|b&c", OR(P("a"), P("b", "c"))),
    ("(a|b)&c", AND(OR(P("a"), P("b")), P("c"))),
    ("(a|-b)&c", AND(OR(P("a"), NOT(P("b"))), P("c"))),
    ("host:node7", {"hostlist": ["node7"]}),
    ("hosts:node[1-4]", {"hostlist": ["node[1-4]"]}),
    ("hostlist:n1", {"hostlist": ["n1"]}),
    ("rank:0-3", {"ranks": ["0-3"]}),
    ("ranks:0-3,7", {"ranks": ["0-3,7"]}),
    ("properties:a,b", P("a", "b")),
    ("properties:a:b", P("a:b")),
    ("foo:bar", {"foo": ["bar"]}),
    ("(ssd|nvme) -host:node7", AND(OR(P("ssd"), P("nvme")), NOT({"hostlist": ["node7"]}))),
    ("-a", NOT(P("a"))),
    ("- a", NOT(P("a"))),
    ("not a", NOT(P("a"))),
    ("not (a|b)", NOT(OR(P("a"), P("b")))),
    ("not not a", NOT(NOT(P("a")))),
    ("x-y", P("x-y")),
    ("nothing notx ordinary android", P("nothing", "notx", "ordinary", "android")),
    ("'a b'", P("a b")),
    ('"a|b"', P("a|b")),
    ("'a b' c", P("a b", "c")),
    ("host:'n 1'", {"hostlist": ["n 1"]}),
    ('host:"n 1"', {"hostlist": ["n 1"]}),
    ("host: n1", {"hostlist": ["n1"]}),
    ("'host:n1'", {"hostlist": ["n1"]}),
    ("'host:'n1", {"hostlist": ["n1"]}),
    ("\"host:\" 'n 1'", {"hostlist": ["n 1"]}),
    ("a: b: c", AND({"a": ["b:"]}, P("c"))),
    ("(a)", P("a")),
    ("((a))", P("a")),
    ("(a b) c", P("a", "b", "c")),
    ("a host:x b", AND(P("a"), {"hostlist": ["x"]}, P("b"))),
    ("host:x a b", AND({"hostlist": ["x"]}, P("a"), P("b"))),
    ("a (b host:c)", AND(P("a"), AND(P("b"), {"hostlist": ["c"]}))),
    # precedence: a juxtaposed term or `(` binds looser than everything on its left ...
    ("a|b c", AND(OR(P("a"), P("b")), P("c"))),
    ("a|b (c)", AND(OR(P("a"), P("b")), P("c"))),
    ("not a b", AND(NOT(P("a")), P("b"))),
    ("a & b c", P("a", "b", "c")),
    ("a | b c & d", AND(OR(P("a"), P("b")), P("c"), P("d"))),
    # ... a juxtaposed `-x`/`not x` tighter than everything, nesting to the right
    ("a|b -c", OR(P("a"), AND(P("b"), NOT(P("c"))))),
    ("a|b not c", OR(P("a"), AND(P("b"), NOT(P("c"))))),
    ("a b -c", AND(P("a"), AND(P("b"), NOT(P("c"))))),
    ("a -b c", AND(P("a"), NOT(P("b")), P("c"))),
    ("a -b -c", AND(P("a"), AND(NOT(P("b")), NOT(P("c"))))),
    ("not a -b", NOT(AND(P("a"), NOT(P("b"))))),
    ("not a not b", NOT(AND(P("a"), NOT(P("b"))))),
    ("-a b", AND(NOT(P("a")), P("b"))),
    ("-a | b", OR(NOT(P("a")), P("b"))),
    ("a b | c", OR(P("a", "b"), P("c"))),
    ("a & b | c & d", OR(P("a", "b"), P("c", "d"))),
    ("a | b & c & d | e", OR(P("a"), P("b", "c", "d"), P("e"))),
    ("(a|b)|c", OR(P("a"), P("b"), P("c"))),
    ("a|(b|c)", OR(P("a"), OR(P("b"), P("c")))),
]


@pytest.mark.parametrize(("text", "obj"), REQUIRES)
def test_requires(text: str, obj: dict[str, Any]) -> None:
    assert parse_requires(text) == obj


REQUIRES_INVALID = [
    ("", 0, 0, "found nothing"),
    ("   ", 0, 3, "found nothing"),
    ("a &", 3, 3, "ends too early"),
    ("a |", 3, 3, "ends too early"),
    ("not", 3, 3, "ends too early"),
    ("-", 1, 1, "ends too early"),
    ("(a", 2, 2, "ends too early"),
    ("a)", 1, 2, "unexpected `)`"),
    ("-(a|b)", 1, 2, "unexpected"),
    ("--a", 1, 3, "unexpected `-a`"),
    ("a & & b", 4, 5, "unexpected `&`"),
    ("a &&& b", 4, 5, "unexpected `&`"),
    ("|a", 0, 1, "unexpected"),
    ("and", 0, 3, "unexpected"),
    ("or", 0, 2, "unexpected"),
    ("and-x", 0, 3, "unexpected"),
    ("not:x", 3, 5, "empty operator"),
    ("()", 1, 2, "unexpected `)`"),
    ("host:", 5, 5, "ends too early"),
    ("'a", 0, 1, "unclosed quote"),
    ("''", 0, 2, "empty quotes"),  # flux-core skips them
    ('a "" b', 2, 4, "empty quotes"),
    ("a:|b", 2, 3, "unexpected `|`"),  # flux-core: `a:b`, its pending `a:` jumps the `|`
    ("a: (b)", 3, 4, "unexpected `(`"),
    ("'a:'", 4, 4, "ends too early"),
    ('a "b c', 2, 3, "unclosed quote"),
    ("a,,b", 0, 4, "empty property"),
    ("a,", 0, 2, "empty property"),
    (":x", 0, 2, "empty operator"),
    ("a!b:x", 0, 4, "invalid character `!`"),
    ("'or:x'", 0, 3, "not a constraint operator"),
]


@pytest.mark.parametrize(("text", "start", "end", "words"), REQUIRES_INVALID)
def test_requires_invalid(text: str, start: int, end: int, words: str) -> None:
    with pytest.raises(FluxLangError) as info:
        parse_requires(text)
    err = info.value
    assert (err.start, err.end) == (start, end), err
    assert words in err.message
    assert err.help
    assert err.language == "requires"


FORMAT_REQUIRES = [
    (P("a"), "a"),
    (P("a", "b"), "a,b"),
    (P("^a"), "^a"),
    (P("a b"), "'a b'"),
    (P("it's here"), '"it\'s here"'),
    (P("-x"), "'-x'"),
    (P("not"), "'not'"),
    (P("and-x"), "'and-x'"),
    (P("a:b"), "properties:a:b"),
    ({"hostlist": ["n[1-4]"]}, "host:n[1-4]"),
    ({"ranks": ["0-3"]}, "rank:0-3"),
    ({"hostlist": ["a b"]}, "host:'a b'"),
    ({"foo": ["bar"]}, "foo:bar"),
    (NOT(P("a")), "-a"),
    (NOT(NOT(P("a"))), "not (-a)"),
    (NOT(OR(P("a"), P("b"))), "not (a | b)"),
    (OR(P("a"), P("b", "c")), "a | b,c"),
    (AND(OR(P("a"), P("b")), NOT({"hostlist": ["n7"]})), "(a | b) & -host:n7"),
    (OR(P("a"), AND(P("b"), NOT(P("c")))), "a | (b & -c)"),
    (AND(P("a"), AND(P("b"), {"ranks": ["1"]})), "a & (b & rank:1)"),
]


@pytest.mark.parametrize(("obj", "text"), FORMAT_REQUIRES)
def test_format_requires(obj: dict[str, Any], text: str) -> None:
    assert format_requires(obj) == text
    assert parse_requires(text) == obj


@pytest.mark.parametrize(
    ("obj", "text", "reads_as"),
    [
        (AND(P("a"), P("b")), "a & b", P("a", "b")),
        (OR(P("a")), "a", P("a")),
        (AND(AND(P("a"), {"ranks": ["1"]}), P("c")), "(a & rank:1) & c", None),
    ],
)
def test_format_requires_equivalent(
    obj: dict[str, Any], text: str, reads_as: dict[str, Any] | None
) -> None:
    """Objects the query parser never builds come back as an equivalent query."""
    assert format_requires(obj) == text
    if reads_as is not None:
        assert parse_requires(text) == reads_as


@pytest.mark.parametrize(
    "obj",
    [
        {},
        {"and": []},
        {"or": []},
        {"not": []},
        {"not": [P("a"), P("b")]},
        {"hostlist": ["a", "b"]},
        {"hostlist": []},
        {"host": ["x"]},  # `host:` reads as hostlist
        {"properties": ["a,b"]},
        {"properties": [""]},
        {"properties": ['it\'s "x"']},
        {"properties": "a"},
        {"a": ["x"], "b": ["y"]},
        {"bad op": ["x"]},
        {"and": [P("a"), {}]},
    ],
)
def test_format_requires_none(obj: dict[str, Any]) -> None:
    assert format_requires(obj) is None


# ── SPLAT placement.constraint <-> RFC 31 ─────────────────────────────────────────────────────

SPLAT = [
    ("avx512", P("avx512"), "avx512"),
    ("avx512&ib", P("avx512", "ib"), "avx512&ib"),
    ("a|b", OR(P("a"), P("b")), "a|b"),
    ("a|b&c", OR(P("a"), P("b", "c")), "a|(b&c)"),
    ("a&b|c", OR(P("a", "b"), P("c")), "(a&b)|c"),
    ("(a|b)&c", AND(OR(P("a"), P("b")), P("c")), "(a|b)&c"),
    ("c&(a|b)&d", AND(P("c", "d"), OR(P("a"), P("b"))), "c&d&(a|b)"),
    ("a&(b&c)", P("a", "b", "c"), "a&b&c"),
    ("(a|b)|c", OR(P("a"), P("b"), P("c")), "a|b|c"),
    (" a & b ", P("a", "b"), "a&b"),
    ("intel.x-86:v=2/a@b%c+d", P("intel.x-86:v=2/a@b%c+d"), "intel.x-86:v=2/a@b%c+d"),
]


@pytest.mark.parametrize(("text", "obj", "canonical"), SPLAT)
def test_constraint_from_splat(text: str, obj: dict[str, Any], canonical: str) -> None:
    assert constraint_from_splat(text) == obj
    assert constraint_to_splat(obj) == canonical
    assert constraint_from_splat(canonical) == obj


@pytest.mark.parametrize(
    ("text", "start", "end", "unsupported"),
    [
        ("", 0, 0, False),
        ("a&", 2, 2, False),
        ("a&&b", 2, 3, False),
        ("^x", 0, 2, False),
        ("a,b", 1, 3, False),
        ("(a", 2, 2, False),
        ("a*2", 1, 3, True),
        ("(a|b)*2", 5, 7, True),
        ("[a|b]", 0, 5, True),
        ("[a|b]&c", 0, 7, True),
    ],
)
def test_constraint_from_splat_invalid(text: str, start: int, end: int, unsupported: bool) -> None:
    with pytest.raises(FluxLangError) as info:
        constraint_from_splat(text)
    err = info.value
    assert isinstance(err, FluxLangUnsupported) == unsupported
    assert (err.start, err.end) == (start, end)
    assert err.language == "constraint"
    assert err.help


@pytest.mark.parametrize(
    "obj",
    [
        {},
        {"properties": []},
        {"properties": ["^ssd"]},
        {"properties": ["a b"]},
        {"properties": ["a|b"]},
        {"hostlist": ["n1"]},
        {"ranks": ["0"]},
        NOT(P("a")),
        AND(P("a"), NOT(P("b"))),
        {"and": []},
        {"foo": ["x"]},
    ],
)
def test_constraint_to_splat_none(obj: dict[str, Any]) -> None:
    assert constraint_to_splat(obj) is None


def test_deep_nesting_is_an_error_or_none() -> None:
    """A pathological object or query stops at a limit instead of a RecursionError."""
    deep: dict[str, Any] = P("a")
    for _ in range(200):
        deep = NOT(deep)
    assert format_requires(deep) is None
    assert constraint_to_splat(deep) is None
    text = "(" * 3000 + "a" + ")" * 3000
    assert parse_requires(text) == P("a")
    assert constraint_from_splat(text) == P("a")
    with pytest.raises(FluxLangError, match="too long"):
        parse_requires("a " * 6000)
