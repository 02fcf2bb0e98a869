"""Properties of the SPLAT reader and writer over generated jobs.

Jobs are generated from the IR's own type description (tests/strategies.py), so every field of
every struct is exercised: a generated document either reads cleanly or gives coded diagnostics;
one that reads cleanly round-trips exactly (``parse(emit(job)) == job``) and its canonical text is
stable (``emit(parse(emit(job))) == emit(job)``). Arbitrary text never raises.
"""

from __future__ import annotations

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec import inspect as mi

import bammmc
from bammmc.ir.job import Job
from tests.strategies import VALUES, documents

SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(documents())
def test_generated_jobs_round_trip(text: str) -> None:
    job, diagnostics = bammmc.parse(text, "splat")
    assert all(d.code[0] in "EW" and d.span is not None for d in diagnostics), diagnostics
    if job is None:
        assert any(d.is_error for d in diagnostics)
        return
    out, _ = bammmc.emit(job, "splat")
    assert out is not None
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
