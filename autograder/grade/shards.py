"""`autograder grade --shard K/N`: one of N machines grades a stable K-th of the class.

A class too large for one machine is graded as N shards (a CI matrix, a
Slurm job array), each an ordinary `autograder grade` of the same PATHS
with `--shard K/N`, K from 0 to N-1; `autograder merge` (grade/merge.py)
then combines their out dirs into what one run would have written.

So that the merge equals one run:

- Every shard discovers the whole class (`batch.discover`) and only then
  keeps its share: each submission's out dir name is the one the whole
  class gives it (names can depend on the other submissions: two names the
  same ignoring case are both hashed), and the manifest records each kept
  submission's place in the whole class's order, which the reports follow.
- A submission's shard is a hash of its student (`shard_of`), never its
  position in a list: adding or removing students moves no one else, and a
  student's files (several assignments, several notebooks) stay together.
- Every shard grades with the same seed: `--shard` needs a fixed one
  (`--seed`, $AUTOGRADER_SEED, or an integer `[seeds] grade` in
  grading.toml), never a random draw per shard.

Each shard writes `shard.json` into its out dir after its grades.csv: the
manifest the merge checks (which shard, the seed, the grading settings, a
digest of the whole class as this shard saw it, and its submissions). It is
written last, so an out dir without one is a shard that did not finish.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
from pathlib import Path

from autograder.catalog import messages
from autograder.grade.batch import BatchItem
from autograder.grade.result_provenance import grading_settings
from autograder.grade.run_options import RunOptions
from autograder.grading_config import SEED_ENVIRONMENT_VARIABLE, GradingConfig
from autograder.reports.out_dir import OutDir

MANIFEST = "shard.json"
MANIFEST_FORMAT = 1
MAX_SHARDS = 10_000


class ShardError(ValueError):
    """`--shard` cannot be used as given; the message (from the catalog) says why and what to do."""


@dataclasses.dataclass(frozen=True)
class Shard:
    """Shard `index` of `count` (0 <= index < count)."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse(text: str) -> Shard:
    """`K/N` as a Shard; ShardError (a ValueError, so argparse reports it) for anything else."""
    index, slash, count = text.strip().partition("/")
    try:
        shard = Shard(int(index), int(count))
    except ValueError:
        shard = None
    if not slash or shard is None or not (1 <= shard.count <= MAX_SHARDS and 0 <= shard.index < shard.count):
        raise ShardError(messages.text("shard.bad_spec", given=text, maximum=MAX_SHARDS))
    return shard


def shard_of(student: str, count: int) -> int:
    """The shard of everything `student` handed in: the first 8 bytes of sha256(student), modulo `count`.

    A hash of the student alone, so it depends on nothing else in the class.
    """
    digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % count


def student_key(item: BatchItem) -> str:
    """What a submission is sharded by: its student (every layout names one; the file name in a flat folder)."""
    return item.student or item.name


def fixed_seed(config: GradingConfig, seed: int | None) -> int:
    """The seed every shard shares: `--seed`, else $AUTOGRADER_SEED, else grading.toml's integer grade seed.

    Raises ShardError when only a random draw is left: each shard would draw its own.
    """
    if seed is not None or os.environ.get(SEED_ENVIRONMENT_VARIABLE, "").strip():
        return config.resolve_seed("grade", seed)
    if config.seed_policy.get("grade", "random") != "random":
        return config.resolve_seed("grade", None)
    raise ShardError(messages.text("shard.needs_seed", variable=SEED_ENVIRONMENT_VARIABLE))


@dataclasses.dataclass
class Selection:
    """Passed to `batch.grade_batch` as `select`: keeps this shard's submissions, and remembers the whole class."""

    shard: Shard
    everyone: list[BatchItem] = dataclasses.field(default_factory=list)
    kept: list[tuple[int, BatchItem]] = dataclasses.field(default_factory=list)  # (place in the class, item)

    def __call__(self, items: list[BatchItem]) -> list[BatchItem]:
        self.everyone = list(items)
        self.kept = [(place, item) for place, item in enumerate(items)
                     if shard_of(student_key(item), self.shard.count) == self.shard.index]
        return [item for _, item in self.kept]


def class_digest(items: list[BatchItem]) -> str:
    """Who is in the class and under which names, in order: equal in every shard of the same PATHS."""
    listed = json.dumps([[item.name, item.student] for item in items], ensure_ascii=False)
    return hashlib.sha256(listed.encode("utf-8", "surrogatepass")).hexdigest()


def run_settings(run: RunOptions) -> dict:
    """Everything besides the submissions that decides a shard's results; every shard of a merge must agree.

    `batch`'s per-result settings (kit, seed, limits, sandbox, hints), with
    every assignment's suite and points, the `--assignment` given and the
    feedback language chosen for the run (--lang or $AUTOGRADER_LANG).
    """
    config, seed, sandbox = run.config, run.seed, run.sandbox
    settings = grading_settings(config, seed, None, sandbox, run.hints)
    del settings["suite"], settings["points"]
    per_assignment = {a: grading_settings(config, seed, a, sandbox, run.hints) for a in config.assignments}
    settings["suites"] = {a: s["suite"] for a, s in per_assignment.items()}
    settings["points"] = {a: s["points"] for a, s in per_assignment.items()}
    settings["assignment"] = run.assignment
    settings["language"] = run.language
    return settings


def manifest(selection: Selection, settings: dict) -> dict:
    """The contents of `shard.json` (see the module's docstring)."""
    return {
        "format": MANIFEST_FORMAT,
        "shard": {"index": selection.shard.index, "count": selection.shard.count},
        "seed": settings["seed"],
        "settings": settings,
        "class": {"submissions": len(selection.everyone), "digest": class_digest(selection.everyone)},
        "submissions": [{"place": place, "name": item.name, "student": item.student} for place, item in selection.kept],
    }


def write_manifest(out_dir: Path, data: dict) -> None:
    """`<out>/shard.json`, atomically and never through a link (out_dir.OutDir), once the shard's results are in."""
    with OutDir(out_dir, create=False) as out:
        out.write_file(None, MANIFEST, json.dumps(data, indent=2, ensure_ascii=False).encode("utf-8"), mode=0o666)


def finish(selection: Selection, out_dir: Path, run: RunOptions) -> int:
    """After the shard's grading: write its manifest and say how to merge; the exit status (2 if not written)."""
    try:
        write_manifest(out_dir, manifest(selection, run_settings(run)))
    except OSError as error:
        print(f"autograder: {MANIFEST}: {error}", file=sys.stderr)
        return 2
    if not selection.kept:  # nothing wrong: the class's students all hash to the other shards
        print(messages.text("shard.empty", shard=selection.shard, total=len(selection.everyone)), file=sys.stderr)
        return 0
    print(messages.text("shard.graded", shard=selection.shard, count=len(selection.kept),
                        total=len(selection.everyone)), file=sys.stderr)
    return 0
