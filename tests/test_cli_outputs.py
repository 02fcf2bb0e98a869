"""Nothing of the user's is overwritten (issue #18, item 1): the files bammmc writes, and the
ones it refuses to replace — a script of the user's beside `-o`, the input itself (by path, link
or inode, also on standard input), devices, FIFOs, sockets, read-only files — and `-o DIR`."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bammmc.cli import main

ROOT = Path(__file__).parent.parent
SBATCH = "#!/bin/bash\n#SBATCH -J two\nhostname\n"
MINE = "#!/bin/bash\necho my own training script\n"


def run(*argv: str) -> tuple[int, list[dict[str, object]]]:
    result = CliRunner().invoke(main, [*argv, "--diagnostics", "json"], catch_exceptions=False)
    assert "Traceback" not in result.stderr
    return result.exit_code, [json.loads(line) for line in result.stderr.splitlines() if line]


def codes(diags: list[dict[str, object]]) -> list[object]:
    return [d["code"] for d in diags if d["severity"] == "error"]


@pytest.fixture
def job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    src = tmp_path / "train.sbatch"
    src.write_text(SBATCH)
    return src


# ── the script beside an HTCondor submit file ─────────────────────────────────────────────


def test_a_script_of_the_users_beside_the_output_is_not_replaced(job: Path) -> None:
    Path("train.sh").write_text(MINE)
    status, diags = run(str(job), "-o", "train.sub")
    assert status == 2 and codes(diags) == ["E017"]
    (diag,) = [d for d in diags if d["code"] == "E017"]
    assert diag["file"] == "train.sh" and "--force" in str(diag["help"])
    assert Path("train.sh").read_text() == MINE
    assert sorted(os.listdir()) == ["train.sbatch", "train.sh"]  # nothing written


def test_force_replaces_it(job: Path) -> None:
    Path("train.sh").write_text(MINE)
    status, _ = run(str(job), "-o", "train.sub", "--force")
    assert status == 0
    assert Path("train.sh").read_text().endswith("\nhostname\n")


def test_a_script_bammmc_wrote_is_replaced_again(job: Path) -> None:
    assert run(str(job), "-o", "train.sub")[0] == 0
    script = Path("train.sh").read_text()
    assert script.splitlines()[1].startswith("# bammmc: written with `train.sub`")
    job.write_text(SBATCH.replace("hostname", "date"))
    assert run(str(job), "-o", "train.sub")[0] == 0  # no --force needed: it is bammmc's own
    assert Path("train.sh").read_text().endswith("\ndate\n")
    # written for another submit file, it is still bammmc's
    assert run(str(job), "-o", "other.sub")[0] == 0
    os.replace("other.sh", "train.sh")
    assert run(str(job), "-o", "train.sub")[0] == 0


def test_the_script_never_calls_itself(job: Path) -> None:
    """`bash train.sh` in a script written as `train.sh` runs itself: refused, `--force` too."""
    job.write_text("#!/bin/bash\n#SBATCH -n 2\nbash train.sh --epochs 3\n")
    Path("train.sh").write_text(MINE)
    for extra in ((), ("--force",)):
        status, diags = run(str(job), "-o", "train.sub", *extra)
        assert status == 2 and codes(diags) == ["E018"], diags
        assert "another stem" in str(diags[0]["help"])
        assert Path("train.sh").read_text() == MINE
    assert run(str(job), "-o", "train-job.sub")[0] == 0
    assert Path("train-job.sh").read_text().endswith("\nbash train.sh --epochs 3\n")
    assert Path("train.sh").read_text() == MINE


def test_a_read_only_script_beside_the_output(job: Path) -> None:
    assert run(str(job), "-o", "train.sub")[0] == 0
    os.chmod("train.sh", 0o555)
    status, diags = run(str(job), "-o", "train.sub")
    assert status == 2 and codes(diags) == ["E012"]
    assert run(str(job), "-o", "train.sub", "--force")[0] == 0


# ── the input is never an output ──────────────────────────────────────────────────────────


def test_the_output_is_not_the_input_by_path_link_or_inode(job: Path) -> None:
    assert codes(run(str(job), "-o", "train.sbatch", "--to", "slurm")[1]) == ["E013"]
    os.symlink("train.sbatch", "link.sbatch")
    assert codes(run(str(job), "-o", "link.sbatch")[1]) == ["E013"]
    os.link("train.sbatch", "hard.sbatch")
    assert codes(run(str(job), "-o", "hard.sbatch")[1]) == ["E013"]
    assert job.read_text() == SBATCH


def test_the_output_is_not_the_file_standard_input_comes_from(job: Path) -> None:
    """`bammmc - -o job.sbatch < job.sbatch` would read the job and write over it."""
    with open(job, "rb") as stdin:
        proc = subprocess.run(
            [sys.executable, "-m", "bammmc", "-", "--from", "slurm", "-o", str(job)],
            stdin=stdin,
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    assert proc.returncode == 2 and "E013" in proc.stderr, proc.stderr
    assert job.read_text() == SBATCH


def test_the_script_beside_the_output_is_not_the_input(job: Path) -> None:
    os.replace(job, "train.sh")
    status, diags = run("train.sh", "--from", "slurm", "-o", "train.sub")
    assert status == 2 and codes(diags) == ["E013"]
    assert Path("train.sh").read_text() == SBATCH and not Path("train.sub").exists()


# ── devices, FIFOs, sockets, read-only files ──────────────────────────────────────────────


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_device_is_never_replaced(job: Path) -> None:
    """A private node of the null device, never /dev/null itself: on a bammmc that did
    replace devices (as one did, as root), the test must not break the machine."""
    os.mknod("null.pbs", stat.S_IFCHR | 0o666, os.makedev(1, 3))
    os.symlink("null.pbs", "link.pbs")
    for out in ("null.pbs", "link.pbs"):
        status, diags = run(str(job), "-o", out, "--to", "pbs")
        assert status == 2 and codes(diags) == ["E011"], diags
        assert "character device" in str(diags[0]["message"])
    assert stat.S_ISCHR(os.stat("null.pbs").st_mode)


def test_a_fifo_or_a_socket_is_never_replaced(job: Path) -> None:
    os.mkfifo("pipe.pbs")
    server = socket.socket(socket.AF_UNIX)
    server.bind("sock.pbs")
    try:
        for out in ("pipe.pbs", "sock.pbs"):
            status, diags = run(str(job), "-o", out)
            assert status == 2 and codes(diags) == ["E011"], diags
        assert stat.S_ISFIFO(os.stat("pipe.pbs").st_mode)
        assert stat.S_ISSOCK(os.stat("sock.pbs").st_mode)
    finally:
        server.close()


def test_a_read_only_output_needs_force(job: Path) -> None:
    Path("done.pbs").write_text("#!/bin/bash\n#PBS -N released\n")
    os.chmod("done.pbs", 0o444)
    status, diags = run(str(job), "-o", "done.pbs")
    assert status == 2 and codes(diags) == ["E012"]
    assert Path("done.pbs").read_text() == "#!/bin/bash\n#PBS -N released\n"
    assert run(str(job), "-o", "done.pbs", "--force")[0] == 0
    assert "#PBS -N two" in Path("done.pbs").read_text()


# ── -o into directories ───────────────────────────────────────────────────────────────────


def test_missing_directories_are_made(job: Path) -> None:
    assert run(str(job), "-o", "out/deep/train.pbs")[0] == 0
    assert Path("out/deep/train.pbs").read_text().startswith("#!/bin/bash\n")


@pytest.mark.parametrize(
    ("target", "written"),
    [("pbs", "train.pbs"), ("htcondor", "train.sub"), ("flux", "train.jobspec.yaml")],
)
def test_output_into_a_directory_is_named_after_the_input(
    job: Path, target: str, written: str
) -> None:
    assert run(str(job), "-o", "new/", "--to", target)[0] == 0
    os.mkdir("old")
    assert run(str(job), "-o", "old", "--to", target)[0] == 0
    for folder in ("new", "old"):
        assert (Path(folder) / written).is_file()
    if target == "htcondor":
        assert Path("new/train.sh").is_file()


def test_output_into_a_directory_needs_a_target_and_a_named_input(job: Path) -> None:
    result = CliRunner().invoke(main, [str(job), "-o", "new/"])
    assert result.exit_code == 2 and "--to FORMAT" in result.stderr
    result = CliRunner().invoke(main, ["-", "--from", "slurm", "--to", "pbs", "-o", "new/"])
    assert result.exit_code == 2 and "standard input has no name" in result.stderr
    assert not Path("new").exists()


def test_a_write_error_names_the_path_given(job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """E014 names `-o` as the user wrote it, never the temporary file it failed on."""
    Path("afile").write_text("x")
    status, diags = run(str(job), "-o", "afile/train.pbs")
    assert status == 1 and codes(diags) == ["E014"]
    assert diags[-1]["file"] == "afile/train.pbs" and "`afile` is a file" in str(
        diags[-1]["message"]
    )
    real = os.fdopen

    def full(fd: int, *args: object, **kwargs: object) -> object:
        handle = real(fd, *args, **kwargs)  # type: ignore[call-overload]

        def write(text: str) -> int:
            raise OSError(28, "No space left on device")

        handle.write = write
        return handle

    monkeypatch.setattr(os, "fdopen", full)
    status, diags = run(str(job), "-o", "train.pbs")
    assert status == 1 and codes(diags) == ["E014"]
    assert diags[-1]["file"] == "train.pbs" and ".bammmc-" not in str(diags[-1]["message"])
    assert sorted(os.listdir()) == ["afile", "train.sbatch"]
