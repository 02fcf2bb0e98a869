"""A dependency a target does not write says why (W201 on the dependency): it has no
scheme, or the target has no such scheme (a scheme without a job id is an error when read).
Table: the dependency → the reason every target gives."""

from __future__ import annotations

import pytest

import bammmc

#: (the dependency as a YAML flow mapping, the reason every one of these targets gives)
GAPS = [
    # SPLAT `count` without a scheme: wait for N elements of the array job `value`
    ("{count: 3, value: '1234'}", "a dependency without a `scheme` (wait for 3 elements"),
    ("{scheme: singleton}", "has no `singleton` dependency"),
]
TARGETS = ["pbs", "torque", "lsf", "sge"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("dependency", "reason"), GAPS)
def test_a_dependency_not_written_says_why(dependency: str, reason: str, target: str) -> None:
    job, diags = bammmc.parse(
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nspec:\n"
        f"  dependencies: [{dependency}]\n  execution: {{script: 'true'}}\n",
        "splat",
    )
    assert job is not None and not [d for d in diags if d.is_error], diags
    _, diags = bammmc.emit(job, target)
    lost = [d for d in diags if d.field == "spec.dependencies[0]"]
    assert [d.code for d in lost] == ["W201"]
    why = " ".join(lost[0].notes)
    assert reason in why
    assert "None" not in why
