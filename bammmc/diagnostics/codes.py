"""The registry of diagnostic codes: one entry per code, never reused.

``E0xx`` the input cannot be read (syntax, encoding, size), ``E1xx`` an invalid value or
conflicting fields, ``W2xx`` information lost on the target, ``W3xx`` information approximated
on the target, ``W4xx`` suspicious input the scheduler itself would ignore or misread.

Each entry has a kebab-case name ("allow `duplicate-key`"), a one-line summary, and the four
sections of its explanation, which ``bammmc codes CODE`` prints. Its example is an input plus a
command line; ``tests/test_codes.py`` runs every example and checks that it emits its code.
A retired code stays here with ``removed=True``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

#: an `extra` file of an example that is a named pipe, not a text
FIFO: Final = "\x00fifo"


@dataclass(frozen=True)
class Code:
    code: str
    name: str
    summary: str
    means: str
    why: str
    fix: str
    example: str
    #: command line of the example (without ``bammmc``); ``{file}`` is the example file
    argv: tuple[str, ...] = ("check", "{file}")
    #: file name the example is written to
    filename: str = "job.splat.yaml"
    removed: bool = False
    #: other files the example needs (name -> text, or :data:`FIFO` for a named pipe), beside
    #: the example file; ``{dir}`` in ``argv`` is their directory
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def explanation(self) -> str:
        shown = self.example if "\x00" not in self.example else repr(self.example)
        command = "bammmc " + " ".join(
            a.replace("{file}", self.filename).replace("{dir}/", "") for a in self.argv
        )
        beside = "".join(
            f"`{name}`, a named pipe (`mkfifo {name}`)\n\n"
            if text == FIFO
            else f"`{name}` (already there):\n\n```\n{text.rstrip()}\n```\n\n"
            for name, text in self.extra.items()
        )
        return (
            f"# {self.code} `{self.name}`: {self.summary}\n\n"
            f"## What it means\n\n{self.means}\n\n"
            f"## Why\n\n{self.why}\n\n"
            f"## Example\n\n`{self.filename}`:\n\n```yaml\n{shown.rstrip()}\n```\n\n"
            f"{beside}```\n$ {command}\n```\n\n"
            f"## How to fix\n\n{self.fix}\n"
        )


_V = "apiVersion: bammm.io/v1alpha1\nkind: Job\n"

_ALL: Final[tuple[Code, ...]] = (
    # ── E0xx: the input cannot be read ───────────────────────────────────────────────────
    Code(
        "E001",
        "empty-input",
        "the input holds no job",
        "The file (or standard input) is empty, or holds only blank lines and comments.",
        "An empty job is almost always a mistake upstream: a failed download, a template that "
        "rendered to nothing, a wrong path. Converting it would write an empty job.",
        "Check that the right file was given and that whatever produced it succeeded.",
        "# nothing but a comment\n",
    ),
    Code(
        "E002",
        "binary-input",
        "the input is not UTF-8 text",
        "The input holds NUL bytes or bytes that are not valid UTF-8.",
        "Job descriptions are text. A binary file (an archive, an executable, a UTF-16 file) "
        "cannot be a job, and guessing an encoding could silently change a value.",
        "Give the text file itself; convert UTF-16 or Latin-1 files to UTF-8 first "
        "(`iconv -f UTF-16 -t UTF-8`).",
        "apiVersion: bammm.io/v1alpha1\x00\x00\n",
    ),
    Code(
        "E003",
        "invalid-yaml",
        "the input is not valid YAML",
        "The YAML parser stopped at the marked place: bad indentation, an unclosed quote or "
        "bracket, a tab used for indentation, or an unsupported tag.",
        "A file that is not valid YAML has no defined meaning, so nothing can be read from it.",
        "Fix the syntax at the marked line; the note says what the parser was reading.",
        _V + "metadata:\n  name: [unclosed\n",
    ),
    Code(
        "E004",
        "multiple-documents",
        "more than one YAML document in a job file",
        "The file holds several YAML documents separated by `---`, but one job was expected.",
        "Taking only the first document would silently drop the others.",
        "Put one job per file, or pass `--batch` to read (and convert) every document.",
        _V + "---\n" + _V,
    ),
    Code(
        "E005",
        "input-too-large",
        "the input is larger than the size limit",
        "The input is larger than `--max-input-size` bytes (10 MiB by default).",
        "No real job description is that large; reading one would cost time and memory and "
        "usually means the wrong file was given.",
        "Give the right file, or raise the limit with `--max-input-size BYTES`.",
        _V + "metadata:\n  name: a-job-larger-than-64-bytes\n",
        argv=("check", "--max-input-size", "64", "{file}"),
    ),
    Code(
        "E006",
        "input-too-complex",
        "the input nests too deeply or expands to too many nodes",
        "The YAML nests more than 64 levels deep, or its aliases expand into more than "
        "200,000 nodes; or the input has more than 20,000 lines; or a script's directives "
        "hold more than 64 KiB of text; or an HTCondor macro expands to too much text, or a "
        "ClassAd expression has more than 20,000 tokens.",
        "Such inputs are denial-of-service attacks on readers (the 'billion laughs' alias "
        "bomb, a macro doubling per level); no job needs them, and reading them would take "
        "minutes. The largest real job file seen has 665 lines and 1.5 KB of directives.",
        "Write the values out plainly instead of nesting aliases; keep long data (item "
        "lists, embedded files) in a file the job reads.",
        _V
        + "spec:\n  placement:\n    affinity:\n"
        + "      a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"      {b}: &{b} [" + ", ".join([f"*{a}"] * 10) + "]\n"
            for a, b in zip("abcde", "bcdef", strict=True)
        ),
    ),
    Code(
        "E007",
        "unreadable-input",
        "the input cannot be read",
        "The input path does not exist, is a directory or a device, or cannot be opened.",
        "There is nothing to convert.",
        "Check the path and its permissions.",
        "",
        argv=("check", "{file}/missing.yaml"),
    ),
    Code(
        "E010",
        "unknown-format",
        "the input's format could not be determined",
        "Neither `--from`, nor the file extension, nor the content identified a format bammmc "
        "reads.",
        "Reading a file in the wrong format would give a wrong job, so bammmc does not guess.",
        "Name the format with `--from FORMAT` (`bammmc formats` lists them), or give the file "
        "its format's extension.",
        "just: some yaml\n",
        filename="job.yaml",
    ),
    Code(
        "E011",
        "output-not-a-file",
        "the output path is a device, a FIFO, a socket or a directory",
        "`-o` (or a file written beside it) names something that is not a regular file: a "
        "character or block device (`/dev/null`, a disk), a named pipe, a socket. (`-o DIR/` "
        "and an existing directory are not this: the output is written into the directory, "
        "named after the input.)",
        "bammmc writes through a temporary file renamed into place, which would replace the "
        "device or pipe with a regular file: run as root, `-o /dev/null` would replace "
        "`/dev/null` for every program on the machine.",
        "Write to a regular file. To see the conversion, leave `-o` out: it is printed on "
        "standard output.",
        _V + "metadata:\n  name: hello\n",
        argv=("{file}", "-o", "{dir}/pipe.sbatch"),
        extra={"pipe.sbatch": FIFO},
    ),
    Code(
        "E012",
        "output-read-only",
        "the output file is read-only",
        "The file at `-o` (or a file written beside it) exists and has no write permission "
        "bit. bammmc could replace it anyway (the directory is writable, or it runs as "
        "root), but the mode says the file is meant to stay as it is.",
        "A read-only job file is usually a reviewed or released one; replacing it silently "
        "is how a working job is lost.",
        "Write to another path, or pass `--force` to replace the file.",
        _V + "metadata:\n  name: hello\n",
        argv=("{file}", "-o", "/proc/version", "--to", "slurm"),
    ),
    Code(
        "E017",
        "output-would-overwrite",
        "a file beside the output exists, and bammmc did not write it",
        "Some targets need more than one file: an HTCondor submit file of a script job is "
        "written with the script it runs, named after `-o`'s stem (`-o train.sub` writes "
        "`train.sh`). A file of that name is already there, and it is not one bammmc wrote "
        "(bammmc marks its scripts with a `# bammmc: written with …` line after the `#!` "
        "line, and replaces those).",
        "The file is most likely the user's own script, perhaps the very one the job runs "
        "(`bash train.sh`): replacing it destroys it.",
        "Name the output after another stem (`-o run.sub` writes `run.sh`), or pass `--force` "
        "to replace the file.",
        _V + "spec:\n  execution:\n    script: |\n      #!/bin/bash\n      hostname\n",
        argv=("{file}", "-o", "{dir}/train.sub"),
        extra={"train.sh": "#!/bin/bash\necho my own script\n"},
    ),
    Code(
        "E018",
        "script-calls-itself",
        "the script written beside the output would run itself",
        "The job's script is written beside `-o` under its stem (`-o train.sub` writes "
        "`train.sh`), and the script runs a file of that very name (`bash train.sh`): the "
        "converted job would call itself instead of the user's script.",
        "With the user's `train.sh` replaced by the job's own script, the job recurses or "
        "runs the wrong program; `--force` does not make this right, so it is refused always.",
        "Name the output after another stem: `-o train-job.sub` writes `train-job.sh`, which "
        "runs the user's `train.sh`.",
        _V + "spec:\n  execution:\n    script: |\n      #!/bin/bash\n      bash train.sh\n",
        argv=("{file}", "-o", "{dir}/train.sub"),
    ),
    Code(
        "E013",
        "output-is-input",
        "the output path is the input file",
        "`-o` names the file being read.",
        "Writing the conversion over its own source would destroy the original job.",
        "Write to another path.",
        _V + "metadata:\n  name: hello\n",
        argv=("{file}", "-o", "{file}"),
    ),
    Code(
        "E014",
        "output-write-failed",
        "the output file could not be written",
        "Creating or renaming the output file failed (permissions, a full disk, a path "
        "through a regular file). Nothing was written; an existing file at that path is "
        "unchanged. (A missing directory is made, as `mkdir -p` would.)",
        "Output is written to a temporary file and renamed into place, so a failure never "
        "leaves a half-written job behind.",
        "Check that the directory is writable and the disk not full.",
        _V + "metadata:\n  name: hello\n",
        argv=("{file}", "-o", "{file}/out.splat.yaml"),
    ),
    Code(
        "E015",
        "needs-output-path",
        "the conversion writes several files, and they need a path",
        "The target needs more than one file for this job: an HTCondor submit file of a script "
        "job, for example, and the script it runs (its `executable`). Standard output holds one "
        "file, and `-o` must leave room beside it for the others, which are named after its "
        "stem (`-o out.sub` writes `out.sh` too).",
        "The main file names the others, so they must be written together, beside it; writing "
        "only the main file would give a job that cannot run.",
        "Write to a file with `-o`, e.g. `-o job.sub`, whose name differs from the extra "
        "files' (not `-o job.sh`).",
        _V + "spec:\n  execution:\n    script: |\n      #!/bin/bash\n      hostname\n",
        argv=("{file}", "--to", "htcondor"),
    ),
    Code(
        "E016",
        "invalid-config",
        "the configuration file is invalid",
        "The project configuration (`bammmc.toml`, the `[tool.bammmc]` table of "
        "`pyproject.toml`, or the file given with `--config`) is not valid TOML, has a key "
        "bammmc does not know, or a value of the wrong type or outside the option's choices "
        '(an unknown code in `allow` or `deny`, an `E` code there, `strict = "yes"`). The '
        "mark points at the key or value. Exit status 2, as for a bad command-line option.",
        "The file sets defaults for every run in the project; ignoring a misspelled key "
        "(`stirct = true`) would silently turn off what the project asked for, so bammmc stops "
        "before reading any input.",
        "Correct the key or value at the mark: the keys are the long names of the options "
        "(`strict`, `allow`, `deny`, `diagnostics`, `color`, `container-runtime`, "
        "`priority-range`, `lsf-unit`, `sge-memory-resource`, `max-input-size`, `batch`), "
        '`allow`/`deny` take lists of codes, names or prefixes (`["W201", "W3"]`). '
        "`--no-config` runs without the file.",
        "stirct = true\n",
        argv=("check", "--config", "{file}", "job.sbatch"),
        filename="bammmc.toml",
    ),
    Code(
        "E019",
        "wrong-input-format",
        "`--from` names a format the file is not written in",
        "`--from FORMAT` was given, and the file holds none of that format's own markers "
        "(its directive prefix, its submit commands, its keys) but the markers of exactly one "
        "other format: `--from pbs` on a file with `#SBATCH` lines and no `#PBS` line.",
        "Read as the format asked for, every directive of the other scheduler is a comment: "
        "the job would come out with none of its resources, and nothing else would say so.",
        "Pass the format the file is written in (the help line names it), or leave `--from` "
        "out: bammmc detects it.",
        "#!/bin/bash\n#SBATCH --ntasks=4\n#SBATCH --time=1:00:00\nsrun hostname\n",
        argv=("check", "--from", "pbs", "{file}"),
        filename="job.sh",
    ),
    Code(
        "E020",
        "unreadable-directive",
        "a scheduler directive that cannot be tokenized",
        "A directive line has an unmatched quote (or another construct the scheduler's own "
        "tokenizer rejects).",
        'The scheduler refuses the whole script (sbatch: "Unmatched `"`"); there is no '
        "defined reading of the line.",
        "Close the quote, or escape a literal quote with a backslash.",
        '#!/bin/bash\n#SBATCH --job-name="unclosed\necho hi\n',
        filename="job.sbatch",
    ),
    Code(
        "E021",
        "classad-syntax",
        "an HTCondor ClassAd expression that HTCondor cannot parse",
        "A value that HTCondor reads as a ClassAd expression (`requirements`, `rank`, "
        "`periodic_*`, `on_exit_*`, `+Attr`) is not one: an operator without an operand, an "
        "unclosed parenthesis or string, a number such as `010`, `5.` or `4GB`, a `=` where "
        "`==` was meant. The mark points at the first token HTCondor's parser cannot take.",
        "condor_submit refuses a job whose expression does not parse, and a job ad with a "
        "broken expression never matches a machine; converting it would carry the error on.",
        'Fix the expression at the marked place: compare with `==`, quote strings with `"`, '
        "write numbers in decimal without units (`4096`), and close every `(`, `[`, `{`.",
        _V + "spec:\n  extensions:\n    htcondor:\n      requirements: 'Memory >= '\n",
    ),
    # ── E1xx: invalid values and conflicts ───────────────────────────────────────────────
    Code(
        "E101",
        "unknown-field",
        "a key that SPLAT does not define at this place",
        "The key is not a field of the mapping it is in. The help suggests the nearest valid "
        "name; a note says where the key belongs when it is valid elsewhere.",
        "An unknown key is usually a typo (`cpuPerTask` for `cpusPerTask`), and ignoring it "
        "would silently drop what the user asked for.",
        "Rename the key as suggested, or move it where the note says it belongs.",
        _V + "spec:\n  resources:\n    cpuPerTask: 4\n",
    ),
    Code(
        "E102",
        "wrong-type",
        "a value of the wrong type",
        "The value's type does not match the field: a string where a number is expected, a "
        "scalar where a list is expected, `yes` where a boolean is expected.",
        "SPLAT reads YAML 1.2, where `yes`, `on` and `0755` are not booleans or octal numbers; "
        "coercing values would make the same file mean different things to different readers.",
        "Write the value in the expected form, as the message says.",
        _V + "spec:\n  schedule:\n    hold: yes\n",
    ),
    Code(
        "E103",
        "missing-field",
        "a required field is missing",
        "The mapping lacks a field that SPLAT requires there (e.g. `apiVersion`, `kind`, a "
        "volume's `name` and `mountPath`, a task's `name`).",
        "Without it the object has no defined meaning.",
        "Add the field.",
        "kind: Job\nmetadata:\n  name: hello\n",
    ),
    Code(
        "E104",
        "invalid-choice",
        "a value outside the field's fixed set",
        "The field accepts a fixed set of words and this is not one of them.",
        "A scheduler would reject the value or, worse, read it as something else.",
        "Use one of the listed values; the help suggests the nearest.",
        _V + "spec:\n  placement:\n    topology: spread\n",
    ),
    Code(
        "E105",
        "invalid-quantity",
        "a size, CPU count or count that does not parse",
        "Sizes are a number with an optional unit (`4Gi`, `4G`, `4096M`, `512` = MiB, `4gb`) "
        "and an optional scope (`/node`); CPUs are `4`, `0.5` or `500m`; counts are `2`, `0.5` "
        "or `4/node`. A single lower-case `m`, `g`, `t` or `p` is rejected as ambiguous.",
        "`4m` is 4 millibytes in Kubernetes and 4 MiB in Slurm; bammmc never guesses a factor "
        "of a million.",
        "Write an unambiguous unit: `Mi`/`Gi` (binary) or `M`/`G` (decimal). See `docs/units.md`.",
        _V + "spec:\n  resources:\n    memoryPerTask: 4m\n",
    ),
    Code(
        "E106",
        "invalid-duration",
        "a duration that does not parse or is ambiguous",
        "Durations are ISO 8601 (`PT2H30M`), `H:MM:SS`, `D-HH[:MM[:SS]]`, units (`150m`, "
        "`1h30m`, `9000s`), bare seconds, or `unlimited`. Two-field clocks (`1:30`) are "
        "rejected.",
        "Slurm reads `1:30` as 1 minute 30 seconds, LSF as 1 hour 30 minutes: a factor of 60 "
        "(pitfall 12).",
        "Write all three fields (`0:01:30` or `1:30:00`) or use ISO 8601.",
        _V + "spec:\n  schedule:\n    walltime: '1:30'\n",
    ),
    Code(
        "E107",
        "invalid-indices",
        "an array index specification that does not parse",
        "Index specs are ranges and lists: `0-99`, `1-50:2` (step), `1,3,7-12`, with an "
        "optional `%N` throttle. Ranges must not run backwards; steps and throttles are at "
        "least 1.",
        "A misread index range submits the wrong number of array elements.",
        "Write the range in the form above.",
        _V + "spec:\n  array:\n    indices: 10-1\n",
    ),
    Code(
        "E108",
        "invalid-template",
        "an output path template with an unknown variable or stray brace",
        "Templates may use `{job_id}`, `{array_job_id}`, `{array_index}`, `{job_name}`, "
        "`{node_hostname}` and `{task_index}`; `{{` and `}}` are literal braces.",
        "An unknown variable would reach the scheduler as literal text and every array "
        "element would write to the same file.",
        "Use one of the variables above; the help suggests the nearest.",
        _V + "spec:\n  output:\n    stdout: out-{jobid}.log\n",
    ),
    Code(
        "E109",
        "invalid-datetime",
        "a date and time that is not ISO 8601",
        "`beginAfter` and `deadline` take ISO 8601 dates and times such as `2026-03-01T08:00:00Z`.",
        "Each scheduler has its own date syntax; only an unambiguous form converts to all.",
        "Write the date as `YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM]`.",
        _V + "spec:\n  schedule:\n    beginAfter: next tuesday\n",
    ),
    Code(
        "E110",
        "invalid-signal",
        "a `signalBeforeEnd` that is not `SIGNAL@SECONDS`",
        "The value must be a signal name (`USR1`, `SIGTERM`) or number (1-64), `@`, and a "
        "whole number of seconds.",
        "An unknown signal would make the scheduler reject the job at submission.",
        "Write e.g. `USR1@60`.",
        _V + "spec:\n  schedule:\n    signalBeforeEnd: USR3@60\n",
    ),
    Code(
        "E111",
        "unsupported-api-version",
        "`apiVersion` is not `bammm.io/v1alpha1`",
        "This bammmc reads SPLAT `bammm.io/v1alpha1` only.",
        "Field names may change between SPLAT versions; reading another version as v1alpha1 "
        "could misread fields silently.",
        "Set `apiVersion: bammm.io/v1alpha1`, migrating fields if the document is of another "
        "version.",
        "apiVersion: bammm.io/v1beta1\nkind: Job\n",
    ),
    Code(
        "E112",
        "script-and-executable",
        "both `execution.script` and `execution.executable` are set",
        "A job runs either an inline script or an executable, not both.",
        "The SPLAT specification makes them mutually exclusive; a target would have to drop one.",
        "Keep one: put the executable's call inside the script, or drop the script.",
        _V + "spec:\n  execution:\n    script: |\n      #!/bin/bash\n      ./run\n"
        "    executable: /bin/true\n",
    ),
    Code(
        "E113",
        "volume-source-count",
        "a volume without exactly one source",
        "Each volume needs exactly one of `pvc`, `configMap`, `secret`, `hostPath`, `emptyDir`, "
        "`nfs`.",
        "With none the volume has no content; with several it is unclear which to mount.",
        "Keep exactly one source per volume.",
        _V + "spec:\n  volumes:\n    - name: data\n      mountPath: /data\n      pvc: data\n"
        "      hostPath: /scratch\n",
    ),
    Code(
        "E114",
        "gpu-fraction-out-of-range",
        "`resources.gpu.fraction` is not in (0, 1]",
        "A GPU fraction is a share of one GPU: more than 0 and at most 1.",
        "Run.ai rejects other values; other schedulers round a fraction up to a whole GPU.",
        "Use a value such as `0.5`; for several GPUs use `gpu.count`.",
        _V + "spec:\n  resources:\n    gpu:\n      fraction: 1.5\n",
    ),
    Code(
        "E115",
        "queue-partition-conflict",
        "`schedule.partition` and `schedule.queue` name different queues",
        "`partition` is an alias of `queue`; both are set and they differ.",
        "A job goes to one queue; picking one silently would send it to the wrong one.",
        "Set one of them, or make them equal.",
        _V + "spec:\n  schedule:\n    queue: batch\n    partition: gpu\n",
    ),
    Code(
        "E116",
        "priority-out-of-band",
        "`schedule.priority` is outside the priority band",
        "Priorities are on a canonical band, 0-1000 by default (higher = more urgent); "
        "`--priority-range MIN:MAX` changes the band.",
        "Each scheduler's native priority is mapped from this band; a value outside it cannot "
        "be mapped.",
        "Use a value within the band, or widen the band with `--priority-range`.",
        _V + "spec:\n  schedule:\n    priority: 5000\n",
    ),
    Code(
        "E117",
        "array-throttle-conflict",
        "the `%N` throttle in `array.indices` disagrees with `array.maxConcurrent`",
        "Both say how many array elements may run at once, and they differ.",
        "One of them would be dropped silently on conversion.",
        "Keep one, or make them equal.",
        _V + "spec:\n  array:\n    indices: 0-99%10\n    maxConcurrent: 20\n",
    ),
    Code(
        "E118",
        "value-out-of-range",
        "a number outside the range the field allows",
        "Counts must be positive, exit codes 0-255, Flux urgency 0-31, ports 1-65535, and so "
        "on; the message gives the range.",
        "A scheduler would reject the value at submission.",
        "Use a value within the range.",
        _V + "spec:\n  resources:\n    tasks: 0\n",
    ),
    Code(
        "E119",
        "task-count-mismatch",
        "more tasks than `nodes` × `tasksPerNode` can hold",
        "`tasksPerNode` is the most tasks one node runs (as Slurm reads `--ntasks-per-node` "
        "beside `--ntasks`); `tasks` asks for more than `nodes` such nodes hold.",
        "The tasks cannot be placed: Slurm rejects the job, other schedulers would give it a "
        "different shape.",
        "Raise `nodes` or `tasksPerNode`, or lower `tasks`.",
        _V + "spec:\n  resources:\n    nodes: 2\n    tasksPerNode: 4\n    tasks: 10\n",
    ),
    Code(
        "E120",
        "duplicate-task-name",
        "two tasks with the same name",
        "Task names identify roles (`dependsOn`, task groups, pod names) and must be unique.",
        "A duplicate name makes references ambiguous and Kubernetes rejects duplicate pod "
        "template names.",
        "Rename one of the tasks.",
        _V + "spec:\n  tasks:\n    - name: worker\n    - name: worker\n",
    ),
    Code(
        "E121",
        "unknown-task-reference",
        "`dependsOn` names a task that does not exist",
        "A task's `dependsOn` refers to a task name not defined in `spec.tasks`.",
        "The task would wait forever.",
        "Correct the name; the help suggests the nearest.",
        _V + "spec:\n  tasks:\n    - name: master\n    - name: worker\n      dependsOn:\n"
        "        - name: mastr\n",
    ),
    Code(
        "E122",
        "invalid-dependency",
        "a dependency without a scheme or with a value that does not fit its scheme",
        "`afterok`, `afternotok`, `afterany` and `after` need a job id or name in `value`; "
        "`singleton` takes none; `begin_time` needs an ISO 8601 time or a Unix timestamp.",
        "A dependency the scheduler cannot resolve makes the job wait forever or fail at "
        "submission.",
        "Give the value the scheme needs.",
        _V + "spec:\n  dependencies:\n    - scheme: afterok\n",
    ),
    Code(
        "E123",
        "gang-exceeds-tasks",
        "`gang.minAvailable` is larger than the number of tasks",
        "The gang cannot form: it needs more tasks than the job has.",
        "The job would never start.",
        "Lower `minAvailable` or raise the task count.",
        _V + "spec:\n  resources:\n    tasks: 4\n  gang:\n    minAvailable: 8\n",
    ),
    Code(
        "E124",
        "invalid-base64",
        "an embedded file marked `base64` whose content is not base64",
        "`fileStaging.embeddedFiles[].content` with `encoding: base64` must be valid base64.",
        "The file would be written corrupt on the compute node.",
        "Re-encode the file (`base64 -w0 FILE`) or use `encoding: utf-8` for text.",
        _V + "spec:\n  fileStaging:\n    embeddedFiles:\n      - name: a.bin\n"
        "        content: 'not base64!'\n        encoding: base64\n",
    ),
    Code(
        "E125",
        "duplicate-key",
        "the same key twice in one mapping",
        "A YAML mapping holds the same key more than once.",
        "YAML forbids it, and readers disagree on which value wins: the job would mean "
        "different things to different tools.",
        "Remove one of them.",
        _V + "metadata:\n  name: a\n  name: b\n",
    ),
    Code(
        "E126",
        "invalid-permissions",
        "file permissions that are not an octal mode",
        "`permissions` must be an octal mode of three or four digits, such as `0755`.",
        "A wrong mode could make a script unexecutable or a secret world-readable.",
        'Write e.g. `"0644"` (quoted, so YAML keeps the leading zero).',
        _V + "spec:\n  fileStaging:\n    embeddedFiles:\n      - name: run.sh\n"
        "        content: echo hi\n        permissions: rwxr-xr-x\n",
    ),
    Code(
        "E130",
        "unknown-option",
        "an option the scheduler does not have",
        "The directive names an option the scheduler's submission command does not know. The "
        "help suggests the nearest real option.",
        "The scheduler rejects the whole script; a converter that skipped it would silently "
        "drop what the user asked for (`--gpu` and `--mem-per-task` are common inventions).",
        "Use the suggested option, or remove the line.",
        "#!/bin/bash\n#SBATCH --ntasks-per-nod=4\n#SBATCH --memory=4G\necho hi\n",
        filename="job.sbatch",
    ),
    Code(
        "E131",
        "missing-option-value",
        "an option that needs a value has none",
        "The option takes a value, but the directive ends (or the script's directives end) "
        "before one.",
        'The scheduler rejects the script ("option requires an argument").',
        "Add the value: `--opt=VALUE`.",
        "#!/bin/bash\n#SBATCH --time\necho hi\n",
        filename="job.sbatch",
    ),
    Code(
        "E132",
        "unexpected-option-value",
        "a flag given a value",
        "The option is a flag and takes no value, but one is attached with `=`.",
        'The scheduler rejects the script ("doesn\'t allow an argument").',
        "Write the flag alone.",
        "#!/bin/bash\n#SBATCH --hold=yes\necho hi\n",
        filename="job.sbatch",
    ),
    Code(
        "E133",
        "stray-directive-word",
        "a word in a directive that is not an option or an option's value",
        "A directive holds a word that belongs to no option, usually an unquoted value with a "
        "space (`--job-name=my job`) or prose after a directive without `#`.",
        'sbatch rejects the script ("Invalid directive found in batch script").',
        'Quote the value (`--job-name="my job"`) or start trailing prose with `#`.',
        "#!/bin/bash\n#SBATCH --job-name=my job\necho hi\n",
        filename="job.sbatch",
    ),
    Code(
        "E134",
        "invalid-option-value",
        "an option value the scheduler would reject",
        "The value does not follow the option's syntax: a time such as `1h`, a size such as "
        "`1.5G` (sbatch takes whole numbers), an unknown mail type or signal, a backwards "
        "array range.",
        "The scheduler rejects the script at submission.",
        "Write the value in the scheduler's syntax, as the help shows.",
        "#!/bin/bash\n#SBATCH --time=1h\n#SBATCH --mem=1.5G\necho hi\n",
        filename="job.sbatch",
    ),
    Code(
        "E135",
        "conflicting-options",
        "options the scheduler refuses to combine",
        "Two options that exclude each other are both given, e.g. `--mem` with "
        '`--mem-per-cpu` (sbatch: "mutually exclusive").',
        "The scheduler rejects the script; picking one silently would change the job (pitfall 4).",
        "Keep one of them.",
        "#!/bin/bash\n#SBATCH --mem=8G --mem-per-cpu=2G\necho hi\n",
        filename="job.sbatch",
    ),
    Code(
        "E136",
        "ambiguous-option",
        "an abbreviated option that matches several options",
        "sbatch accepts unique prefixes of long options (`--mail-u`), but this prefix matches "
        "more than one (`--mem-per` is `--mem-per-cpu` or `--mem-per-gpu`).",
        'sbatch rejects the script ("is ambiguous").',
        "Write the option in full.",
        "#!/bin/bash\n#SBATCH --mem-per=2G\necho hi\n",
        filename="job.sbatch",
    ),
    Code(
        "E140",
        "unwritable-value",
        "a value the target format cannot carry safely",
        "A value holds characters that cannot be written into the target's syntax without "
        "changing its meaning, such as a line break inside an `#SBATCH` directive.",
        "Written as is, the value would end the directive and could inject another one; "
        "silently altering it would change the job.",
        "Remove the offending characters from the value.",
        _V + 'metadata:\n  name: "two\\nlines"\n',
        argv=("{file}", "--to", "slurm"),
    ),
    # ── W2xx: lost on the target ─────────────────────────────────────────────────────────
    Code(
        "W201",
        "field-lost",
        "a field the target cannot express, dropped",
        "The target scheduler has no way to express this field, so the converted job does not "
        "have it. The diagnostic's `field` names the SPLAT field.",
        "Every loss is reported: a silently dropped gang requirement or retry policy makes the "
        "converted job run differently.",
        "Keep the information elsewhere (a wrapper, a workflow tool), or convert to a "
        "scheduler that supports it (`bammmc --explain` shows which do).",
        _V + "spec:\n  gang:\n    minAvailable: 4\n",
        argv=("{file}", "--to", "slurm"),
    ),
    # ── W3xx: approximated on the target ─────────────────────────────────────────────────
    Code(
        "W301",
        "value-approximated",
        "a value the target can only approximate",
        "The target expresses this field only approximately: rounded up to its unit (whole "
        "CPUs, whole MiB), in another scope (per node instead of per task), or through a "
        "wrapper. The message says how.",
        "An approximation changes what the scheduler allocates; it must be visible.",
        "Check the converted value; choose a value the target can express exactly.",
        _V + "spec:\n  resources:\n    cpusPerTask: 500m\n",
        argv=("{file}", "--to", "slurm"),
    ),
    # ── W4xx: suspicious input ───────────────────────────────────────────────────────────
    Code(
        "W401",
        "shadowed-by-tasks",
        "top-level `resources` or `execution` that no task uses",
        "`spec.tasks` is present and every task sets its own `resources` (or `execution`), so "
        "the top-level block is never used.",
        "When `tasks` is present it overrides the top-level blocks (SPLAT specification); the "
        "top-level values are silently ignored by every target.",
        "Remove the top-level block, or drop the per-task blocks that should inherit it.",
        _V + "spec:\n  resources:\n    cpusPerTask: 2\n  tasks:\n    - name: a\n"
        "      resources:\n        cpusPerTask: 4\n",
    ),
    Code(
        "W402",
        "ignored-directive",
        "a directive the scheduler ignores",
        "The line looks like a directive but the scheduler will not read it: an `#SBATCH` "
        "line after the first command, an indented or lower-case `#sbatch`, options after "
        "`hetjob` on the same line.",
        "sbatch stops reading directives at the first command and reads `#SBATCH` only at "
        "the start of a line, silently (pitfall 32). The job would run without the option.",
        "Move the directive above the first command, at the start of its line.",
        "#!/bin/bash\n#SBATCH --job-name=x\nmodule load gcc\n#SBATCH --time=10\necho hi\n",
        filename="job.sbatch",
    ),
    Code(
        "W403",
        "abbreviated-option",
        "an abbreviated long option",
        "The option is a unique prefix of a real one (`--out` for `--output`). sbatch's getopt "
        "accepts it.",
        "Other readers (and other Slurm versions, when a new option makes the prefix "
        "ambiguous) may not; bammmc writes the full name.",
        "Write the option in full.",
        "#!/bin/bash\n#SBATCH --out=log.txt\necho hi\n",
        filename="job.sbatch",
    ),
    Code(
        "W404",
        "foreign-directives",
        "`#PBS` or `#BSUB` lines in a Slurm script",
        "sbatch translates `#PBS` and `#BSUB` lines itself, after `#SBATCH`, so they override "
        "`#SBATCH` options; an untranslatable one makes sbatch reject the script.",
        "A leftover or provenance comment such as `#PBS -l walltime=3600` changes the job "
        "(pitfall 33).",
        "Add `#SBATCH --ignore-pbs`, or write the line as `# PBS ...`.",
        "#!/bin/bash\n#SBATCH --job-name=x\n#PBS -N other\necho hi\n",
        filename="job.sbatch",
    ),
    Code(
        "W405",
        "dos-line-ends",
        "a script with CRLF line ends",
        "The file uses Windows line ends (`\\r\\n`).",
        'sbatch refuses such scripts ("Batch script contains DOS line breaks"), and shells '
        "read `\\r` as part of each command.",
        "Convert the file with `dos2unix`.",
        "#!/bin/bash\r\n#SBATCH --job-name=x\r\necho hi\r\n",
        filename="job.sbatch",
    ),
    Code(
        "W406",
        "ignored-option",
        "an option the scheduler ignores in a script",
        "The option only means something on the command line (`--help`, `--verbose`, "
        "`--wrap`), is a deprecated spelling (`#SLURM`), or is where the scheduler does not "
        "read it (`--ignore-pbs` after `hetjob`).",
        "It has no effect on the job; converting it would be wrong.",
        "Remove it.",
        "#!/bin/bash\n#SBATCH --verbose\necho hi\n",
        filename="job.sbatch",
    ),
    Code(
        "W407",
        "repeated-option",
        "the same option given twice with different values",
        "An option appears more than once; the scheduler uses the last one.",
        "The earlier value looks like it matters but does not: usually a leftover.",
        "Remove the one that should not apply.",
        "#!/bin/bash\n#SBATCH --time=10\n#SBATCH --time=20\necho hi\n",
        filename="job.sbatch",
    ),
    Code(
        "W408",
        "plugin-option",
        "an option a SPANK plugin adds to sbatch",
        "The option is not sbatch's own but comes from a site plugin (pyxis "
        "`--container-image`, EAR `--ear`, Shifter `--image`…).",
        "The job works only on clusters that install the plugin; elsewhere sbatch rejects it "
        "as unrecognized.",
        "Check that the target cluster has the plugin.",
        "#!/bin/bash\n#SBATCH --container-image=ubuntu:22.04\nsrun hostname\n",
        filename="job.sbatch",
    ),
    Code(
        "W409",
        "missing-shebang",
        "a batch script without a `#!` first line",
        "The script's first line is not an interpreter line such as `#!/bin/bash`.",
        'sbatch refuses it ("This does not look like a batch script"); other schedulers run '
        "it with a default shell that may not be bash.",
        "Start the script with `#!/bin/bash`. bammmc adds one when it writes Slurm.",
        "#SBATCH --job-name=x\nsrun hostname\n",
        filename="job.sbatch",
    ),
    Code(
        "W410",
        "directive-comment",
        "a comment after a `#PBS` or `#$` directive",
        "A `#` follows the options of a `#PBS` (or Grid Engine `#$`) line. bammmc ignores the "
        "rest of the line.",
        "OpenPBS qsub has no comment syntax in directives (its tokenizer reads `#` and the "
        "words after it as arguments and rejects the script); some PBS Professional releases "
        "accept it. The script is not portable either way.",
        "Put the comment on a line of its own.",
        "#!/bin/bash\n#PBS -q long   # the long queue\necho hi\n",
        filename="job.pbs",
    ),
    Code(
        "W411",
        "preserve-block-invalid",
        "a `--preserve` block that cannot be used",
        "The file ends with a `# bammmc-preserve` comment block (or a Flux jobspec has "
        "`attributes.user.bammmc`) that bammmc cannot use. Most often the file was edited "
        "since bammmc wrote it: the block's SHA-256 digest covers the text before it (a Flux "
        "jobspec's data without the block) and its payload, so any edit of either — or a "
        "block copied onto another file — no longer matches. The other reasons: its payload "
        "does not decode, it is of another version (version 1 blocks, whose digest covered "
        "the payload only, are no longer read), it was written for another format, or lines "
        "follow it. bammmc ignores it and reads the file as the scheduler runs it. When "
        "converting with `--preserve`, the same code says that no block could be written: "
        "the script ends inside an unclosed here-document (a comment line there would become "
        "the here-document's input), or bammmc cannot read its own output back.",
        "The block describes the file bammmc wrote. Once the file is edited, nothing says "
        "which of the block's values still hold, so none is used: the file reads as its own "
        "text says, and the fields the block held are lost, as without `--preserve`. The "
        "digest is not a signature (anyone can compute one); what a block may restore at all "
        "is limited otherwise (W413, W414).",
        "Nothing, if the edit was meant and the kept fields do not matter. Otherwise convert "
        "the original job again with `--preserve`, and make the edit there. To drop the block, "
        "delete its lines.",
        # a genuine block (it kept a label), then `echo hi` edited to `echo bye`
        "#!/bin/bash\n#SBATCH --job-name=x\necho bye\n\n# bammmc-preserve v2 sha256="
        "28844c43d6876e9ad340e4dab52d5a981de1e15afddf6266a18082ff711911d4\n"
        "# eNoNizEOgCAQBP-yNZXlfQUpVr3EApDIaUwIf_e62dnMwAtZAuyCoOfnLgjo2nyt1bHR9hMSB1\n"
        "# xFFDUeNPqTuWnuDqYsSAGfN8RM8wcqxRl5\n",
        filename="job.sbatch",
    ),
    Code(
        "W412",
        "preserve-value-edited",
        "a field does not read as the `--preserve` block recorded, so its kept value is not "
        "restored",
        "The file's `--preserve` block recorded, for this field, the value the converted file "
        "carried and the original value to restore. The file's text is the one the block was "
        "written after (its digest matches: an edited file is W411), yet the field reads "
        "otherwise: the bammmc reading the file reads it differently from the one that wrote "
        "the block, or the block was not written by bammmc. bammmc keeps the file's value.",
        "The block's value was meant for the reading it recorded. Over another reading it "
        "could turn the field into something neither the file nor the original said. The "
        "other fields of the block are still restored.",
        "Convert the original job again with `--preserve` (with the bammmc that reads the file).",
        # a block that says the file carried the label `team: a` (it carries none)
        "#!/bin/bash\n#SBATCH --job-name=x\necho hi\n\n# bammmc-preserve v2 sha256="
        "480e0183f4cc1ab4c79fdd213bc5656c970558b1693eb0b946b7fedcaff022f2\n"
        "# eNoVizEOgCAUQ-_SmcmRqyDDR3_iAErkazSEu1unvvalHTf85GAHPFq-zgKHppVt3olVbNngQw\n"
        "# engKImq5jQZEmaG8FUCqLDy88vHmbCiOMD-TobQg\n",
        filename="job.sbatch",
    ),
    Code(
        "W413",
        "preserve-sets-what-runs",
        "a `--preserve` block entry for a field that decides what the job runs",
        "The file's `--preserve` block holds a value for the script, the program or its "
        "arguments, the environment, the working directory, the input, output or staged "
        "files, the container, the shell, or a scheduler option that carries one of these "
        "(`extensions.slurm.export`, `extensions.lsf.pre_exec`, raw `options`…). A block never "
        "sets these: bammmc ignores the entry and keeps what the file's own text says. bammmc "
        "never writes such an entry, so someone or something else made this block.",
        "The block is not readable text: nobody reviewing the file sees what it says. Its "
        "digest shows that the file was not edited since the block was written, but it is "
        "not a signature: anyone can write a block with a correct digest. If a block could "
        "set the script, a file showing `echo safe` could run anything once bammmc converts "
        "it. So only the visible text decides what runs; a block may restore only how a job "
        "is named, scheduled, sized, placed and notified (docs/preserve.md lists the fields).",
        "Nothing, if the file's text is what should run. Check where the file came from. If "
        "the value is wanted, write it in the file itself.",
        # the file shows `echo safe`; the block would replace the script
        "#!/bin/bash\n#SBATCH --job-name=x\necho safe\n\n# bammmc-preserve v2 sha256="
        "5b70b98f3826faecc194b216537e2c03f396802063b5568e02e7ab6579129a2f\n"
        "# eNpdjDsOwjAQRK9ihtZgidJXSVI4q0WOFH_kdZBRyN1xKOnm82Z2vGAfGjXBQtatBGgI5-7G2G\n"
        "# V2lTzssKNHAyQz9ZQb01aXdBJCZckVk8a7j64XMy_RzE78GJl8UuKe_Ltq_zVtZVU3Ub7WLNYY\n"
        "# bi7kle-Ugmnqo04Gx3R8AVlqNKg\n",
        filename="job.sbatch",
    ),
    Code(
        "W414",
        "preserve-overrides-file",
        "a `--preserve` block entry for a field the file sets",
        "The file's `--preserve` block holds a value for a field the file's own text sets, "
        "and not the same value spelled otherwise (`1:00:00` for `PT1H` is the same value; "
        "`200` for `2` is not). A block only adds what the file cannot express; bammmc keeps "
        "the file's value and ignores the entry. bammmc never writes such an entry: where the "
        "target approximates a value (`cpusPerTask: 500m` written as `--cpus-per-task=1`), "
        "the converted file's value is the job's.",
        "What the scheduler runs is what the file says; a hidden value that contradicts a "
        "visible one would make the file mean two things, and a reader of the file could not "
        "tell.",
        "Nothing: the file's value is what the scheduler runs. To use the block's value, "
        "write it in the file.",
        # the file says `--ntasks=2`; the block would make it 200
        "#!/bin/bash\n#SBATCH --ntasks=2\necho hi\n\n# bammmc-preserve v2 sha256="
        "84ffe343a8eeab418d436d42fe018bd206ffc3a1d2b19d3aeaa47e94a7f78b5b\n"
        "# eNodjDsKwCAUBO-ytYWk9CrGQuRBIB_F1ZAg3j2PNMvsFDNwwy0GLcOBR68nDChF33opltjSBu\n"
        "# cHVHmwSFJbhbnXJFRukTsRDN4_9OhaO8P8AMm3Gww\n",
        filename="job.sbatch",
    ),
    # ── N0xx: notes ──────────────────────────────────────────────────────────────────────
    Code(
        "N001",
        "dialect-assumed",
        "the input's dialect was chosen without evidence",
        "The content fits more than one dialect of a format (a `#PBS` script with nothing "
        "PBS-Pro-only or Torque-only in it), and bammmc chose one.",
        "PBS Professional and Torque read some options differently (`-P`, `-f`, `-t`); the "
        "choice should be visible.",
        "Pass `--from torque` or `--from pbs`, or give the file the format's extension.",
        "#!/bin/bash\n#PBS -N hello\n#PBS -l walltime=00:10:00\necho hi\n",
        filename="job.sh",
    ),
    Code(
        "N003",
        "same-meaning",
        "a value is written in the target's own form, with the same meaning",
        "The target has its own spelling for something the source says: a scheduler "
        "variable the script uses (`$PBS_JOBID` is defined from `$SLURM_JOB_ID` at the top "
        "of the script), or a key of the source's own extensions block whose meaning a "
        "portable field carries (Slurm's `--gpus` form, written as the target's GPU option).",
        "Nothing is lost or changed, so it is no warning; it is shown with `-v` (and in "
        "`--explain`, `--diagnostics json`/`sarif`) for whoever wants to see how each thing "
        "was written.",
        "Nothing to do.",
        "#!/bin/bash\n#PBS -N hello\n#PBS -l select=1:ncpus=1\necho $PBS_JOBID\n",
        argv=("convert", "{file}", "--to", "slurm"),
        filename="job.pbs",
    ),
    Code(
        "N002",
        "format-from-content",
        "the file's content, not its extension, decided its format",
        "The file's extension names one format, but the file holds none of that format's "
        "markers and the markers of exactly one other (a `run.sub` holding `#!/bin/bash` and "
        "`#SBATCH` lines), or a `.pbs`/`.qsub` file uses Torque-only constructs "
        "(`nodes=N:ppn=M`, `-t` arrays, `-d`): it is read as the format it is written in.",
        "Sites name job files as they please (`.sub` and `.job` for any scheduler, `.pbs` for "
        "Torque). Read by its extension, such a file gives a wall of syntax errors, or a job "
        "with every directive read in the wrong dialect.",
        "Nothing to do when the reading is right. Pass `--from FORMAT` to read the file as "
        "another format.",
        "#!/bin/bash\n#SBATCH --ntasks=4\nsrun hostname\n",
        filename="run.sub",
    ),
    Code(
        "W302",
        "site-unit-assumed",
        "an LSF value read by a site setting bammmc cannot see",
        "An LSF size (`-M`, `-S`, `rusage[mem=]`) has no unit, or an `rusage[mem=]` of several "
        "slots no `/task` or `/host`. LSF reads the unit from `LSF_UNIT_FOR_LIMITS` in lsf.conf "
        "and reserves memory per host unless lsb.params sets `RESOURCE_RESERVE_PER_TASK=y`; "
        "bammmc cannot see either, and assumed MB (as `lsfinstall` writes it) and per host.",
        "Sites set the unit to KB, MB or GB, and `-M` and `rusage[mem]` may even differ on one "
        "cluster (pitfall 9): `-M 8000` is 8 MB on one cluster and 8 GB on another; "
        '`-n 8 -R "span[ptile=4] rusage[mem=4000]"` is 4000 MB on each of two hosts, or on each '
        "of eight tasks. The converted job says exactly what was assumed; LSF output always has "
        "explicit units and reservation methods.",
        "Write the unit and the method (`rusage[mem=4GB/task]`, LSF 10.1.0.9+), or pass the "
        "site's `--lsf-unit` and `--lsf-reserve` (or set them in bammmc.toml) when converting.",
        "#!/bin/bash\n#BSUB -M 8000\n./app\n",
        filename="job.lsf",
    ),
    # ── LSF codes (the LSF work inserts its new codes above this line) ──
    Code(
        "W420",
        "late-directive-read",
        "a `#$` line after the first command, which qsub still reads",
        "A Grid Engine directive comes after the script's first command. Unlike sbatch and "
        "PBS qsub, Grid Engine reads `#$` lines in the whole file, so it applies this one too. "
        "bammmc reads it and leaves the line where it is in the body.",
        "A late `#$` line is often not meant for this job: it may sit in a here-document that "
        "submits another job, or be a leftover. Other schedulers would ignore it, so the job "
        "can behave differently after a conversion.",
        "Move the directive above the first command; if it belongs to another job, write it "
        "so that it does not start with `#$` in column 0 (for example `# $`).",
        "#!/bin/bash\n#$ -N first\necho hi\n#$ -q late.q\n",
        filename="job.sge",
    ),
    # ── SGE codes (the SGE work inserts its new codes above this line) ──
    # ── Flux language codes, E150–E154 (inserted above this line) ──
    Code(
        "E155",
        "duplicate-label",
        "two resource vertices of a Flux jobspec with the same label",
        "A `label` names a vertex of the jobspec's resource graph (a task names its slot by "
        "it). RFC 14 requires labels to be unique within the jobspec.",
        "With two vertices of one label, a task's `slot` could mean either; Flux refuses it.",
        "Rename one of the two labels (and the task's `slot` if it meant that one).",
        "version: 1\nresources:\n  - type: slot\n    count: 1\n    label: task\n    with:\n"
        "      - type: slot\n        count: 1\n        label: task\n        with:\n"
        "          - {type: core, count: 1}\ntasks:\n  - command: [app]\n    slot: task\n"
        "    count: {per_slot: 1}\nattributes:\n  system: {duration: 60}\n",
        filename="job.jobspec.yaml",
    ),
    Code(
        "E156",
        "task-count-form",
        "a Flux task count without exactly one of `per_slot`, `per_resource`, `total`",
        "A jobspec task's `count` says how many tasks run: one per slot (`per_slot: N`), per "
        "resource of a type (`per_resource: {type, count}`), or in all (`total: N`). It must "
        "hold exactly one of them.",
        "Flux's validator refuses an empty count or one with two forms: the two would "
        "disagree on the number of tasks.",
        "Keep one form: `count: {per_slot: 1}` runs one task in each slot.",
        "version: 1\nresources:\n  - type: slot\n    count: 1\n    label: task\n    with:\n"
        "      - {type: core, count: 1}\ntasks:\n  - command: [app]\n    slot: task\n"
        "    count: {}\nattributes:\n  system: {duration: 60}\n",
        filename="job.jobspec.yaml",
    ),
    Code(
        "W430",
        "not-v1-jobspec",
        "a Flux jobspec that is not V1 (RFC 25), which flux-core refuses to submit",
        "The jobspec is not `version: 1`, or breaks a rule of jobspec V1 (RFC 25): exactly one "
        "top-level `node` or `slot`, a slot holding a core and at most one gpu, fixed counts, "
        "exactly one task counted `per_slot` or `total`, and `attributes.system.duration`. It "
        "is a valid canonical (RFC 14) jobspec, so bammmc reads it.",
        "flux-core's job-ingest accepts only V1 jobspecs for submission: `flux job submit` "
        "would refuse this file.",
        "Reshape the resources as `[node N >] slot S > core C[, gpu G]`, keep one task, and "
        "add a `duration` (0 for none).",
        "version: 1\nresources:\n  - type: slot\n    count: 1\n    label: task\n    with:\n"
        "      - {type: core, count: 1}\ntasks:\n  - command: [app]\n    slot: task\n"
        "    count: {per_slot: 1}\nattributes:\n  system: {cwd: /tmp}\n",
        filename="job.jobspec.yaml",
    ),
    Code(
        "W431",
        "unknown-system-attribute",
        "an `attributes.system` key that Flux does not define",
        "The key is not one of the system attributes RFC 14 and flux-core define (`duration`, "
        "`cwd`, `environment`, `queue`, `bank`, `project`, `dependencies`, `constraints`, "
        "`job`, `shell`, `files`…). bammmc keeps it in `extensions.flux.system`.",
        "RFC 14 reserves `attributes.system` for Flux; unknown keys only produce a warning, "
        "for portability, but they are usually a typo or belong under `attributes.user`.",
        "Fix the spelling, or move the key under `attributes.user`.",
        "version: 1\nresources:\n  - type: slot\n    count: 1\n    label: task\n    with:\n"
        "      - {type: core, count: 1}\ntasks:\n  - command: [app]\n    slot: task\n"
        "    count: {per_slot: 1}\nattributes:\n  system: {duration: 60, qeue: batch}\n",
        filename="job.jobspec.yaml",
    ),
    Code(
        "W432",
        "unknown-slot",
        "a Flux task names a slot no resource vertex has as its label",
        "A jobspec task's `slot` must be the `label` of a `slot` vertex of the resource "
        "graph: the task runs in those slots.",
        "Flux's own validators do not check it (flux-core's test corpus has such a file "
        "among its valid ones), but a task whose slot does not exist has nowhere to run.",
        "Set the task's `slot` to the slot vertex's label (the help lists them).",
        "version: 1\nresources:\n  - type: slot\n    count: 1\n    label: task\n    with:\n"
        "      - {type: core, count: 1}\ntasks:\n  - command: [app]\n    slot: tsak\n"
        "    count: {per_slot: 1}\nattributes:\n  system: {duration: 60}\n",
        filename="job.jobspec.yaml",
    ),
    # ── Flux jobspec codes, E155–E159 and W430–W434 (inserted above this line) ──
    Code(
        "E030",
        "flux-sentinel-changed",
        "a Flux directive whose sentinel differs from the first directive's",
        "RFC 36: every directive of a file uses exactly the same sentinel, the comment prefix "
        "and the tag (`flux:` or `FLUX:`) as the first directive wrote them. This one differs "
        "(`#flux:` after `#FLUX:`, or `#flux:` after `# flux:`).",
        '`flux batch` refuses the script ("sentinel changed"); a different prefix is '
        "often an attempt to comment a directive out, which RFC 36 does after the sentinel.",
        "Write every directive with the first one's sentinel; to disable one, comment it after "
        "the sentinel: `#FLUX: # -N8`.",
        "#!/bin/sh\n#FLUX: -N2\n#flux: --queue=debug\nhostname\n",
        filename="job.flux",
    ),
    Code(
        "E031",
        "flux-orphan-directive",
        "a Flux directive after the end of the directive block",
        "After the first directive, Flux stops reading directives at the first non-blank line "
        "that does not start with the directives' prefix (the first command, usually). A "
        "directive after that line is an orphan, and Flux refuses it rather than ignore it.",
        "`flux batch` refuses the script (\"orphan 'FLUX:' detected: directives disabled "
        'after line N"); the note names the line that ended the block.',
        "Move the directive up into the block, before the first command.",
        "#!/bin/sh\n#FLUX: -N2\nhostname\n#FLUX: --queue=debug\n",
        filename="job.flux",
    ),
    Code(
        "E032",
        "flux-triple-quote",
        "a triple-quoted Flux directive value that is not closed",
        "RFC 36 lets a value be quoted with `\"\"\"` or `'''`; on one line it opens "
        "and closes there, over several lines the opening and the closing triple quote each "
        "end their line and every line between carries the sentinel. Here a triple quote is "
        "left open, is followed by text on its line, or a multi-line value meets a line "
        "without the sentinel.",
        "`flux batch` refuses the script: there is no defined end of the value.",
        "Close the value with the same triple quote at the end of a directive line.",
        '#!/bin/sh\n#FLUX: --setattr=user.conf="""\n#FLUX: [run]\nhostname\n',
        filename="job.flux",
    ),
    Code(
        "E033",
        "flux-unknown-directive",
        "a Flux directive that does not start with an option",
        "The first word of a directive must start with `-` (a `flux batch` option); an "
        "empty directive, or one that is only a comment, does nothing. Any other word is an "
        "unknown directive.",
        '`flux batch` refuses the script ("Unknown directive").',
        "Write the option (`#FLUX: -N2`), or turn the note into a comment after the sentinel "
        "(`#FLUX: # note`).",
        "#!/bin/sh\n#FLUX: nodes=2\nhostname\n",
        filename="job.flux",
    ),
    Code(
        "W435",
        "flux-stray-word",
        "`flux batch` ignores the rest of a directive after a word that is not an option",
        "`flux batch` reads each directive line with its option parser in POSIX mode: the "
        "first word that is not an option (or follows `--`) and everything after it on the "
        "line become the script's name and arguments, which the command line then replaces. "
        "An unquoted `|`, `&`, `;`, `<`, `>`, `(` or `)` is such a word: the shell-like "
        "splitting cuts it out of a value (`--requires=a|b` is `--requires=a` `|` `b`).",
        "What follows is silently lost, and the value before it is cut short.",
        "Quote the value (`--requires='a|b'`), or remove the stray words.",
        "#!/bin/sh\n#FLUX: --requires=ssd|nvme\nhostname\n",
        filename="job.flux",
    ),
    Code(
        "W436",
        "flux-abbreviated-option",
        "an abbreviated `flux batch` long option",
        "The directive abbreviates a long option (`--time` for `--time-limit`, `--job` for "
        "`--job-name`). Older `flux batch` versions accepted unique prefixes; flux-core 0.88 "
        "turns abbreviations off (`allow_abbrev=False`). bammmc reads the full option.",
        "The script is refused by a current Flux, and a prefix can become ambiguous when an "
        "option is added.",
        "Write the option in full.",
        "#!/bin/sh\n#FLUX: --time=30\nhostname\n",
        filename="job.flux",
    ),
    # ── Flux batch codes, E030–E034 and W435–W439 (inserted above this line) ──
    Code(
        "E023",
        "submit-error-statement",
        "an `error :` statement that condor_submit stops at",
        "The submit file reaches an `error : MESSAGE` line (outside any `if` branch that is "
        "not taken). condor_submit prints the message and refuses the whole file.",
        "The author put the line there to stop a submission that lacks something, usually "
        "inside an `if` that tests for it. Converting the file anyway would hide that.",
        "Define what the condition tests for, or remove the `error` line.",
        "executable = run.sh\nerror : set INPUT first\nqueue\n",
        filename="job.sub",
    ),
    Code(
        "W421",
        "not-followed",
        "an `include` or a `queue … from` source that bammmc does not read or run",
        "The submit file takes statements from another file or from a command's output "
        "(`include : FILE`, `include : CMD |`), or queue items from a file or a command "
        "(`queue x from items.txt`, `queue from seq 1 10 |`). bammmc reads only the file it "
        "is given and never runs a command. The statement is kept as written for an HTCondor "
        "target (`extensions.htcondor.verbatim`, `extensions.htcondor.queue`).",
        "Reading other files or running commands while converting would make the result "
        "depend on the machine that converts, and running commands from a job file is unsafe.",
        "Paste the included statements, or write the items into the file: `queue x from ( … )`.",
        "executable = run.sh\ninclude : common.sub\nqueue\n",
        filename="job.sub",
    ),
    Code(
        "W422",
        "condition-unknown",
        "an `if` that depends on values known only when the job is submitted",
        "The condition of an `if`/`elif` uses the HTCondor version, the environment, or a "
        "macro the file does not define. bammmc takes the condition as false and reads the "
        "`else` branch, if any; the whole block is kept as written "
        "(`extensions.htcondor.verbatim`), so an HTCondor target gets it back for "
        "condor_submit to decide.",
        "Which branch applies is decided by condor_submit on the submitting machine, so the "
        "converted job may differ from what is submitted there.",
        "Keep only the branch you mean, or define the macro in the file.",
        "executable = run.sh\nif $(USE_GPU)\n  request_gpus = 1\nendif\nqueue\n",
        filename="job.sub",
    ),
    Code(
        "W423",
        "submit-time-macro",
        "a `$(NAME)` the file does not define, kept as written",
        "A command's value refers to a macro that the submit file does not define (nor is it "
        "an automatic variable such as `$(Cluster)` or `$(Process)`, or a queue variable). "
        "condor_submit takes such names from its configuration, its command line, DAGMan "
        "`VARS`, or the environment (`$ENV()`); `$RANDOM_CHOICE()` and friends are decided at "
        "submit time too. The reference is kept as written.",
        "Its value is not known where the file is converted, so any field that uses it cannot "
        "be converted to a value (a size, a count, a path for another scheduler).",
        "Define the macro in the file (`name = value`), or give `$(name:default)` a default.",
        "executable = run.sh\narguments = --input $(datafile)\nqueue\n",
        filename="job.sub",
    ),
    Code(
        "W424",
        "no-job-queued",
        "a submit file that queues no job",
        "The file has no `queue` statement, or `queue 0`. condor_submit would submit nothing "
        "(htcondor2.Submit assumes one `queue`). bammmc converts the commands as one job.",
        "A submit file without `queue` is usually a fragment meant to be included or "
        "completed by a tool (DAGMan, a template).",
        "End the file with `queue` (or `queue N`).",
        "executable = run.sh\nrequest_cpus = 2\n",
        filename="job.sub",
    ),
    Code(
        "W425",
        "macro-not-command",
        "a name that is not a submit command, so condor_submit keeps it as an unused macro",
        "A `name = value` line uses a name that is not a submit command and that no other "
        "line refers to with `$(name)`; it looks like a misspelled command. condor_submit "
        "silently takes it as a macro definition, so the setting has no effect.",
        "A misspelled `reqest_memory` leaves the job with the default memory, with no error.",
        "Correct the spelling (bammmc suggests the nearest command).",
        "executable = run.sh\nreqest_memory = 4G\nqueue\n",
        filename="job.sub",
    ),
)

CODES: Final[dict[str, Code]] = {c.code: c for c in _ALL}
BY_NAME: Final[dict[str, Code]] = {c.name: c for c in _ALL}


def lookup(code_or_name: str) -> Code | None:
    """A code by its code (`E101`, case-insensitive) or its name (`unknown-field`)."""
    return CODES.get(code_or_name.upper()) or BY_NAME.get(code_or_name.lower())
