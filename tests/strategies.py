"""Hypothesis strategies for SPLAT jobs, shared by the property tests.

Jobs are generated from the IR's own type description (msgspec.inspect), so every field of
every struct is exercised and a new field is picked up without touching this file.
:func:`documents` gives SPLAT YAML text (tests/property/test_splat_props.py); :func:`jobs` gives
the jobs of the documents that read cleanly (tests/test_honesty.py).
"""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import strategies as st
from msgspec import inspect as mi

import bammmc
from bammmc.ir.job import Job

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
#: Strings a scheduler's file can hold as they are (the hostile ones have their own tests:
#: tests/property/test_injection.py), so that a generated job is more often written than
#: refused.
PLAIN_TEXT = st.text(alphabet="abcxyz019_-./", min_size=1, max_size=12)


def jsonish(text: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    return st.recursive(
        st.none() | st.booleans() | st.integers(-10, 10) | text,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
        max_leaves=6,
    )


JSONISH = jsonish(TEXT)


def strategy(
    t: mi.Type, depth: int = 0, text: st.SearchStrategy[str] = TEXT
) -> st.SearchStrategy[Any]:
    """Plain data (a YAML document's value) for the IR type ``t``."""
    if isinstance(t, mi.UnionType):
        options = [x for x in t.types if not isinstance(x, mi.NoneType)]
        return strategy(options[0], depth, text)
    if isinstance(t, mi.StructType):
        required = {
            f.encode_name: strategy(f.type, depth + 1, text) for f in t.fields if f.required
        }
        optional = {}
        if depth < 4:
            optional = {
                f.encode_name: strategy(f.type, depth + 1, text) for f in t.fields if not f.required
            }
        return st.fixed_dictionaries(required, optional=optional)
    if isinstance(t, mi.ListType):
        return st.lists(strategy(t.item_type, depth + 1, text), max_size=2)
    if isinstance(t, mi.DictType):
        return st.dictionaries(
            text.filter(bool), strategy(t.value_type, depth + 1, text), max_size=2
        )
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
        return text
    if isinstance(t, mi.CustomType):
        return st.sampled_from(VALUES[t.cls.__name__])
    return JSONISH if text is TEXT else jsonish(text)


_JOB = mi.type_info(Job)
assert isinstance(_JOB, mi.StructType)
_SPEC_TYPE = next(f.type for f in _JOB.fields if f.name == "spec")
_METADATA_TYPE = next(f.type for f in _JOB.fields if f.name == "metadata")
SPEC = strategy(_SPEC_TYPE)


@st.composite
def documents(draw: st.DrawFn, text: st.SearchStrategy[str] = TEXT) -> str:
    """A SPLAT document: a generated `spec` (and, with ``text`` given, `metadata`)."""
    spec = draw(SPEC if text is TEXT else strategy(_SPEC_TYPE, text=text))
    doc: dict[str, Any] = {"apiVersion": "bammm.io/v1alpha1", "kind": "Job"}
    if text is not TEXT:
        doc["metadata"] = draw(strategy(_METADATA_TYPE, text=text))
    doc["spec"] = spec
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)


@st.composite
def jobs(draw: st.DrawFn, text: st.SearchStrategy[str] = PLAIN_TEXT) -> Job:
    """A job the SPLAT reader accepts without errors (documents that do not read are
    rejected, so hypothesis steers towards the ones that do)."""
    job, diagnostics = bammmc.parse(draw(documents(text)), "splat")
    if job is None or any(d.is_error for d in diagnostics):
        from hypothesis import reject

        reject()
    assert job is not None
    return job
