"""ClassAd properties over generated ASTs and texts: the canonical text reads back to the same
AST (offsets aside), and any text either parses or raises ClassAdError, never anything else.
"""

from __future__ import annotations

import functools
import math
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bammmc.frontends.classad import (
    SCOPES,
    Attribute,
    AttrRef,
    Binary,
    Call,
    ClassAdError,
    Elvis,
    Expr,
    ListExpr,
    Literal,
    Paren,
    Record,
    Select,
    Subscript,
    Ternary,
    Unary,
    parse,
    unparse,
)

SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=500,
    suppress_health_check=[HealthCheck.too_slow],
)

#: binary operators by precedence level, loosest first (source.cpp)
LEVELS = [["||"], ["&&"], ["|"], ["^"], ["&"], ["==", "!=", "is", "isnt"], ["<", "<=", ">", ">="],
          ["<<", ">>", ">>>"], ["+", "-"], ["*", "/", "%"]]  # fmt: skip
LEVEL = {op: n + 1 for n, ops in enumerate(LEVELS) for op in ops}
UNARY, ELVIS, CHAIN, PRIMARY = 11, 12, 13, 14
KEYWORDS = {"true", "false", "undefined", "error", "is", "isnt"}

#: names the unparser prints as written (selected names, scoped names, function names)
PLAIN = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True).filter(
    lambda n: n.lower() not in KEYWORDS
)
#: any attribute name (quoted by the unparser when it must be)
NAMES = PLAIN | st.text(st.characters(exclude_characters="\x00"), min_size=1, max_size=6)
FUNCTIONS = PLAIN.filter(lambda n: n.lower() not in ("abstime", "reltime"))


def level(node: Expr) -> int:
    if isinstance(node, Ternary):
        return 0
    if isinstance(node, Binary):
        return LEVEL[node.op]
    if isinstance(node, Unary):
        return UNARY
    if isinstance(node, Elvis):
        return ELVIS
    if isinstance(node, Select | Subscript):
        return CHAIN
    return PRIMARY


def at_least(node: Expr, minimum: int) -> Expr:
    """``node`` in parentheses where the grammar needs a tighter-binding operand."""
    return Paren(node) if level(node) < minimum else node


# HTCondor prints 16 significant digits: only such values read back exactly
REALS = (
    st.floats(allow_nan=False, allow_infinity=False)
    .map(lambda x: float(f"{x:.15E}"))
    .filter(math.isfinite)
)

LITERALS: st.SearchStrategy[Literal] = st.one_of(
    st.builds(Literal, st.just("integer"), st.integers(-(2**63), 2**63 - 1)),
    st.builds(Literal, st.just("real"), REALS),
    st.builds(Literal, st.just("string"), st.text(st.characters(exclude_characters="\x00"))),
    st.builds(Literal, st.just("boolean"), st.booleans()),
    st.just(Literal("undefined")),
    st.just(Literal("error")),
    st.builds(Literal, st.just("reltime"), st.integers(-(10**7), 10**7).map(lambda q: q / 4)),
    st.builds(
        Literal,
        st.just("abstime"),
        st.tuples(
            st.integers(0, 4 * 10**9),  # 1970 to 2096
            st.integers(-12 * 60, 14 * 60).map(lambda m: m * 60),
        ),
    ),
)
SCOPE_NAMES = st.sampled_from(sorted({f(s) for s in SCOPES for f in (str, str.upper, str.title)}))
REFERENCES: st.SearchStrategy[AttrRef] = st.one_of(
    st.builds(AttrRef, NAMES),
    st.builds(AttrRef, NAMES, absolute=st.just(True)),
    st.builds(AttrRef, PLAIN, SCOPE_NAMES),
)
LEAVES = LITERALS | REFERENCES
KINDS = st.integers(0, 11)
STOP = st.integers(0, 4)


@functools.cache
def exprs(depth: int = 3) -> st.SearchStrategy[Expr]:
    """Expressions nested at most ``depth`` deep, parenthesized where the grammar needs it."""
    return _exprs(depth)


@st.composite
def _exprs(draw: st.DrawFn, depth: int) -> Expr:
    if depth == 0 or draw(STOP) == 0:
        return draw(LEAVES)
    sub = exprs(depth - 1)
    kind = draw(KINDS)
    if kind == 0:
        cond, yes, no = draw(sub), draw(sub), draw(sub)
        return Ternary(at_least(cond, 1), yes, no)
    if kind in (1, 2, 3):
        op = draw(st.sampled_from(sorted(LEVEL)))
        left, right = draw(sub), draw(sub)
        return Binary(op, at_least(left, LEVEL[op]), at_least(right, LEVEL[op] + 1))
    if kind == 4:
        op = draw(st.sampled_from(["-", "+", "!", "~"]))
        operand = at_least(draw(sub), UNARY)
        if op == "-" and unparse(operand)[:1].isdigit():
            operand = Paren(operand)  # `- 3` prints as ` -3`, which reads back as the literal -3
        return Unary(op, operand)
    if kind == 5:
        return Elvis(at_least(draw(sub), CHAIN), at_least(draw(sub), ELVIS))
    if kind == 6:
        base = at_least(draw(sub), CHAIN)
        if isinstance(base, Literal) and base.kind == "integer":
            base = Paren(base)  # `3.x` reads as a malformed number
        name = draw(PLAIN)
        if isinstance(base, AttrRef) and base.scope is None and not base.absolute:
            if base.name.lower() in SCOPES:
                return AttrRef(name, base.name)
        return Select(base, name)
    if kind == 7:
        return Subscript(at_least(draw(sub), CHAIN), draw(sub))
    if kind == 8:
        return Call(draw(FUNCTIONS), tuple(draw(st.lists(sub, max_size=3))))
    if kind == 9:
        return ListExpr(tuple(draw(st.lists(sub, max_size=3))))
    if kind == 10:
        # attributes as HTCondor keeps them: one per name, by length, then case-insensitively
        names = draw(st.lists(NAMES, max_size=3, unique_by=lambda n: n.encode().lower()))
        names.sort(key=lambda n: (len(n.encode()), n.encode().lower()))
        return Record(tuple(Attribute(n, draw(sub)) for n in names))
    return Paren(draw(sub))


@SETTINGS
@given(exprs())
def test_canonical_text_reads_back_to_the_same_ast(expr: Expr) -> None:
    text = unparse(expr)
    again = parse(text)
    assert again == expr, text
    assert (again.start, again.end) == (len(text) - len(text.lstrip()), len(text))


#: the characters ClassAd text is made of, weighted toward the tricky ones
ALPHABET = string.ascii_letters[:8] + string.digits[:4] + " \n.-+*/%!~&|^<>=?:;,()[]{}'\"\\_eExX"
TEXTS = st.text(st.sampled_from(ALPHABET), max_size=40) | st.sampled_from(
    ["a ?: b", "MY.x >= 1", '"s" "t"', "f(a;b)", "[a=1;]", "{1,2}", "x /* c */ // d\n"]
)


@SETTINGS
@given(TEXTS)
def test_any_text_parses_or_is_a_located_error(text: str) -> None:
    try:
        first = unparse(parse(text))
    except ClassAdError as err:
        assert 0 <= err.start <= err.end <= len(text) + 1
        assert err.message
        return
    try:
        second = unparse(parse(first))
    except ClassAdError:
        return  # `a.'b c'` prints as `a.b c`, as HTCondor does
    assert unparse(parse(second)) == second  # stable once ` -3` has become `-3`
