"""`autograder merge DIR... --out DIR`: the out dirs of `grade --shard K/N` as one run's.

Reads every shard's `shard.json` (grade/shards.py) and its results.json
files, checks that the shards belong together, and writes into `--out`
what one `autograder grade` of the whole class would have written: each
`<name>/results.json` as the shard wrote it, then grades.csv and report.html
(and the JUnit file the caller writes) from the results in the whole
class's order. Only timings differ from one run (each submission's
`extra_data.grading`, JUnit's `time`, the report's slowest submissions).

A shard's out dir is read as the batch reads its own (reports/out_dir.py):
opened once without following a link, every file a regular file of bounded
size reached without following links, JSON parsed at a bounded cost
(load/bounded_json.py). The merge refuses, with MergeError and no output,
shards that do not belong together: a different seed, grading settings or
class, the same shard or the same student twice, a shard missing, or a
result that is not the one its manifest lists.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from autograder.catalog import messages
from autograder.grade import shards
from autograder.load import bounded_json
from autograder.reports import class_report, grades_csv, gradescope_json
from autograder.reports.out_dir import OutDir, OutDirError
from autograder.reports.result_json import mapping

MAX_MANIFEST_BYTES = 64 << 20  # a class of 100,000 submissions needs a tenth of this


class MergeError(Exception):
    """The shards cannot be merged; the message (from the catalog) says why and what to do."""


@dataclasses.dataclass(frozen=True)
class Listed:
    """One submission a shard's manifest lists."""

    place: int  # in the whole class's order
    name: str
    student: str


@dataclasses.dataclass(frozen=True)
class ShardOutput:
    """One shard's out dir, read and checked: its manifest and its results, in the manifest's order."""

    path: Path
    index: int
    count: int
    seed: int
    settings: dict
    class_size: int
    class_digest: str
    listed: tuple[Listed, ...]
    results: tuple[dict, ...]
    identity: tuple[int, int]  # (st_dev, st_ino) of the directory, so --out is never one of the shards


def merge(shard_dirs: list[Path], out_dir: Path) -> list[dict]:
    """Merge the shards' out dirs into `out_dir`; return the results in the whole class's order (as grade_batch does).

    Raises MergeError, before writing anything, if they do not belong together.
    """
    outputs = [read_shard(Path(path)) for path in shard_dirs]
    check_together(outputs)
    ordered = sorted(((listed.place, listed, result) for shard in outputs
                      for listed, result in zip(shard.listed, shard.results, strict=True)), key=lambda t: t[0])
    try:
        with OutDir(out_dir) as out:
            if out.identity in {shard.identity for shard in outputs}:
                raise MergeError(messages.text("merge.out_is_a_shard", out=out_dir))
            for _, listed, result in ordered:
                gradescope_json.write_data(result, out, listed.name)
            results = [result for _, _, result in ordered]
            grades_csv.write([grades_csv.row(r) for r in results], out)
            class_report.write(results, out)
    except OutDirError as error:
        raise MergeError(messages.text("merge.cannot_write", out=out_dir, error=error)) from None
    return results


def read_shard(path: Path) -> ShardOutput:
    """The manifest and results of one shard's out dir; MergeError if it is not a finished shard's."""
    try:
        with OutDir(path, create=False) as out:
            manifest = _manifest(out, path)
            listed = tuple(_listed(entry, path) for entry in manifest["submissions"])
            results = tuple(_result(out, path, item, manifest["seed"]) for item in listed)
            identity = out.identity
    except OutDirError as error:
        raise MergeError(messages.text("merge.unreadable", shard=path, error=error)) from None
    return ShardOutput(path=path, index=manifest["shard"]["index"], count=manifest["shard"]["count"],
                       seed=manifest["seed"], settings=manifest["settings"],
                       class_size=manifest["class"]["submissions"], class_digest=manifest["class"]["digest"],
                       listed=listed, results=results, identity=identity)


def _manifest(out: OutDir, path: Path) -> dict:
    """shard.json, bounded, with the shape grade/shards.py writes."""
    try:
        raw = out.read_file(None, shards.MANIFEST, limit=MAX_MANIFEST_BYTES)
    except OutDirError as error:
        raise MergeError(messages.text("merge.no_manifest", shard=path, manifest=shards.MANIFEST,
                                       error=error)) from None
    try:
        data = bounded_json.loads(raw, max_bytes=MAX_MANIFEST_BYTES)
    except ValueError as error:  # not UTF-8, not JSON, or beyond the limits
        raise MergeError(messages.text("merge.bad_manifest", shard=path, manifest=shards.MANIFEST,
                                       error=error)) from None
    data = mapping(data)
    shard, klass = mapping(data.get("shard")), mapping(data.get("class"))
    well_formed = (data.get("format") == shards.MANIFEST_FORMAT
                   and _is_int(shard.get("index")) and _is_int(shard.get("count"))
                   and 0 <= shard["index"] < shard["count"] and _is_int(data.get("seed"))
                   and isinstance(data.get("settings"), dict) and _is_int(klass.get("submissions"))
                   and isinstance(klass.get("digest"), str) and isinstance(data.get("submissions"), list))
    if not well_formed:
        raise MergeError(messages.text("merge.bad_manifest", shard=path, manifest=shards.MANIFEST,
                                       error="not the shape autograder grade --shard writes"))
    return data


def _listed(entry: object, path: Path) -> Listed:
    fields = mapping(entry)
    place, name, student = fields.get("place"), fields.get("name"), fields.get("student")
    if not (isinstance(place, int) and not isinstance(place, bool) and place >= 0
            and isinstance(name, str) and isinstance(student, str)):
        raise MergeError(messages.text("merge.bad_manifest", shard=path, manifest=shards.MANIFEST,
                                       error=f"a submission listed as {str(entry)[:200]}"))
    return Listed(place, name, student)


def _result(out: OutDir, path: Path, listed: Listed, seed: int) -> dict:
    """The results.json the manifest lists, read as the batch reads it back; it must be that student's, that seed's."""
    try:
        data = gradescope_json.read(out, listed.name)  # a single file name, bounded, no links followed
    except (OSError, ValueError) as error:  # ValueError: a name that is not one file name, or not a result
        raise MergeError(messages.text("merge.unreadable", shard=path, error=error)) from None
    extra = mapping(data.get("extra_data"))
    if extra.get("student") != listed.student or extra.get("seed") != seed:
        raise MergeError(messages.text("merge.result_mismatch", shard=path, name=listed.name,
                                       student=listed.student, seed=seed))
    return data


def check_together(outputs: list[ShardOutput]) -> None:
    """MergeError unless these are all N shards of one class, graded alike, each once, no student twice."""
    if not outputs:
        raise MergeError(messages.text("merge.nothing"))
    first = outputs[0]
    for other in outputs[1:]:
        if other.seed != first.seed:
            raise MergeError(messages.text("merge.different_seeds", first=first.path, first_seed=first.seed,
                                           other=other.path, other_seed=other.seed))
        changed = sorted(key for key in first.settings.keys() | other.settings.keys()
                         if first.settings.get(key) != other.settings.get(key))
        if changed:
            raise MergeError(messages.text("merge.different_settings", first=first.path, other=other.path,
                                           what=", ".join(changed)))
        if (other.count, other.class_size, other.class_digest) != (first.count, first.class_size, first.class_digest):
            raise MergeError(messages.text("merge.different_class", first=first.path, other=other.path))
    _check_no_overlap(outputs)
    present = {shard.index for shard in outputs}
    missing = [str(index) for index in range(first.count) if index not in present]
    if missing:
        raise MergeError(messages.text("merge.missing_shards", missing=", ".join(missing), count=first.count))
    places = sorted(listed.place for shard in outputs for listed in shard.listed)
    if places != list(range(first.class_size)):
        raise MergeError(messages.text("merge.different_class", first=first.path, other=outputs[-1].path))


def _check_no_overlap(outputs: list[ShardOutput]) -> None:
    """The same shard twice, or a student or submission in two shards, would count someone twice."""
    seen_shard: dict[int, Path] = {}
    seen_student: dict[str, Path] = {}
    seen_name: dict[str, Path] = {}
    for shard in outputs:
        if shard.index in seen_shard:
            raise MergeError(messages.text("merge.same_shard", index=shard.index, count=shard.count,
                                           first=seen_shard[shard.index], other=shard.path))
        seen_shard[shard.index] = shard.path
        for listed in shard.listed:
            for key, seen in ((listed.student, seen_student), (listed.name.casefold(), seen_name)):
                if key in seen and seen[key] != shard.path:
                    raise MergeError(messages.text("merge.overlap", student=listed.student, name=listed.name,
                                                   first=seen[key], other=shard.path))
            seen_student.setdefault(listed.student, shard.path)
            seen_name.setdefault(listed.name.casefold(), shard.path)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def run(shard_dirs: list[Path], out_dir: Path, *, junit_xml: Path | None = None,
        fail_under: float | None = None) -> int:
    """`autograder merge`: merge, write the JUnit file if asked, print the summary; the exit status.

    2 if the shards cannot be merged (nothing is written) or a file cannot
    be; else what `grade` would exit with (--fail-under, see exit_status).
    """
    from autograder.reports import exit_status
    from autograder.reports import junit_xml as junit

    try:
        results = merge(shard_dirs, out_dir)
    except MergeError as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    if junit_xml is not None:
        try:
            junit.write(results, junit_xml)
        except OSError as error:
            print(f"autograder: could not write {junit_xml}: {error}", file=sys.stderr)
            return 2
    seed = mapping(results[0].get("extra_data")).get("seed") if results else None
    print(messages.text("merge.done", shards=len(shard_dirs), seed=seed, count=len(results), out=out_dir))
    print(class_report.render_terminal(class_report.build(results)), flush=True)
    line = exit_status.summary(results, fail_under)
    if line:
        print(f"autograder: {line}", file=sys.stderr)
    return exit_status.exit_code(results, fail_under)
