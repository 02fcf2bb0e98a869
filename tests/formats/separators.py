"""The check of the `UNWRITABLE_*` and `KEPT_*` tables in tests/formats/test_<format>.py: a
SPLAT spec whose value holds a separator of the sub-language a writer puts it into (a `,` in
a `-l` list, a `:` in a `-gpu` string, a `host:` prefix in a path…), and what the writer must
do with it: refuse it with an E140 naming the field and the character, or write it so that
the target reads the same single value back (issue 18, item 4)."""

from __future__ import annotations

import bammmc
from bammmc.diagnostics.model import Diagnostic


def emit(spec_yaml: str, target: str) -> tuple[str | None, list[Diagnostic]]:
    """The text and diagnostics of writing the SPLAT ``spec_yaml`` (a YAML flow mapping, read
    without errors) to ``target``."""
    job, diags = bammmc.parse(
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nspec: " + spec_yaml, "splat"
    )
    assert job is not None and not [d for d in diags if d.is_error], diags
    return bammmc.emit(job, target)


def refused(spec_yaml: str, target: str) -> list[tuple[str, str | None, str]]:
    """The ``(code, field, message)`` of each error of writing ``spec_yaml`` to ``target``."""
    _, diags = emit(spec_yaml, target)
    return [(d.code, d.field, d.message) for d in diags if d.is_error]


def directives(spec_yaml: str, target: str) -> list[str]:
    """The directive lines written (no errors allowed)."""
    text, diags = emit(spec_yaml, target)
    assert not [d for d in diags if d.is_error], diags
    assert text is not None
    heads = ("#PBS", "#BSUB", "#$", "#SBATCH", "#flux:")
    return [line for line in text.splitlines() if line.startswith(heads)]
