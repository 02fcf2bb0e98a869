"""Properties of the SPLAT reader and writer over generated jobs.

Jobs are generated from the IR's own type description (msgspec.inspect), so every field of every
struct is exercised: a generated document either reads cleanly or gives coded diagnostics; one
that reads cleanly round-trips exactly (``parse(emit(job)) == job``) and its canonical text is
stable (``emit(parse(emit(job))) == emit(job)``). Arbitrary text never raises.
"""

from __future__ import annotations

from typing import Any

import msgspec
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec import inspect as mi

import bammmc
from bammmc.ir.job import Job

SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Valid spellings of each typed value (the value grammars have their own property tests).
VALUES: dict[str, list[Any]] = {
    "Size": ["4Gi", "512Mi", "4G", 4096, "2gb", "1.5Gi", "64G/node", "2G/cpu", "100b"],
    "Cpu": [1, 4, "500m", 0.5, "2"],
    "Count": [1, 2, 0.5, "4/node", "8/job"],
    "Duration": ["PT2H30M", "2:30:00", "1-00:00:00", "150m", 9000, "unlimited", "P1D"],
    "IndexSpec": ["0-99", "1-50:2", "0-999%50", "1,3,7-12", 5],
    "Template": ["out.log", "{job_name}-{job_id}.out", "/s/{array_job_id}_{array_index}.err"],
    "Signal": ["USR1@60", "SIGTERM@300", "10@120"],
    "DateTime": ["2026-03-01T08:00:00Z", "2026-03-01T08:00", "2026-03-01"],
}

TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from("\n\t #:'\"{}"),
    max_size=20,
)
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)


def strategy(t: mi.Type, depth: int = 0) -> st.SearchStrategy[Any]:
    if isinstance(t, mi.UnionType):
        options = [x for x in t.types if not isinstance(x, mi.NoneType)]
        return strategy(options[0], depth)
    if isinstance(t, mi.StructType):
        required = {f.encode_name: strategy(f.type, depth + 1) for f in t.fields if f.required}
        optional = {}
        if depth < 4:
            optional = {
                f.encode_name: strategy(f.type, depth + 1) for f in t.fields if not f.required
            }
        return st.fixed_dictionaries(required, optional=optional)
    if isinstance(t, mi.ListType):
        return st.lists(strategy(t.item_type, depth + 1), max_size=2)
    if isinstance(t, mi.DictType):
        return st.dictionaries(TEXT.filter(bool), strategy(t.value_type, depth + 1), max_size=2)
    if isinstance(t, mi.LiteralType):
        return st.sampled_from(t.values)
    if isinstance(t, mi.BoolType):
        return st.booleans()
    if isinstance(t, mi.IntType):
        low = t.ge if t.ge is not None else -5
        high = t.le if t.le is not None else low + 1000
        return st.integers(low, high)
    if isinstance(t, mi.FloatType):
        return st.floats(0.01, 1.0) | st.integers(1, 10)
    if isinstance(t, mi.StrType):
        return TEXT
    if isinstance(t, mi.CustomType):
        return st.sampled_from(VALUES[t.cls.__name__])
    return JSONISH


_JOB = mi.type_info(Job)
assert isinstance(_JOB, mi.StructType)
SPEC = strategy(next(f.type for f in _JOB.fields if f.name == "spec"))


@st.composite
def documents(draw: st.DrawFn) -> str:
    spec = draw(SPEC)
    doc = {"apiVersion": "bammm.io/v1alpha1", "kind": "Job", "spec": spec}
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)


@SETTINGS
@given(documents())
def test_generated_jobs_round_trip(text: str) -> None:
    job, diagnostics = bammmc.parse(text, "splat")
    assert all(d.code[0] in "EW" and d.span is not None for d in diagnostics), diagnostics
    if job is None:
        assert any(d.is_error for d in diagnostics)
        return
    out, _ = bammmc.emit(job, "splat")
    again, more = bammmc.parse(out, "splat")
    assert again == job, out
    assert [d.code for d in more] == [d.code for d in diagnostics if d.code[0] == "W"]
    assert bammmc.emit(again, "splat")[0] == out


@SETTINGS
@given(st.text(max_size=300))
def test_arbitrary_text_never_raises(text: str) -> None:
    job, diagnostics = bammmc.parse(text, "splat")
    assert job is not None or any(d.is_error for d in diagnostics)


@SETTINGS
@given(documents(), st.integers(0, 400), st.sampled_from(["", "\n", ":", "- ", "  ", "&a", "*a"]))
def test_mutated_documents_never_raise(text: str, at: int, insert: str) -> None:
    at = min(at, len(text))
    job, diagnostics = bammmc.parse(text[:at] + insert + text[at:], "splat")
    assert job is not None or any(d.is_error for d in diagnostics)


def test_struct_types_are_covered_by_the_generator() -> None:
    """Every struct reachable from Job has a strategy (the generator walks all of them)."""
    seen: set[str] = set()

    def walk(t: mi.Type) -> None:
        if isinstance(t, mi.UnionType | mi.ListType | mi.DictType):
            for sub in (
                t.types
                if isinstance(t, mi.UnionType)
                else [t.item_type if isinstance(t, mi.ListType) else t.value_type]
            ):
                walk(sub)
        elif isinstance(t, mi.StructType) and t.cls.__name__ not in seen:
            seen.add(t.cls.__name__)
            for f in t.fields:
                walk(f.type)
        elif isinstance(t, mi.CustomType):
            assert t.cls.__name__ in VALUES

    walk(mi.type_info(Job))
    assert len(seen) > 40
    assert msgspec.structs.fields(Job)
