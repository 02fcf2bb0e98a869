"""The script body as its shell reads it (bammmc/ir/shell.py, issue 20 item 1): which variables
it expands, and the variable definitions a C shell script gets.

Expected values are bash(1)'s rules: "Enclosing characters in single quotes preserves the literal
value of each character"; a here-document whose delimiter is quoted has "no parameter and
variable expansion" in its lines; a word beginning with `#` starts a comment; in `$(( … ))`
"shell variables may also be referenced by name without using the parameter expansion syntax"."""

from __future__ import annotations

import pytest

import bammmc
from bammmc.ir.shell import interpreter, references

EXPANDS = [
    ("plain", "echo $A\n", ["A"]),
    ("braces and operators", "echo ${A} ${B:-x} ${#C} ${D%%.*} ${E[@]}\n", list("ABCDE")),
    ("double quotes", 'echo "$A and ${B}"\n', ["A", "B"]),
    ("single quotes are literal", "echo '$A' \"$B\"\n", ["B"]),
    ("ANSI-C quotes are literal", "echo $'$A\\n'\n", []),
    ("a comment after a command", "cd x # then $A\n", []),
    ("a comment line", "# $A\necho ok\n", []),
    ("command substitution", "N=$(wc -l < $A)\nM=`cat $B`\n", ["A", "B"]),
    ("an unquoted here-document expands", "cat <<EOF\n$A\nEOF\n", ["A"]),
    ("a quoted here-document does not", "cat <<'EOF'\n$A\nEOF\ncat <<\"X\"\n$B\nX\n", []),
    ("arithmetic names", "x=$(( N * 2 ))\n(( M++ ))\n", ["N", "M"]),
    ("an assignment is not a use", "A=1\nexport B=2\n", []),
    ("special parameters are not names", "echo $1 $@ $$ $?\n", ["1"]),
]


@pytest.mark.parametrize(("text", "names"), [r[1:] for r in EXPANDS], ids=[r[0] for r in EXPANDS])
def test_the_variables_the_shell_expands(text: str, names: list[str]) -> None:
    assert [r.name for r in references("#!/bin/bash\n" + text)] == names


def test_a_stretch_the_grammar_does_not_know_is_scanned_as_text() -> None:
    # an unclosed `if` (an ERROR node): its lines are read for `$NAME` too, never skipped
    text = "#!/bin/bash\nif [ x ; then (\necho $PBS_JOBID\n"
    assert "PBS_JOBID" in [r.name for r in references(text)]


def test_positions_are_characters() -> None:
    (ref,) = references("#!/bin/bash\necho é $A\n")
    assert (ref.line, ref.column, ref.start, ref.end) == (2, 8, 19, 21)


INTERPRETERS = [
    ("#!/bin/csh -f\n", None, "csh"),
    ("#!/usr/bin/env tcsh\n", None, "tcsh"),
    ("#!/bin/bash\n", "/bin/tcsh", "tcsh"),  # the job's own shell (`-S`) wins
    ("echo\n", None, "sh"),
]


@pytest.mark.parametrize(("text", "shell", "name"), INTERPRETERS)
def test_interpreter(text: str, shell: str | None, name: str) -> None:
    assert interpreter(text, shell) == name


#: a csh script's definitions are `setenv`, guarded by `$?` (csh stops at an unset variable:
#: "Undefined variable"); `export` is "Command not found" there (both seen on the real Slurm)
CSH = "#!/bin/csh\n#PBS -l select=1:ncpus=2\ncd $PBS_O_WORKDIR\necho $PBS_JOBID\n"
CSH_LINES = [
    ("slurm", 'if ($?SLURM_SUBMIT_DIR) setenv PBS_O_WORKDIR "$SLURM_SUBMIT_DIR"'),
    ("sge", 'if ($?SGE_O_WORKDIR) setenv PBS_O_WORKDIR "$SGE_O_WORKDIR"'),
    ("lsf", 'if ($?LSB_JOBID) setenv PBS_JOBID "$LSB_JOBID"'),
]


@pytest.mark.parametrize(("target", "line"), CSH_LINES)
def test_a_csh_script_gets_setenv(target: str, line: str) -> None:
    out, diags = bammmc.convert(CSH, "pbs", target)
    assert out is not None, diags
    assert line in out.splitlines(), out
    assert "export " not in out, out


def test_a_csh_script_gets_no_definition_that_needs_a_bourne_shell() -> None:
    # Slurm builds a PBS node file with `$(mktemp …)`: not csh; it is named, not written
    text = "#!/bin/csh\n#PBS -l select=1:ncpus=4\ncat $PBS_NODEFILE\n"
    out, diags = bammmc.convert(text, "pbs", "slurm")
    assert out is not None and "PBS_NODEFILE" not in out.split("cat", 1)[0], out
    (diag,) = [d for d in diags if "PBS_NODEFILE" in d.message]
    assert diag.code == "W301" and "C shell" in diag.message
    # a value the job decides is a csh `setenv` line
    out, _ = bammmc.convert("#!/bin/csh\n#$ -pe smp 4\necho $NSLOTS\n", "sge", "slurm")
    assert out is not None and "\nsetenv NSLOTS 4\n" in out, out


#: Grid Engine runs a script with `-S` or the queue's shell, not its `#!` line (the oracle ran
#: a `#!/bin/csh` script with /bin/sh): the `#!` line's shell becomes `-S`
SGE_SHELL = [
    ("#!/bin/bash", "#$ -S /bin/bash", None),
    ("#!/bin/csh", "#$ -S /bin/csh", None),
    ("#!/usr/bin/env bash", "#$ -S /bin/bash", None),
    ("#!/bin/bash -l", "#$ -S /bin/bash", "`-l` of `#!/bin/bash -l` is not passed"),
    ("#!/usr/bin/env python3", None, "not `python3`"),
]


@pytest.mark.parametrize(("shebang", "line", "warning"), SGE_SHELL)
def test_the_shebang_shell_is_grid_engines_s(
    shebang: str, line: str | None, warning: str | None
) -> None:
    out, diags = bammmc.convert(f"{shebang}\n#SBATCH -n 1\necho ok\n", "slurm", "sge")
    assert out is not None, diags
    shells = [x for x in out.splitlines() if x.startswith("#$ -S")]
    assert shells == ([line] if line else []), out
    said = [d.message for d in diags if d.code == "W301" and d.field == "spec.execution.script"]
    assert any(warning in m for m in said) if warning else not said, said
