"""Speed of bammmc: start-up, parse+emit per format and example, hostile inputs, big jobs.

    python -m pytest benchmarks --benchmark-enable --benchmark-columns=median,min,max,rounds

Parametrized over the registry, so a new format is benchmarked for free.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

import bammmc
from bammmc.registry import FORMATS

ROOT = Path(__file__).parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))


def emitted(job: Any, fmt: str) -> str:
    """The text ``bammmc.emit`` writes (``None`` only on an error, which these jobs have not)."""
    text, diagnostics = bammmc.emit(job, fmt)
    assert text is not None, diagnostics
    return text


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_parse_emit(benchmark: BenchmarkFixture, example: Path, fmt: str) -> None:
    text = example.read_text()

    def run() -> str:
        job, _ = bammmc.parse(text, "splat")
        assert job is not None
        return emitted(job, fmt)

    assert benchmark(run)


def test_many_tasks(benchmark: BenchmarkFixture) -> None:
    """A generated worst case: 2,000 tasks with resources, each checked and emitted."""
    tasks = "".join(
        f"  - name: t{i}\n    replicas: 2\n    resources:\n      cpusPerTask: 2\n"
        f"      memoryPerTask: 4Gi\n"
        for i in range(2000)
    )
    text = "apiVersion: bammm.io/v1alpha1\nkind: Job\nspec:\n  tasks:\n" + tasks

    def run() -> str:
        job, diags = bammmc.parse(text, "splat")
        assert job is not None and not diags
        return emitted(job, "splat")

    assert benchmark(run)


def _run(args: list[str]) -> None:
    subprocess.run(args, cwd=ROOT, capture_output=True, check=False)


def test_cli_startup_simple_job(benchmark: BenchmarkFixture) -> None:
    """`bammmc examples/simple-job.yaml --to splat`, wall time per run (goal: median < 150 ms)."""
    args = [sys.executable, "-m", "bammmc", "examples/simple-job.yaml", "--to", "splat"]
    benchmark.pedantic(_run, args=(args,), rounds=10, iterations=1, warmup_rounds=1)


def test_import_cli(benchmark: BenchmarkFixture) -> None:
    """`import bammmc.cli` in a fresh interpreter (the CLI's fixed cost)."""
    args = [sys.executable, "-c", "import bammmc.cli"]
    benchmark.pedantic(_run, args=(args,), rounds=10, iterations=1, warmup_rounds=1)


def test_python_startup(benchmark: BenchmarkFixture) -> None:
    """A bare interpreter, for comparison."""
    benchmark.pedantic(_run, args=([sys.executable, "-c", "pass"],), rounds=10, iterations=1)


@pytest.mark.parametrize("kind", ["50MB", "alias-bomb"])
def test_hostile_inputs(benchmark: BenchmarkFixture, kind: str, tmp_path: Path) -> None:
    """Rejected within a second (the foundation issue's goal)."""
    path = tmp_path / "job.splat.yaml"
    if kind == "50MB":
        path.write_bytes(b"apiVersion: bammm.io/v1alpha1\n#" + b"x" * 50_000_000)
    else:
        lines = [
            "apiVersion: bammm.io/v1alpha1",
            "kind: Job",
            "spec:",
            "  placement:",
            "    affinity:",
            "      a0: &a0 [x, x, x, x, x, x, x, x, x]",
        ]
        for i in range(1, 10):
            lines.append(f"      a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
        path.write_text("\n".join(lines) + "\n")
    args = [sys.executable, "-m", "bammmc", "check", str(path)]
    start = time.perf_counter()
    _run(args)
    assert time.perf_counter() - start < 1.0
    benchmark.pedantic(_run, args=(args,), rounds=3, iterations=1)


def _doubling(call: str, levels: int = 30) -> str:
    lines = [f"a{i} = {call.format(i - 1)}{call.format(i - 1)}" for i in range(1, levels)]
    return "executable = run.sh\na0 = /x/y.z\n" + "\n".join(lines) + "\nqueue\n"


#: issue 18's small hostile inputs (tests/test_hostile_speed.py bounds their work): name -> text
HOSTILE_SUBMIT = {
    "fnx-doubling": _doubling("$Fnx(a{})"),  # 753 bytes, ran > 30 s
    "substr-doubling": _doubling("$SUBSTR(a{},0)"),
    "int-cycle": "executable = run.sh\nx = $INT(x)$INT(x)\narguments = $(x)\nqueue\n",
    "nested-refs": "executable = run.sh\narguments = "
    + "$(" * 50_000
    + "x"
    + ")" * 50_000
    + "\nqueue\n",
    "if-bombs": _doubling("$(a{})").replace("queue\n", "if $(a29)\nendif\n" * 20_000),
    "nested-if-20000": "executable = run.sh\n"
    + "if true\n" * 20_000
    + "endif\n" * 20_000
    + "queue\n",
    "int-surrogate": "executable = run.sh\nx = 55296\narguments = $INT(x,%c)\nqueue\n",
    "classad-500000-parens": "executable = run.sh\nrequirements = " + "(" * 500_000 + "\nqueue\n",
    "classad-balanced": "executable = run.sh\nrequirements = "
    + "(" * 500_000
    + "1"
    + ")" * 500_000
    + "\nqueue\n",
    "classad-5M-minus": "executable = run.sh\nrequirements = " + "-" * 5_000_000 + "1\nqueue\n",
    "classad-4M-sum": "executable = run.sh\nrequirements = "
    + "+".join(["1"] * 4_000_000)
    + "\nqueue\n",
    "classad-5000-machines": "executable = run.sh\nrequirements = "
    + " || ".join(f'Machine == "m{n}.example.org"' for n in range(5000))
    + "\nqueue\n",
}


@pytest.mark.parametrize("kind", sorted(HOSTILE_SUBMIT))
def test_hostile_answered_quickly(benchmark: BenchmarkFixture, kind: str, tmp_path: Path) -> None:
    """`bammmc check` on each small hostile submit file (issue 18): a coded answer within a
    second (the last is the longest expression bammmc still reads)."""
    path = tmp_path / "job.sub"
    path.write_text(HOSTILE_SUBMIT[kind])
    args = [sys.executable, "-m", "bammmc", "check", str(path)]
    benchmark.pedantic(_run, args=(args,), rounds=5, iterations=1, warmup_rounds=1)
    assert benchmark.stats is None or benchmark.stats.stats.median < 1.0


#: issue 18's 9 MB scripts (tests/test_hostile_speed.py bounds their work): shape -> maker
HOSTILE_SCRIPT = {
    "one-long-list": lambda d: f"#!/bin/bash\n{d} -l " + "a=1," * 2_250_000 + "\n",
    "quotes": lambda d: f"#!/bin/bash\n{d} -J " + '"a' * 4_500_000 + "\n",
    "many-directives": lambda d: "#!/bin/bash\n" + f"{d} -N a\n" * 750_000,
    "many-comments": lambda d: "#!/bin/bash\n" + "# c\n" * 2_250_000,
}
SCRIPT_FILES = {"slurm": ("#SBATCH", ".sbatch"), "pbs": ("#PBS", ".pbs"), "lsf": ("#BSUB", ".lsf")}
SCRIPT_FILES |= {"sge": ("#$", ".sge"), "flux-batch": ("#flux:", ".flux")}


@pytest.mark.parametrize("shape", sorted(HOSTILE_SCRIPT))
@pytest.mark.parametrize("fmt", sorted(SCRIPT_FILES))
def test_hostile_script_answered_quickly(
    benchmark: BenchmarkFixture, fmt: str, shape: str, tmp_path: Path
) -> None:
    """`bammmc check` on a 9 MB script of one shape (15-60 s before the directive budget and
    the line limit): a coded answer (E006) within a second."""
    magic, ext = SCRIPT_FILES[fmt]
    path = tmp_path / f"job{ext}"
    path.write_text(HOSTILE_SCRIPT[shape](magic))
    args = [sys.executable, "-m", "bammmc", "check", str(path)]
    benchmark.pedantic(_run, args=(args,), rounds=3, iterations=1, warmup_rounds=1)
    assert benchmark.stats is None or benchmark.stats.stats.median < 1.0


SLURM_40 = (
    "#!/bin/bash\n"
    + "".join(
        f"#SBATCH {d}\n"
        for d in [
            "--job-name=bench",
            "--partition=batch",
            "--account=proj",
            "--qos=normal",
            "--time=1-12:00:00",
            "--time-min=12:00:00",
            "--nodes=2",
            "--ntasks-per-node=4",
            "--cpus-per-task=4",
            "--mem=64G",
            "--gres=gpu:a100:2",
            "--constraint=avx512&ib",
            "--exclusive",
            "--array=0-99:3%5",
            "--output=logs/%x_%A_%a.out",
            "--error=logs/%x_%A_%a.err",
            "--open-mode=append",
            "--chdir=/scratch/run",
            "--export=ALL,OMP_NUM_THREADS=4",
            "--mail-type=BEGIN,END,FAIL",
            "--mail-user=me@example.org",
            "--dependency=afterok:100:101",
            "--requeue",
            "--signal=B:USR1@300",
            "--begin=2026-03-01T08:00:00",
            "--licenses=matlab:1",
            "--nodelist=node[01-02]",
            "--exclude=node09",
            "--comment=benchmark",
            "--distribution=block:cyclic",
            "--hint=nomultithread",
            "--nice=10",
            "--gpu-bind=closest",
            "--gres-flags=enforce-binding",
            "--wckey=bench",
            "--profile=task",
            "--switches=1@10:00",
            "--reservation=maint",
            "--kill-on-invalid-dep=yes",
            "--acctg-freq=task=30",
        ]
    )
    + "srun ./app\n"
)


def test_slurm_40_directives(benchmark: BenchmarkFixture) -> None:
    """Read, lower and re-emit a 40-directive sbatch script (in process)."""
    assert SLURM_40.count("#SBATCH") == 40

    def run() -> str:
        job, diags = bammmc.parse(SLURM_40, "slurm")
        assert job is not None and not [d for d in diags if d.is_error]
        return emitted(job, "slurm")

    assert benchmark(run)


PBS_SCRIPT = (
    "#!/bin/bash\n"
    "#PBS -N bench -q workq@srv -A proj -P climate -p 100\n"
    "#PBS -l select=4:ncpus=32:mpiprocs=8:ompthreads=4:mem=192gb:ngpus=4\n"
    "#PBS -l place=scatter:excl:group=switch\n"
    "#PBS -l walltime=24:00:00,cput=96:00:00\n"
    "#PBS -J 0-999:3%50\n"
    "#PBS -j oe -o logs/run.^array_index^.out\n"
    "#PBS -m abe -M me@example.org\n"
    "#PBS -W depend=afterok:100.srv:101.srv,group_list=climate,umask=022\n"
    "#PBS -W stagein=in.dat@dtn:/data/in.dat,stageout=out.dat@dtn:/data/out.dat\n"
    "#PBS -v OMP_PLACES=cores,OMP_PROC_BIND=close -V -r y -h\n"
    "cd $PBS_O_WORKDIR\nmpiexec ./app\n"
)


@pytest.mark.parametrize("fmt", ["pbs", "torque"])
def test_pbs_read_lower_emit(benchmark: BenchmarkFixture, fmt: str) -> None:
    """Read, lower and re-emit a qsub script with every option group (in process)."""
    text = PBS_SCRIPT if fmt == "pbs" else PBS_SCRIPT.replace("-J 0-999:3%50", "-t 0-999%50")
    text = (
        text
        if fmt == "pbs"
        else text.replace(
            "select=4:ncpus=32:mpiprocs=8:ompthreads=4:mem=192gb:ngpus=4", "nodes=4:ppn=32:gpus=4"
        )
        .replace("-l place=scatter:excl:group=switch", "-l pmem=6gb")
        .replace(" -P climate", "")
    )

    def run() -> str:
        job, diags = bammmc.parse(text, fmt)
        assert job is not None and not [d for d in diags if d.is_error], diags
        return emitted(job, fmt)

    assert benchmark(run)


SGE_SCRIPT = (
    "#!/bin/bash\n"
    "#$ -N bench -q all.q -A acct -P physics -p -100\n"
    "#$ -pe smp 32\n"
    "#$ -l h_rt=24:00:00,h_vmem=6G,s_vmem=5G,arch=lx-amd64,exclusive=true\n"
    "#$ -t 1-999:3\n"
    "#$ -tc 50\n"
    "#$ -hold_jid 100,101,prep_data\n"
    "#$ -cwd -j y -o logs/$JOB_NAME.$JOB_ID.$TASK_ID.out\n"
    "#$ -m bea -M me@example.org\n"
    "#$ -V -v OMP_PLACES=cores,OMP_PROC_BIND=close -r y -h -R y -notify\n"
    './run_case "$SGE_TASK_ID" --threads "$NSLOTS"\n'
)


def test_sge_read_lower_emit(benchmark: BenchmarkFixture) -> None:
    """Read, lower and re-emit a Grid Engine script with every option group (in process)."""

    def run() -> str:
        job, diags = bammmc.parse(SGE_SCRIPT, "sge")
        assert job is not None and not [d for d in diags if d.is_error], diags
        return emitted(job, "sge")

    assert benchmark(run)


LSF_SCRIPT = (
    "#!/bin/bash\n"
    '#BSUB -J "bench[1-999:3]%50" -q "normal long" -P proj -G climate -sp 50\n'
    '#BSUB -n 32 -R "select[avx512 && ib] order[-r15s:pg] rusage[mem=6GB] span[ptile=8]"\n'
    '#BSUB -R "affinity[core(4)]" -gpu "num=4:mode=exclusive_process" -M 8GB! -x\n'
    "#BSUB -W 24:00 -c 96:00 -b 2026:03:01:08:00\n"
    "#BSUB -oo logs/run.%J.%I.out -eo logs/run.%J.%I.err\n"
    "#BSUB -u me@example.org -B -N\n"
    "#BSUB -w 'done(100) && ended(\"prep\") || numdone(101, >=5)'\n"
    '#BSUB -f "in.dat > /data/in.dat" -f "out.dat < /data/out.dat"\n'
    '#BSUB -env "all, OMP_PLACES=cores, OMP_PROC_BIND=close" -r -H\n'
    "cd $LS_SUBCWD\nmpirun ./app\n"
)


def test_lsf_read_lower_emit(benchmark: BenchmarkFixture) -> None:
    """Read, lower and re-emit a bsub script with every option group (in process)."""

    def run() -> str:
        job, diags = bammmc.parse(LSF_SCRIPT, "lsf")
        assert job is not None and not [d for d in diags if d.is_error], diags
        return emitted(job, "lsf")

    assert benchmark(run)


HTCONDOR_SUBMIT = (
    "universe = vanilla\nexecutable = run.sh\n"
    "arguments = \"--index $(Process) --name 'my run'\"\n"
    "environment = \"OMP_NUM_THREADS=8 TAG='x y'\"\n"
    "request_cpus = 8\nrequest_memory = 16 GB\nrequest_disk = 20G\nrequest_gpus = 1\n"
    'requirements = (OpSysAndVer == "AlmaLinux9") && (TARGET.Memory >= 16384)\n'
    "should_transfer_files = YES\ntransfer_input_files = data/, params.json\n"
    "output = logs/out.$(Cluster).$(Process)\nerror = logs/err.$(Cluster).$(Process)\n"
    "log = logs/job.$(Cluster).log\nallowed_job_duration = 43200\nmax_retries = 3\n"
    'notification = Error\n+ProjectName = "proj42"\nbatch_name = sweep\n'
    "if defined GPU\n  request_gpus = 2\nendif\n"
    "queue x, y from (\n  1, -a\n  2, -b\n  3, -c\n)\n"
)


def test_htcondor_read_lower_emit(benchmark: BenchmarkFixture) -> None:
    """Read, lower and re-emit an HTCondor submit file with macros, an `if` and an item list."""

    def run() -> str:
        job, diags = bammmc.parse(HTCONDOR_SUBMIT, "htcondor")
        assert job is not None and not [d for d in diags if d.is_error], diags
        return emitted(job, "htcondor")

    assert benchmark(run)


#: a long `requirements`: a machine list and resource checks, as sites generate them
CLASSAD_REQUIREMENTS = " && ".join(
    [
        '(TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX")',
        "(TARGET.Memory >= RequestMemory) && (TARGET.Disk >= RequestDisk)",
        '(TARGET.HasFileTransfer =?= true) && regexp("^gpu[0-9]+", TARGET.Machine)',
        "(" + " || ".join(f'TARGET.Machine == "node{n:03d}.example.org"' for n in range(200)) + ")",
        "(isUndefined(TARGET.CUDACapability) ? false : TARGET.CUDACapability >= 7.5)",
    ]
)


def test_classad_parse(benchmark: BenchmarkFixture) -> None:
    """Parse and unparse a ~10 kB ClassAd `requirements` expression (200 machine names)."""
    from bammmc.frontends import classad

    def run() -> str:
        return classad.unparse(classad.parse(CLASSAD_REQUIREMENTS))

    assert benchmark(run).startswith("(TARGET.Arch")


FLUX_BATCH_SCRIPT = (
    "#!/bin/bash\n# Flux batch job\n"
    "#flux: -N4 -n16 -c8 -g1 --exclusive\n"
    "#flux: --time-limit=2h --queue=pbatch --bank=proj42 --urgency=12\n"
    "#flux: --job-name='sweep run' --output=logs/{{name}}.{{id}}.out --error=logs/{{id}}.err\n"
    "#flux: --dependency=afterok:f2Zq8Yp --requires='(ssd|nvme) bigmem' --signal=SIGUSR1@5m\n"
    "#flux: --env=OMP_NUM_THREADS=8 --env=-DISPLAY --cwd=/p/lustre/run --setopt=mpibind=off\n"
    '#flux: --setattr=user.conf="""\n#flux: [run]\n#flux: seed = 7\n#flux: """\n'
    "flux run -n16 ./app\n"
)


def test_flux_batch_read_lower_emit(benchmark: BenchmarkFixture) -> None:
    """Read, lower and re-emit a Flux batch script with RFC 36 quoting and a multi-line value."""

    def run() -> str:
        job, diags = bammmc.parse(FLUX_BATCH_SCRIPT, "flux-batch")
        assert job is not None and not [d for d in diags if d.is_error], diags
        return emitted(job, "flux-batch")

    assert benchmark(run)


FLUX_JOBSPEC = (
    "version: 1\nresources:\n  - type: node\n    count: 2\n    with:\n      - type: slot\n"
    "        count: 4\n        label: task\n        with:\n          - {type: core, count: 2}\n"
    "          - {type: gpu, count: 1}\ntasks:\n  - command: [./app, --flag]\n    slot: task\n"
    "    count: {per_slot: 1}\nattributes:\n  system:\n    duration: 3600.0\n"
    "    cwd: /home/me/run\n    queue: batch\n    environment: {OMP_NUM_THREADS: '2'}\n"
    "    job: {name: train}\n    dependencies:\n      - {scheme: afterok, value: f2oLkTLb}\n"
    "    constraints: {properties: [ssd]}\n"
    "    shell: {options: {output: {stdout: {type: file, path: 'train-{{id}}.out'}}}}\n"
    "  user: {study: sweep7}\n"
)


def test_flux_jobspec_read_lower_emit(benchmark: BenchmarkFixture) -> None:
    """Read (with every located check), lower and re-emit a V1 jobspec (flux.md §2's example)."""

    def run() -> str:
        job, diags = bammmc.parse(FLUX_JOBSPEC, "flux")
        assert job is not None and not [d for d in diags if d.is_error], diags
        return emitted(job, "flux")

    assert benchmark(run).startswith("version: 1")
