"""The check of the `HONEST_*` tables in tests/formats/test_<format>.py: a SPLAT spec that a
writer once lost silently, and the (code, field) pairs it must now report."""

from __future__ import annotations

import bammmc


def losses(spec_yaml: str, target: str) -> set[tuple[str, str | None]]:
    """The (code, field) of every diagnostic of writing the SPLAT ``spec_yaml`` (a YAML flow
    mapping, read without errors) to ``target``."""
    job, diags = bammmc.parse(
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nspec: " + spec_yaml, "splat"
    )
    assert job is not None and not [d for d in diags if d.is_error], diags
    _, diags = bammmc.emit(job, target)
    return {(d.code, d.field) for d in diags}
