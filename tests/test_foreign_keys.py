"""Other schedulers' extension keys: each reported by name, lost or carried (W201 / W301, N003
for a key that is only the source's spelling of the portable value)."""

from __future__ import annotations

import msgspec
import pytest

import bammmc
from bammmc.backends.common import MIRRORS
from bammmc.ir.job import Extensions


@pytest.mark.parametrize("scheduler", sorted(MIRRORS))
def test_mirror_table_names_real_keys(scheduler: str) -> None:
    """A misspelt key in the table would silently never match."""
    block = next(f for f in msgspec.structs.fields(Extensions) if f.name == scheduler)
    ext_type = next(t for t in block.type.__args__ if t is not type(None))
    keys = {f.name for f in msgspec.structs.fields(ext_type)}
    assert set(MIRRORS[scheduler]) <= keys


SLURM_TO_PBS = [
    # (Slurm directive, foreign key, expected code)
    ("--mem=8G", "spec.extensions.slurm.mem", "N003"),  # one task: memoryPerTask carries it
    # per node on nodes Slurm fills as it likes: `memoryPerTask: 8Gi/node` carries it (PBS
    # writes a chunk per node, each with mem=8gb)
    ("--mem=8G -N 2 -n 3", "spec.extensions.slurm.mem", "N003"),
    ("--comment=hello", "spec.extensions.slurm.comment", "W201"),
    ("--nodes=2-4", "spec.extensions.slurm.nodes", "W301"),
    # GPUs only: the GPU fields' spelling; what PBS cannot say is the count's own W301
    ("--gres=gpu:2", "spec.extensions.slurm.gres", "N003"),
    # another generic resource beside them is more than the GPU fields hold
    ("--gres=gpu:2,nvme:1", "spec.extensions.slurm.gres", "W301"),
]


@pytest.mark.parametrize(("directive", "path", "code"), SLURM_TO_PBS)
def test_slurm_keys_for_pbs(directive: str, path: str, code: str) -> None:
    _, diags = bammmc.convert(f"#!/bin/bash\n#SBATCH {directive}\nsrun x\n", "slurm", "pbs")
    found = [d.code for d in diags if d.field == path]
    assert found == [code]
    assert not [d for d in diags if d.field == "spec.extensions.slurm"]  # no block-wide report


def test_pbs_keys_for_slurm() -> None:
    text = "#!/bin/bash\n#PBS -l cput=10:00:00\n#PBS -W depend=before:12\ncd x\n"
    _, diags = bammmc.convert(text, "pbs", "slurm")
    fields = {(d.code, d.field) for d in diags if d.field and ".extensions." in d.field}
    assert fields == {
        ("W201", "spec.extensions.pbs.cput"),
        ("W201", "spec.extensions.pbs.dependency"),
    }


def test_foreign_keys_report_their_source_line() -> None:
    text = "#!/bin/bash\n#SBATCH -J a\n#SBATCH --comment=hello\nsrun x\n"
    _, diags = bammmc.convert(text, "slurm", "pbs")
    (diag,) = [d for d in diags if d.field == "spec.extensions.slurm.comment"]
    assert diag.span is not None and diag.span.line == 3


FOREIGN = {
    "slurm": ("comment: hi", "spec.extensions.slurm.comment"),
    "pbs": ("aoe: rhel8", "spec.extensions.pbs.aoe"),
    "lsf": ("login_shell: /bin/bash", "spec.extensions.lsf.login_shell"),
    "sge": ("ckpt: blcr", "spec.extensions.sge.ckpt"),
}


WRITERS = {"slurm": "slurm", "pbs": "pbs", "torque": "pbs", "lsf": "lsf", "sge": "sge"}


@pytest.mark.parametrize(
    ("target", "block"),
    [(t, b) for t, own in WRITERS.items() for b in sorted(FOREIGN) if b != own],
)
def test_every_writer_reports_every_foreign_key(target: str, block: str) -> None:
    line, path = FOREIGN[block]
    job, _ = bammmc.parse(
        f"apiVersion: bammm.io/v1alpha1\nkind: Job\nspec:\n  extensions:\n    {block}:\n"
        f"      {line}\n",
        "splat",
    )
    assert job is not None
    _, diags = bammmc.emit(job, target)
    assert [(d.code, d.field) for d in diags] == [("W201", path)]


#: what of a Slurm key the portable fields leave out, named (sbatch(1) --mail-type: `ALL` is
#: BEGIN, END, FAIL, INVALID_DEPEND, REQUEUE and STAGE_OUT; --nodes: "minnodes[-maxnodes]")
SLURM_PARTS = [
    ("pbs", "--mail-type=BEGIN,TIME_LIMIT", "W301", "`TIME_LIMIT` has no event here"),
    ("pbs", "--mail-type=BEGIN,TIME_LIMIT", "W301", "mail is sent at begin only"),
    ("lsf", "--mail-type=END,ARRAY_TASKS", "W301", "`ARRAY_TASKS` has no event"),
    ("lsf", "--mail-type=ALL", "N003", "is read as its events (begin, end, fail and requeue)"),
    ("pbs", "--nodes=2-4", "W301", "the job is written from its minimum, 2 nodes"),
    ("sge", "--nodes=2-4", "W301", "`--nodes=2-4` is a range"),
]


@pytest.mark.parametrize(("target", "directive", "code", "words"), SLURM_PARTS)
def test_slurm_keys_name_what_is_left_out(
    target: str, directive: str, code: str, words: str
) -> None:
    key = "mail_type" if "mail" in directive else "nodes"
    text = f"#!/bin/bash\n#SBATCH {directive} --mail-user=a@b.c -n 1\nsrun x\n"
    _, diags = bammmc.convert(text, "slurm", target)
    (diag,) = [d for d in diags if d.field == f"spec.extensions.slurm.{key}"]
    assert diag.code == code and words in diag.message, diag.message


#: one mail event a target has no letter for, beside others it writes: approximated, once
MISSED_MAIL = [
    ("pbs", "--mail-type=ALL", "W301", "PBS has no mail on `requeue`; the job's other"),
    ("sge", "--mail-type=ALL", "W301", "Grid Engine has no mail on `requeue`; the job's"),
    ("lsf", "--mail-type=ALL", "W301", "reads back as `end`; LSF has no mail on `requeue`"),
    ("htcondor", "--mail-type=ALL", "W301", "has no mail on `begin`, `requeue`"),
    ("pbs", "--mail-type=REQUEUE", "W201", "PBS has no mail on `requeue`"),
]


@pytest.mark.parametrize(("target", "directive", "code", "words"), MISSED_MAIL)
def test_missed_mail_events_are_one_warning(
    target: str, directive: str, code: str, words: str
) -> None:
    text = f"#!/bin/bash\n#SBATCH {directive} --mail-user=a@b.c -n 1\nsrun x\n"
    _, diags = bammmc.convert(text, "slurm", target)
    (diag,) = [d for d in diags if d.field == "spec.notifications.events"]
    said = " ".join([diag.message, *diag.notes])  # a W201 gives its reason as a note
    assert diag.code == code and words in said, said
