"""Every student-facing string of the kit, in one catalog so it can be translated.

Code never builds feedback sentences itself: it calls `text(key, **fields)`.
Translations live in gettext PO files, `locale/<language>.po` (msgctxt: the
key, msgid: the English sentence, msgstr: the translation; see
locale/README.md), which translators edit with their usual tools. The
language is chosen once where the kit is entered, and held: a command's
`--lang`, else $AUTOGRADER_LANG read there (`asked_for`, `speaking`); a check
cell's call, or nbgrader's process, reads $AUTOGRADER_LANG there
(`entering`, `hold`); else each notebook's own language (`using`), else
English. `text()` reads the language held, never the environment. A sentence
not yet translated is English.

A hint (a key of `hint_ideas.IDEAS`) is shown at a level, `hint_level()`:
the JAX idea, the idea and the API to read about, or the worked recipe.
grading.toml's `[feedback]` sets the level for `check` and for grading.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from autograder.catalog import assignment_catalogs, hint_ideas
from autograder.catalog.message_ref import (
    JOINED,
    TRIMMED,
    Message,
    Sentence,
    fill,
    reference,
    said_joined,
    said_trimmed,
)

ENGLISH: dict[str, str] = {
    # --- Loading a submission -------------------------------------------------
    "load.file_missing": "Submission {path} does not exist. Check the path, or hand in the notebook file itself.",
    "load.is_folder": "{path} is a folder, not a notebook. Name one notebook file in it, e.g. {example}.",
    "load.not_json": "{path} is not a valid notebook: its JSON cannot be read ({error}). Re-download the notebook or restore it from a checkpoint; do not edit .ipynb files in a text editor.",
    "load.invalid_notebook": "{path} is not a valid nbformat 4 notebook ({error}). Re-download the notebook or restore it from a checkpoint.",
    "load.bad_suffix": "{path} is neither a notebook (.ipynb) nor a Python file (.py). Hand in the .ipynb file.",
    "load.not_utf8": "{path} is not UTF-8 text. Save it as UTF-8.",
    "load.too_large": "{path} is larger than {limit_mib} MiB, more than the grader reads. If it is a notebook, clear its outputs (in Jupyter: Edit > Clear All Outputs) and save it; then hand it in again.",
    "load.too_deep": "{path} is not a notebook the grader can read: its JSON is nested more than {depth} levels deep. Re-download the notebook or restore it from a checkpoint; do not edit .ipynb files in a text editor.",
    "load.unknown_assignment": "Cannot tell which assignment {path} is. Keep the notebook's file name (e.g. 01_immutable_updates.ipynb), or pass --assignment NAME. Known assignments: {known}.",
    "load.magic_skipped": "Cell {cell}: skipped IPython-only line `{line}` (magics and shell commands do not run in grading).",
    "load.cell_unreadable": "Cell {cell} could not be read ({reason}); nothing in it was run, so the functions it defines are missing. Retype that cell's code in a new cell.",
    # Why a cell could not be read (the {reason} of load.cell_unreadable).
    "load.unreadable.character": "character {position} is not valid text",
    "load.unreadable.nul": "it contains a NUL character",
    "load.unreadable.too_long": "it is longer than {limit} characters",
    "load.unreadable.ipython_error": "IPython cannot read it: {error_type}",
    "load.unreadable.ipython_lines": "IPython changes its lines in a way grading cannot follow",
    "load.cell_magic_skipped": "Cell {cell}: the cell magic `%%{magic}` does not run in grading; the whole cell was skipped. Keep graded code out of cells that start with a cell magic.",
    "load.cell_magic_body_run": "Cell {cell}: ran the cell's code without its first line, `%%{magic}`, which does not run in grading.",
    "load.check_cell_skipped": "Cell {cell}: check cell skipped (the grader runs its own checks).",
    "load.syntax_error": "Cell {cell} has a syntax error at line {line}: {error}. Nothing in that cell was defined; fix the syntax and run the cell again.",
    "load.cell_raised": "Cell {cell} raised {error_type}: {error}. The rest of that cell did not run; the grader went on with the next cells.",
    "load.demos_skipped": "Cells {cells} were not run: they are the notebook's examples, unchanged, and nothing graded uses them.",
    "load.cell_not_implemented": "Cell {cell} is not implemented yet (it still raises NotImplementedError).",
    "load.timeout": "The notebook's top-level code used more than {seconds:g} s of CPU time (an infinite loop or a long computation outside a function?). No function could be graded. Move long work into functions and remove endless loops.",
    "load.busy": "The notebook's top-level code was not graded: twice the grading machine was too busy to finish it within {seconds:g} s, though it had CPU time left. This is not your code's fault: the submission is marked to be graded again.",
    "load.stalled": "The notebook's top-level code did not finish, though it had used less than {seconds:g} s of CPU time: it was not running but waiting (does it sleep, or wait for input?). No function could be graded. Remove the waiting from your notebook.",
    "load.exited": "The notebook's top-level code ended the process ({detail}). Remove calls such as sys.exit() or os._exit() from your notebook.",
    "load.tampered": "The notebook's top-level code changed the grading environment ({change}); the change was undone before grading.",
    "load.last_output": "Last output before it ended:\n{output}",
    "load.child_failed": "The grader could not run the notebook ({detail}).",
    "load.why.link": "a symbolic link",
    "load.why.not_regular": "not a regular file",
    "load.why.too_large": "larger than {limit}",
    "load.why.missing": "no such file",
    "load.why.no_permission": "not readable",
    "load.why.other": "{error}",
    "load.why.too_many_files": "more than {count} files",
    "load.why.folder_too_large": "more than {limit_mib} MiB in all",
    "load.not_a_file": "{file} was not read ({why}): grading reads only a notebook handed in as a regular file of at most {limit_mib} MiB, never a link or a special file. Hand in the notebook itself.",
    "load.assignment_mismatch": "Graded as {assignment} ({chosen_by} says so), but {evidence}. If this is the wrong notebook, hand in the notebook of {assignment}; instructors can choose with --assignment.",
    "load.source_says": "{source} says {assignment}",
    "load.source_option": "--assignment",
    "load.source_metadata": "the notebook's metadata",
    "load.source_file_name": "the file name",
    "load.sandbox_failed": "The grader could not start a sandbox for this submission ({detail}). This is not a problem with the notebook: ask your instructor to grade it again.",
    # --- autograder grade's terminal ------------------------------------------
    "batch.progress_label": "Grading",
    "batch.status": "{done} of {total} graded, {rate:.1f} per minute, about {remaining:.0f} s left",
    "batch.finished_line": "{name}: {score:g} / {max_score:g}",
    "batch.nothing_graded": "No submissions found: name .ipynb or .py files, or folders that hold them.",
    "batch.summary": "Graded {count} submission(s) with seed {seed}; results in {out}/ (grades.csv, <name>/results.json). Mean {mean:.0f}%, median {median:.0f}%, {full} with full marks.",
    "batch.resume_reused": "--resume: reused {count} finished result(s) of the same student, file content and grading settings.",
    "batch.resume_regraded": "--resume: regrading {name}: {reason}.",
    "batch.no_solutions_beside_config": "No solutions/ folder beside {config}: the workers cannot build the store of JAX's own compiled programs from the kit's solutions, so every submission compiles them itself (about a second more each). Grades are the same. Keep grading.toml in the course directory, beside solutions/.",
    "batch.no_solutions_in_image": "This image holds no solutions/ beside {config}, as a Gradescope image must: every submission compiles JAX's own programs itself (about a second more each). Grades are the same.",
    "batch.resume_reason.no_result": "no finished result yet",
    "batch.resume_reason.other_student": "its result belongs to {recorded}",
    "batch.resume_reason.content_changed": "the file changed since it was graded",
    "batch.resume_reason.settings_changed": "the grading settings changed ({what})",
    "batch.resume_reason.grader_error": "the grader had a problem with it last time (e.g. the machine was too busy)",
    "batch.interrupted": "grading was interrupted before it finished",
    "batch.resume_reason.interrupted": "the last run was interrupted before it graded this one",
    "batch.resume_reason.too_busy": "the machine was too busy to grade it last time",
    "batch.resume_reason.kit_error": "the grader itself failed on it last time (the kit's error, not the notebook's)",
    "batch.interrupted_summary": "Interrupted after {graded} of {total}; {not_graded} not graded. Run the same command with --resume to finish.",
    "batch.not_graded_note": "Not graded yet: grading stopped before it reached this submission. The 0 is a placeholder, not a grade; course staff will grade it again.",
    "batch.not_graded_banner": "{count} of {total} submission(s) were not graded ({reasons}). Their 0s are placeholders, not grades: grades.csv leaves their score empty. Run the same command with --resume to grade them.",
    "batch.read_back_failed": "its result could not be read back: {error}",
    "batch.report_failed": "its result could not be put in the reports: {error}",
    "batch.identity_nested": "Graded as {student}'s: it is in their folder {entry}, but its path there ({inner}) is laid out like another student's submission. Check who wrote it before these points count.",
    "batch.identity_outside": "This file is in none of the students' folders of {root} ({layout}'s layout), so it is graded under its file name, {student}. Check who handed it in.",
    "batch.identity_no_submitter": "Gradescope's submission_metadata.yml names no submitter for {folder}, so it is graded under the folder's name. Check who handed it in.",
    "batch.identity_metadata_unreadable": "Gradescope's submission_metadata.yml could not be read ({error}), so {folder} is graded under the folder's name. Check who handed it in.",
    "batch.identity_failed": "Who handed in this file could not be told from where it sits ({error}), so it is graded under its file name, {student}. Check who handed it in.",
    "batch.folder_cut": "Only part of {folder} was read: a student's folder is read up to {names} files and folders and {depth} folders deep, and this one holds more. Check it by hand: a notebook past that limit was not seen.",
    "batch.files_ignored": "Graded {graded}; not graded: {ignored}. One file is graded per assignment: the notebook whose metadata names the assignment, else the one named {expected}, else the newest. If another file should count, hand in only that one.",
    "batch.no_notebook": "No notebook handed in: found {found}. Only a notebook (.ipynb) or a Python file (.py) can be graded, so this scores 0; hand in the notebook.",
    "batch.no_notebook_empty": "No notebook handed in: the folder `{folder}` is empty. Only a notebook (.ipynb) or a Python file (.py) can be graded, so this scores 0; hand in the notebook.",
    "cli.unknown_assignment": "No assignment is named `{given}`.",
    "cli.unknown_exercise": "{assignment} has no exercise named `{given}`.",
    "cli.unknown_exercise_any": "No assignment has an exercise named `{given}`.",
    "cli.did_you_mean": "Did you mean `{suggestion}`?",
    "cli.missing_suite": "The checks of {assignment} are missing: looked for test_{assignment}.py in {looked}. Ask course staff: the course's suites/ folder (or the kit) must hold them.",
    "cli.junit_xml_among_submissions": "--junit-xml {junit} is inside --out {out} under a name a submission's results folder could take. Write it as {out}/junit.xml (a name kept free for it) or outside --out.",
    "cli.known": "Known: {known}.",
    # `--help` of the commands a student runs (check) and of the options every command takes.
    "cli.help_description": "Auto-graded JAX exercises.",
    "cli.help_student_description": "Check JAX exercise notebooks (student package).",
    "cli.help_check": "check one notebook or .py file and print a table of results",
    "cli.help_check_path": "the notebook (.ipynb) or Python file to check",
    "cli.help_exercise": "only this function (repeatable)",
    "cli.help_assignment": "assignment name, if the file name does not say it",
    "cli.help_seed": "seed for the hidden inputs (default: grading.toml's policy)",
    "cli.help_config": "the course's grading.toml: every command works on its folder, the course directory (default: the current directory's)",
    "cli.help_lang": "language of feedback: en or ko (default: $AUTOGRADER_LANG, else the notebook's own, else en)",
    "cli.help_hints": "how much a hint shows: idea, api (the API to read about) or recipe (worked code); default: grading.toml's [feedback]",
    # argparse's own words in a command's --help (its English ones, as Python 3.11 prints them).
    "cli.help_usage": "usage: ",
    "cli.help_positionals": "positional arguments",
    "cli.help_options": "options",
    "cli.help_help": "show this help message and exit",
    # --- Sharding a class over several machines (grade --shard, merge) ---------
    "cli.public_seed": "Seed {seed} is the student package's public seed: every student has its inputs and the reference's outputs on them. Grade with another --seed (or none, and a fresh one is drawn), and check AUTOGRADER_SEED and grading.toml's [seeds].",
    "shard.bad_spec": "--shard takes K/N: shard K of N, K counting from 0 (0 to N-1), N from 1 to {maximum}; got {given}.",
    "shard.needs_seed": "--shard needs a seed every shard shares, or each would draw its own: pass the same --seed to every shard (or set {variable}, or an integer [seeds] grade in grading.toml).",
    "shard.graded": "Shard {shard}: graded {count} of the class's {total} submission(s). Combine every shard's out dir with: autograder merge DIR... --out DIR",
    "shard.empty": "Shard {shard} holds none of the class's {total} submissions (they hash to the other shards); nothing to grade.",
    "merge.nothing": "Nothing to merge: name the out dirs of every shard (autograder grade --shard K/N).",
    "merge.no_manifest": "{shard} is not a finished shard's out dir: {manifest} could not be read ({error}). autograder grade --shard K/N writes it when the shard has finished; grade that shard again.",
    "merge.bad_manifest": "{shard}/{manifest} is not a shard manifest ({error}); grade that shard again.",
    "merge.unreadable": "{shard} could not be read as a shard's out dir: {error}",
    "merge.result_mismatch": "{shard}: the result {name}/results.json is not the one the shard's manifest lists (student {student}, seed {seed}); something changed the out dir after grading. Grade that shard again.",
    "merge.different_seeds": "The shards were graded with different seeds ({first}: {first_seed}, {other}: {other_seed}), so their hidden inputs differ; grade every shard with the same --seed.",
    "merge.different_settings": "{first} and {other} were graded with different settings ({what}); grade every shard with the same kit, grading.toml and options.",
    "merge.different_class": "{first} and {other} are shards of different classes (other submissions, or another number of shards); grade every shard with the same PATHS and the same N in --shard K/N.",
    "merge.same_shard": "Shard {index}/{count} is given twice ({first} and {other}); name each shard's out dir once.",
    "merge.overlap": "{student} ({name}) is in two shards ({first} and {other}): their results would count twice. Merge shards of one run (the same PATHS and N), each once.",
    "merge.missing_shards": "Shard(s) {missing} of {count} are missing: merge the out dirs of all {count} shards, or the grades would leave students out.",
    "merge.out_is_a_shard": "--out {out} is one of the shards' out dirs; merge into a directory of its own.",
    "merge.cannot_write": "Could not write the merged results into {out}: {error}",
    "merge.done": "Merged {shards} shard(s) with seed {seed}: {count} submission(s) in {out}/ (grades.csv, report.html, <name>/results.json).",
    # --- Calling student functions -------------------------------------------
    "call.missing_function": "`{function}` is not defined. Define a function named exactly `{function}` (names are case-sensitive), and make sure its cell runs without errors.",
    "call.did_you_mean": "Did you mean `{similar}`? Rename it to `{function}`.",
    "call.missing_not_implemented": "`{function}` is not implemented yet: its cell still raises NotImplementedError, so it is not defined. Replace `raise NotImplementedError()` in that cell with your code.",
    "call.not_callable": "`{function}` is of type {type_name}, not a function. Define it with `def {function}(...)`.",
    "call.not_implemented": "`{function}` is not implemented yet: replace `raise NotImplementedError()` with your code.",
    "call.not_implemented_above": "`{function}` is not implemented yet (see above).",
    "call.raised": "{call} raised {error_type}: {error}",
    "call.timeout": "{call} used more than {seconds:g} s of CPU time (an infinite loop?). The check was stopped.",
    "call.busy": "{call} was not graded: twice the grading machine was too busy to finish it, though it had CPU time left. This is not your code's fault: the submission is marked to be graded again.",
    "call.stalled": "{call} did not finish, though it had used less than {seconds:g} s of CPU time: it was not running but waiting (does it sleep, or wait for input?). The check was stopped.",
    "call.exited": "{call} ended the grading process ({detail}). Do not call sys.exit(), os._exit() or raise SystemExit/KeyboardInterrupt in graded code.",
    "call.budget_exhausted": "The submission used up its total limit of {seconds:g} s of CPU time; the remaining checks were not run.",
    "call.bad_output": "{call} returned {detail}. Return JAX arrays (or the structure the exercise states).",
    "call.hint": "Hint: {hint}",
    "call.said_above": "(See above: what this function's first failed check says applies here too.)",
    "call.recipe": "What the exercise asks, to compare with your code: {recipe}",
    "call.location": "(in `{function}`, line {line} of its cell)",
    "call.location_top_level": "(line {line} of the cell)",
    "hint.read_about": "Read about: {apis}.",
    "call.tampered": "{call} changed the grading environment while it ran ({changes}). The result of this check cannot be trusted and scores 0. Graded code must not change jax.config, replace JAX or NumPy functions, or patch the grader.",
    # --- Hints for JAX errors: the JAX idea that fixes each ---------------------
    "hint.ArrayTruthValue": "a Python `if`, `while`, `and`/`or` or `bool()` was applied to an array of several entries, whose truth value is ambiguous: this fails even without jit. Use `jnp.where` to choose entry by entry, or `lax.cond` to choose between two computations on one condition.",
    "hint.TracerBoolConversionError": "a Python `if`, `while`, `and`/`or` or `bool()` was applied to a traced value. Inside jit, values are abstract. Use `jnp.where` for elementwise choices, `lax.cond` to choose between two computations, `lax.while_loop` for data-dependent loops, or make the argument static.",
    "hint.ConcretizationTypeError": "a concrete Python value was needed from a traced value (for example `range(n)`, a shape, or `int(x)`). Use `lax.fori_loop` / `lax.while_loop` for loops with traced bounds, `jnp.where` instead of branching, or mark the argument static with `static_argnums` if it really is a compile-time constant.",
    "hint.TracerIntegerConversionError": "a traced value was used where Python needs an int (`range(n)`, indexing a list, a shape). Make that argument static with `static_argnums`/`static_argnames`, or use `lax.fori_loop` when the count may be traced.",
    "hint.NonConcreteBooleanIndexError": "boolean-mask indexing like `x[x > 0]` has a data-dependent shape, which jit cannot compile. Keep the shape fixed: use `jnp.where(mask, x, 0)` and reduce that instead.",
    "hint.TracerArrayConversionError": "a traced value was converted to a NumPy array (`np.array(x)`, `np.asarray`, or a NumPy function). Stay in `jax.numpy` inside the function; for updates use `x.at[idx].set(value)`.",
    "hint.ImmutableArray": "JAX arrays are immutable: `x[i] = v` is not allowed. Build a new array with `x = x.at[i].set(v)` (or `.add`, `.multiply`...).",
    "hint.KeyReuseError": "a PRNG key was used more than once. Every random draw needs a fresh key: split first (`key_a, key_b = jax.random.split(key)`) and use each subkey exactly once; never reuse the parent key after splitting it.",
    "hint.UnexpectedTracerError": "a traced value escaped its transformation (stored in a global, a list or an attribute during jit). Return values from the function instead of saving them outside it.",
    "hint.UnhashableStatic": "a static argument must be hashable (an int, a str, a tuple). Arrays are not: mark only the Python-valued arguments static, and let arrays be traced.",
    "hint.IncompatibleShapes": "two arrays whose shapes do not broadcast were combined (trailing axes must be equal or 1). If one of them is a reduction such as `x.sum(axis=...)`, pass `keepdims=True` so the reduced axis stays with size 1 and broadcasts against `x`.",
    "hint.NonArrayArgument": "a value that is not an array (a string, a function, None...) was passed to a jitted function as a traced argument. Mark that argument static with `static_argnames` (or `static_argnums`) in `jax.jit`, so JAX uses its Python value while tracing.",
    "hint.ScalarOutputGrad": "`jax.grad` differentiates a function that returns one scalar. If your function returns a pair `(loss, aux)`, pass `has_aux=True`: `jax.grad(f, has_aux=True)` returns `(grads, aux)` and `jax.value_and_grad(f, has_aux=True)` returns `((loss, aux), grads)`. If it returns an array, reduce it to a scalar first (e.g. `jnp.mean`).",
    # A JAX API that the JAX running the check lacks (check/jax_api_versions.py): which versions have it.
    "api.removed": "`{api}` was removed in JAX {removed}, and this check ran with JAX {running}. Use `{replacement}` instead, which every JAX the course supports has.",
    "api.newer": "`{api}` came in JAX {added}, newer than the JAX {running} this check ran with. Use `{replacement}` instead, which every JAX the course supports has.",
    "hint.RemovedTreeMap": "`jax.tree_map` was removed from JAX (older tutorials still use it). Use `jax.tree.map` (or `jax.tree_util.tree_map`).",
    "hint.RemovedIndexUpdate": "`jax.ops.index_update` and its relatives were removed from JAX (older tutorials still use them). JAX arrays are updated functionally with `x.at[...]`: read about `.at[...].set`, `.add`, `.multiply`.",
    "hint.RemovedHostCallback": "`jax.experimental.host_callback` was removed from JAX. Graded functions should not call back into Python at all; for printing while debugging, read about `jax.debug.print`.",
    "hint.RawAndTypedKeys": "a raw `uint32` key (from `jax.random.PRNGKey`, the older API) was mixed with typed keys. This exercise passes typed keys made by `jax.random.key(seed)`: split the key you are given with `jax.random.split` instead of making new ones.",
    "hint.VmapInAxes": "`jax.vmap` maps axis 0 of every argument, and of every leaf of a pytree argument, unless `in_axes` says otherwise: all of them need that axis, with the same batch size. Give None in `in_axes` for an argument that every example shares, such as the parameters: `jax.vmap(f, in_axes=(None, 0))(params, xs)`. None covers a whole pytree of any structure; an `in_axes` entry written as a dict or list must have exactly its argument's structure.",
    "hint.DeviceCountWrittenIn": "The mesh asks for more devices than there are: the code writes a device count in, such as `jax.make_mesh((4,), ('data',))`. The grader runs your code with 4 devices and again with 2. Ask JAX how many there are: `jax.make_mesh((jax.device_count(),), ('data',))`, and split by `jax.device_count()`.",
    "hint.CarryType": "the carry of a loop (`lax.scan`, `lax.fori_loop`, `lax.while_loop`) must keep its type: the body must return a carry with exactly the structure, shapes and dtypes of the initial carry. Start from a value of the data's type, e.g. `jnp.zeros((), x.dtype)` or `xs[0]`, not `jnp.int32(0)` for float data, and return the same dict keys or tuple layout that you started with.",
    "hint.StaticTraced": "an argument marked static received a traced value: the function is jitted with that argument static, but code that traces it (the grader's `jax.jit` with the argument traced, a `vmap`, a loop body) passes a value known only when the program runs. Remove it from `static_argnums`/`static_argnames` and choose with the traced value inside the program: `lax.cond(flag, ...)` or `jnp.where(flag, ...)`.",
    "hint.ReshapeFixedCount": "NumPy could not reshape an array to the shape asked for. If the array is `jax.devices()` (or data split into one part per device), its size is the number of devices, which differs between machines: the grader runs your code with 4 devices and again with 2. Compute the shape from `jax.device_count()` or `len(jax.devices())`, or let `jax.make_mesh((jax.device_count(),), ('data',))` lay the devices out.",
    "hint.UnknownAxisName": "a collective or a sharding names an axis that is not there: an axis name is known only inside the `jax.pmap`, `shard_map` or mesh that defines it, spelled exactly the same. Give `jax.pmap(..., axis_name='data')` (or the mesh) the name that `lax.psum(x, 'data')` or `PartitionSpec('data')` uses, and call the collective inside that function.",
    "hint.PythonScalar": "a Python number was used where a JAX array is needed (it has no `.at`, `.shape` or `.astype`): a loop's initial value, a constant or a result computed with Python arithmetic stays a Python `float` or `int`. Make it an array first: `jnp.asarray(value, dtype=jnp.float32)` or `jnp.zeros(())`.",
    "hint.PerExampleAgainstBatch": "a value with one entry per row (one per example of a batch, or a sum or mean over each row) was combined with the whole array: broadcasting lines up the trailing axes, so its axis (shape (n,)) meets the array's last axis, not its first (shape (n, ...)). Keep the reduced axis with `keepdims=True`, or add one: `v[:, None]`.",
    # --- How a wrong value relates to the expected one (check/value_relations.py) ---
    "relation.wrapped": "Your result is a tuple of {count} items whose item {index} is the expected value: the function returns the whole tuple (a pair from `jax.jvp`, the tuple a pullback returns) where the exercise returns that item alone.",
    "relation.wider_dtype": "Your result is {actual} where JAX computes {expected}: values in 64 bits come from NumPy (`np.` functions, NumPy's random numbers) or from Python numbers and loops, not from `jax.numpy`, which computes in 32 bits. Compute with `jnp` (and `jax.random`) inside the function.",
    "relation.not_finite": "Your result is NaN or inf at {count} of {size} entries where the expected value is finite, and right everywhere else: a function is evaluated where it is undefined (a log or square root of 0 or a negative number, a division by 0). Give those entries their own value with `jnp.where`, and keep the undefined input away from the function.",
    "relation.one_entry_more": "Your result has one entry too many along axis {axis}: without its entry at index {index} it is the expected value. Check where the sequence starts and ends (a starting value kept in the output, a range one too long).",
    "relation.one_entry_less": "Your result has one entry too few along axis {axis}: it is the expected value without its entry at index {index}. Check where the sequence starts and ends (a first or last value left out, a range one too short).",
    "relation.padded_ends": "Your result has one entry too many at each end of axis {axis}: without its first and last entries it is the expected value. The exercise keeps only the positions where the whole window fits (a 'valid' convolution), not a padded border ('same' or 'full').",
    "relation.axes_swapped": "Your result is the expected value with its axes in the order {axes}: the entries are right but the axes are swapped. Check which axis is which (a `.T`, `in_axes` or `out_axes`, the order of the axes in a product or a reshape).",
    "relation.reversed": "Your result is the expected value in reverse order along axis {axis}: the entries are right but run the other way (a loop or scan over the sequence in the other direction, a `[::-1]`).",
    "relation.shifted": "Your result is the expected value moved by one place along axis {axis}: each entry sits one position off (the value saved before the update instead of after it, or the other way round; an index starting at 1).",
    "relation.flipped_sign": "Your result is minus the expected value on every entry: a sign is flipped (a step added where it is subtracted, a difference taken the other way round).",
    "relation.partial_step": "Your result went only {fraction} of the way from the start to the expected value: a step scaled by {fraction} (a learning rate or a damping) where the exercise takes the full step.",
    "relation.step_multiplied": "Your result moved {factor} times the expected step from the start (a negative factor: the other way): a factor in the step is missing or extra, such as a sign, or a sum over the devices or the examples where a mean is meant.",
    "relation.scaled": "Your result is {factor} times the expected value on every entry (the expected value is {inverse} times yours): a factor is missing or extra, such as a sum where a mean is meant, a count of devices or of the batch, or a normalisation left out.",
    "relation.count_devices": "Your result is off by a factor of {count} (in its value, or in the step it takes from the start), and that is the number of devices this check ran on: the devices' partial results are combined with the wrong reduction (a `psum` where a `pmean` is meant, or the other way round; a division by the device count left out or made twice).",
    "relation.count_batch": "Your result is off by a factor of {count} (in its value, or in the step it takes from the start), and that is the number of examples in the batch (the length of the first axis of the inputs): the examples' values are added where the exercise averages them, or averaged where it adds them (`jnp.sum` and `jnp.mean` exchanged; a division by the batch size left out or made twice).",
    "relation.floored": "Your result is {floor} wherever the expected value is below it, and right elsewhere: a small constant keeps it from going lower (an `eps` added, `jnp.clip` or `jnp.maximum`) where the exact value is expected.",
    "relation.offset": "Your result is the expected value plus {offset} on every entry: a constant is added (an `eps`, a `+ 1`) where the exact value is expected.",
    "relation.constant_inside": "Your result is `{function}` of the input plus {offset} on every entry: a small constant is added inside the `{function}` (an `eps` to keep it defined at 0), so at 0 it gives `{function}` of that constant instead of the exercise's value, and below minus that constant it is still undefined. Give the inputs where `{function}` is undefined their own value with `jnp.where`, and keep them away from it, instead of shifting the input.",
    "relation.extra_function": "Your result is `{function}` of the expected value on every entry: your code applies `{function}` (or the same computation) where the exercise does not.",
    "relation.missing_function": "Applying `{function}` to your result gives the expected value on every entry: the exercise's value has a `{function}` that your code leaves out.",
    "relation.float32_rounding": "Computed in 64 bits, your function returns the expected values: its formula is right, and float32 rounding makes the difference. In 32 bits a difference of nearly equal numbers loses its digits (a finite difference, `exp(x) - 1`, `log(1 + x)`). Write it in a form that does not cancel: autodiff instead of a difference quotient, `jnp.expm1`, `jnp.log1p`, or the expression rearranged before it is evaluated.",
    # --- Check outcomes -----------------------------------------------------
    "check.wrong_type": "{call} returned a value of type {actual}, expected {expected}.",
    "check.wrong_shape": "{call} returned shape {actual}, expected {expected}.",
    "check.wrong_dtype": "{call} returned dtype {actual}, expected {expected}.",
    "check.wrong_values": "{call} returned wrong values: {count} of {size} entries differ (largest difference {max_diff:.3g}, tolerance rtol={rtol:g}, atol={atol:g}). First difference at index {index}: got {got}, expected {expected}.",
    "check.values_excerpt": "Entries {span} (* marks those that differ):\n  got:      {got}\n  expected: {expected}",
    "check.not_finite": "{call} returned {count} non-finite values (NaN or inf), expected all finite.",
    "check.not_checked": "Not checked: the values are wrong (see '{values_check}' above); fix them first.",
    "check.caused_by": "This failure follows from your `{other}`, which `{function}` uses: on the same inputs, `{other}` fails on its own ({problem}). Fix `{other}` first (see its checks); then check `{function}` again.",
    "check.wrong_structure": "{call} returned the structure {actual}, expected {expected}.",
    "check.not_jittable": "{call} cannot be traced by jax.jit with {static}: {error_type}: {error}",
    "check.program_refused": "{call} under jax.jit cannot be graded: {reason}. Write the function with jax.numpy and lax only, with no callbacks into Python.",
    # Why the clean-room runner will not run a function's exported program (the {reason} of check.program_refused).
    "program.refused.unreadable": "the grader could not read the compiled program ({detail})",
    "program.refused.too_large": "the compiled program is too large ({detail})",
    "program.refused.platform": "the compiled program is for another platform ({detail}), not the CPU",
    "program.refused.devices": "the compiled program needs more devices than the grader gives it ({detail})",
    "program.refused.callback": "it calls back into Python from compiled code ({detail})",
    "program.refused.custom_call": "it calls native code through a custom call (`{detail}`), which the grader never runs: a custom call trusts the shapes it is given",
    "program.refused.operation": "it holds an operation the grader never runs (`{detail}`): the grader runs only operations that compute values from values, never one that waits for or sends data to the host or another process (infeed, outfeed, send, recv)",
    "program.refused.dynamic_shape": "its sizes are not fixed in the compiled program ({detail}): the grader runs programs whose every array has a known shape, never shape-polymorphic ones (from `jax.export` with symbolic shapes)",
    # When the clean-room runner could not finish a function's exported program.
    "program.cpu_limit": "The traced program of `{function}` ran longer than {seconds:g} s of CPU time at the hidden inputs ({call}). Does a loop in it never end, such as a `lax.while_loop` whose condition stays true?",
    "program.stalled": "The traced program of `{function}` did not finish ({call}), though it had used less than {seconds:g} s of CPU time: it was not computing but waiting (for data from the host?). The check was stopped. Write the function with jax.numpy and lax only.",
    "program.wall_clock": "The traced program of `{function}` did not answer within {seconds:g} s ({call}), twice, though it had CPU time left: the grading machine was too busy. This is the grader's problem, not your code's: the submission is marked to be graded again.",
    "program.crashed": "The grader's program runner ended while running the traced program of `{function}` ({call}: {detail}). This check scores 0; the other checks are not affected.",
    "program.bad_output": "The grader's program runner sent an answer that could not be read for `{function}` ({call}: {detail}).",
    "program.unavailable": "The grader could not start its program runner for `{function}` ({detail}). This is a problem of the grading machine, not of your code: ask for a regrade.",
    "check.static_none": "no static arguments",
    "check.static_some": "static {names}",
    "check.static_position": "argument {index}",  # {index} as in static_argnums, counted from 0
    "check.primitives_separator": "` or `",  # between the primitive names of check.primitive_missing
    "check.trace_count": "{call_sequence}: traced {actual} time(s), expected {expected}.",
    "check.call_sequence": "`{function}` over its sequence of calls",
    "check.one_output_per_call": "not one output per call",
    # JAX's cache-miss explanations, rewritten (jaxcheck/retrace_explanations.py).
    "retrace.header": "Why JAX traced again:",
    "retrace.position": "argument {position}",
    "retrace.named": "argument `{name}`",
    "retrace.at_line": " (line {line} of its cell)",
    "retrace.new_function": "`{name}`{where} is a new function object at every call. JAX keeps compiled programs per function object, so a function created again (a new `jax.jit(...)`, or a function defined inside another) is traced again. Create it once, at the top level.",
    "retrace.static_value": "{argument} is static and changed ({changes}): every new value of a static argument is a new trace and compile. Make an argument static only if it takes few values.",
    "retrace.input_type": "{argument} changed its shape or dtype ({changes}): a traced argument is traced again when its shape or dtype changes, never when only its values do.",
    "retrace.keywords": "{names} was passed in some calls and not in others (or once by name and once by position): each way of passing the arguments has its own cache entry.",
    "retrace.context": "JAX's configuration changed between the calls (a config option or a context manager).",
    "check.primitive_missing": "{function} must use {construct}, but its jaxpr contains no `{primitives}`. {why}",
    "check.host_callback": "{function} calls back into Python from compiled code ({primitives}: jax.pure_callback, io_callback or jax.debug.callback/print). That escapes the trace instead of expressing the computation in JAX. Write it with jax.numpy and lax, and remove debug callbacks from graded functions.",
    "check.unrolled": "{function}'s compiled program grows with the input size (`{operation}`: {small} operations for n={n_small}, {large} for n={n_large}), by at least one operation per entry: code that runs once per entry while tracing, such as a Python loop, is unrolled into the program. {fix}",
    "check.program_grows": "{function}'s compiled program grows with the input size (`{operation}`: {small} operations for n={n_small}, {large} for n={n_large}), though by less than one operation per entry; its size should not depend on the input size. One common cause is code that runs a number of times that depends on the size while tracing (a Python loop over part of the input, a recursion, or a construct such as `lax.associative_scan` whose levels grow with the size). {fix}",
    "check.unrolled_per_entry": "{function}'s compiled program holds {count} `{operation}` operations for n={n} entries, at least one per entry: code that runs once per entry while tracing, such as a Python loop, is unrolled into the program (padding the program so that its size is the same at every n does not hide that). A program without such a loop holds only a few operations of each kind, however large n is. {fix}",
    "check.value_too_large": "{function}'s compiled program holds a value of {actual} elements, more than the {limit} allowed ({what}). {fix}",
    "check.collective_missing": "{function}'s compiled program communicates between devices with none of `{collectives}` (it holds {found}). {why}",
    "check.no_collectives": "no communication between devices at all",
    "check.placement_devices": "{call} returned output {index} held by {count} of the {devices} devices ({held}); expected it spread over all {devices}. {why}",
    "check.placement_rows": "{call} returned output {index} not split into one equal block of rows per device over the {devices} devices ({held}). {why}",
    "check.placement_replicated": "{call} returned output {index} not held whole by each of the {devices} devices ({held}). {why}",
    "check.placement_whole": "device {device} holds all of it",
    "check.placement_span": "device {device} holds rows {start}:{stop}",
    "check.placement_separator": "; ",  # between the check.placement_whole/_span parts
    "check.placement_host": "{call} returned output {index} as a NumPy array or Python number, on the host: none of the {devices} devices holds it (`np.asarray` and `jax.device_get` bring a result back from the devices). Return the `jax.Array` itself. {why}",
    "check.placement_axis": "{call} returned output {index} with its rows split over the mesh axis {axes}; the exercise names that axis \"{axis}\" (`Mesh(..., (\"{axis}\",))` or `jax.make_mesh(..., (\"{axis}\",))`, and `P(\"{axis}\")`). {why}",
    "check.placement_no_axis": "(no mesh axis)",
    "check.with_devices": "Graded with {devices} CPU devices: {feedback}",
    "check.not_jitted": "`{function}` is a plain {type_name}, not a jitted function. Decorate it with `@jax.jit` (or `@partial(jax.jit, ...)`) as the exercise asks.",
    "check.expected_error": "{call} should raise {expected}, but {actual}.",
    "check.returned_instead": "it returned normally",
    "check.raised_instead": "it raised {error_type}: {error}",
    "check.error_message": "{call} raised {error_type}, but its message {message!r} does not mention {needle!r}.",
    # The names of the graded properties (grading.toml's, the suites' @graded): "check_name.<English name>".
    # The English name stays the check's id in machine outputs; reports show it in the feedback's language.
    # Here the names several assignments share; an assignment's own are in its catalog's CHECK_NAMES.
    "check_name.correct": "correct",
    "check_name.jittable": "jittable",
    "check_name.program size independent of len(x)": "program size independent of len(x)",
    "check_name.works under vmap": "works under vmap",
    "check_name.jitted object": "jitted object",
    # Exercise-specific feedback, keys "<assignment>.<function>.<what>", is in each
    # assignment's own catalog beside its suite (suites/messages_<assignment>.py).
    # --- nbgrader autograde (autograder/integrations/nbgrader_preprocessors.py) -------------
    "nbgrader.kernel_died": "The kernel died while this cell was running (the process was killed or exited: a crash, os._exit(), or running out of memory). This cell and every cell after it score 0.",
    "nbgrader.kernel_stuck": "This cell did not finish within the time limit and kept running when it was interrupted (does it catch KeyboardInterrupt?). This cell and every cell after it score 0.",
    "nbgrader.sandbox_failed": "The sandboxed grader could not grade this notebook ({detail}), so this check scores 0 for now. This is not a problem with your notebook: course staff will grade it again.",
    "nbgrader.no_checks": "The sandboxed grader has no checks for `{function}`; this check cell scores 0. Course staff: check grading.toml and the notebook's check cells.",
    "nbgrader.not_run": "Not run: grading stopped at an earlier cell (see its error), so this cell scores 0.",
    "nbgrader.output_limit": "This cell printed or displayed more than grading keeps ({cell_mib} MiB per cell, {notebook_mib} MiB per notebook); the rest of its output was dropped and the cell was interrupted. Print less: a summary, or the first few values.",
    "nbgrader.not_graded_yet": "Not graded yet: every check of this notebook scores 0 until a run of the autograder finishes grading it. Course staff: nbgrader's log says why the last run stopped.",
    "nbgrader.files_left_out": "Not copied for grading: {files}. Only regular files you handed in are used (each at most {file_mib} MiB, {folder_mib} MiB in all); a link or a special file is never followed.",
    # --- Gradescope: the top of what the student reads, and the zeros of a run that could not grade ---
    "gradescope.score_all_passed": "Score: {score:g} / {max_score:g}. Every check passed.",
    "gradescope.score_look_at": "Score: {score:g} / {max_score:g}. Look at: {checks}. Each check's feedback is below.",
    "gradescope.score_not_graded": "Score: {score:g} / {max_score:g}.",
    "gradescope.more_checks": "and {count} more",
    "gradescope.not_finished": "Grading did not finish: the autograder stopped before the end (Gradescope's time limit, or a crash). This submission scores 0 until it is graded again; tell course staff.",
    "gradescope.no_notebook": "Your submission has no notebook: submit your notebook, {assignment}.ipynb.",
    "gradescope.could_not_grade": "The autograder could not grade this submission, so it scores 0. This is not your fault: tell course staff, who can see why in the autograder's output.",
    "notebook.missing_function": "If its cell still says `raise NotImplementedError()`, it is not implemented yet; otherwise run that cell, and the cells above it, without errors.",
    # --- The student package (autograder/student/) ---------------------------
    "student.report_header": "{name} ({assignment}), checked on the public inputs of this release",
    "student.unknown_function": "No check for a function named `{function}` in this package. Known functions: {known}.",
    "student.construct_missing": "{call}: the traced program contains no `{primitives}`, but this exercise asks for {construct}.",
    "student.value_limit": "the limit the grader sets for these inputs",
    "student.install_failed": "The checks of this notebook are not installed. Run `pip install {address}` (in a notebook cell: `%pip install {address}`), then restart the kernel and run this cell again.",
    "student.install_comment": "Installs the checks of this notebook (the `autograder` package) when they are missing, e.g. on Colab.",
    "student.check_cell_comment": "ModuleNotFoundError here? Run the install cell at the top of the notebook first.",
    "student.data_missing": "The checks of {assignment} could not be read ({detail}). Reinstall the package.",
    # Why no check runs with this Python's JAX (autograder/student/jax_support.py); {then} is one of the two after them.
    "student.jax_missing": "JAX is not installed in this Python, and the checks need it. Run `{install}`, then {then}.",
    "student.jax_broken": "JAX is installed but does not import ({error}). Run `{install}`, then {then}.",
    "student.jax_unsupported": "This Python has JAX {found}; the checks of this notebook support JAX {lowest} and newer, below {beyond}. Run `{install}`, then {then}.",
    "student.jax_mismatched": "This Python has jax {jax} with jaxlib {jaxlib}, which come from different JAX releases. Run `{install}`, then {then}.",
    "student.absl_missing": "JAX {found} needs the absl-py package to export programs, which the checks do. Run `{install}`, then {then}.",
    "student.jax_then_notebook": "restart the kernel and run this cell again",
    "student.jax_then_command": "run the same command again",
    "student.internal_error": "The checks themselves failed here, not your code ({error_type}: {error}). Report this message to course staff with these versions: {versions}.",
    "warm.lost": "The check's process ended without saying how (the process that ran it was stopped). Run the check again; if this happens again, set {variable}=off and tell course staff.",
    "student.kit_failed": "The checks themselves failed, not your code ({error}). Report this message to course staff with these versions: {versions}.",
    "student.kernel_devices": "Checked with this kernel's {devices} CPU device(s). Grading checks this assignment with {counts} devices, each in a fresh process, and so does `autograder check` on the saved notebook: a device count written into the code loses points there.",
    "student.device_counts_joined": "{first} and {last}",
    "student.part_ended_exercises": "The check of {exercises} ended without a result: {signal} ended its process. Your code may have used more memory than this machine has, or crashed Python. To see which exercise, check one at a time: `autograder check {path} --exercise NAME`.",
    "student.part_ended_devices": "The check with {devices} devices ended without a result: {signal} ended its process. Your code may have used more memory than this machine has, or crashed Python. To see which exercise, check one at a time: `autograder check {path} --exercise NAME`.",
    "student.api_missing_in_grading": "Your code uses `{api}`, which this JAX still has but grading's JAX {grader} does not: there these checks fail. Use `{replacement}` instead.",
    # --- Reports ------------------------------------------------------------
    "report.header": "{name} ({assignment}), hidden-input seed {seed}",
    "report.total": "Total: {score:g} / {max_score:g}",
    "report.passed": "passed",
    "report.failed": "failed",
    "report.not_checked": "not checked",
    "report.all_passed": "All checks passed.",
    "report.notes": "Notes:",
    "report.grader_crashed": "Grading did not finish for this submission ({detail}); it scores 0. Ask course staff to look at it.",
    "report.internal_error": "Internal grader error in this check ({error_type}: {error}). This is not your fault; report it to course staff.",
    # --- The class report (report.html and the lines after `autograder grade`), for course staff ---
    # Its check names come from the check_name.* entries (above, and the assignments' CHECK_NAMES).
    "report.class_title": "Class report",
    "report.class_overview": "{count} submission(s) of {assignments} assignment(s), graded with seed {seeds}.",
    "report.class_overview_no_seed": "{count} submission(s) of {assignments} assignment(s).",
    "report.class_nothing": "No results to report.",
    "report.class_contents": "Contents",
    "report.class_scores_heading": "Scores by assignment",
    "report.class_scores_note": "Every submission counts, including those that failed to load (they score 0).",
    "report.class_assignment_heading": "{assignment}",
    "report.class_no_assignment": "(no assignment)",
    "report.class_col_assignment": "Assignment",
    "report.class_col_submissions": "Submissions",
    "report.class_col_mean": "Mean",
    "report.class_col_median": "Median",
    "report.class_col_min": "Min",
    "report.class_col_max": "Max",
    "report.class_col_out_of": "Out of",
    "report.class_col_full_marks": "Full marks",
    "report.class_col_check": "Check",
    "report.class_col_points": "Points",
    "report.class_col_passed": "Passed",
    "report.class_col_pass_rate": "Pass rate",
    "report.class_col_count": "Submissions",
    "report.class_col_failure": "Failure (first line of feedback)",
    "report.class_col_hint": "Hint",
    "report.class_col_submission": "Submission",
    "report.class_student": "student {student}",
    "report.class_col_problem": "Problem",
    "report.class_col_detail": "Detail",
    "report.class_col_seconds": "Seconds",
    "report.class_col_memory": "Sandbox peak memory (MiB)",
    "report.class_col_path": "File",
    "report.class_passed_of": "{passed} of {total}",
    "report.class_checks_heading": "Pass rate of every check",
    "report.class_failures_heading": "Most common failures",
    "report.class_failures_note": "Failures of the same check whose feedback starts alike (numbers and array values aside) are counted together; submissions that failed to load are listed on their own below.",
    "report.class_no_failures": "No check failed.",
    "report.class_who": "Submissions: {names}",
    "report.class_not_loaded_heading": "Submissions that failed to load",
    "report.class_none_not_loaded": "Every submission loaded.",
    "report.class_look_heading": "Other submissions to look at",
    "report.class_slowest_heading": "Slowest submissions",
    "report.class_no_timings": "No grading times were recorded.",
    "report.class_histogram_alt": "Histogram of the scores of {assignment}: {count} submission(s), mean {mean:.3g}, median {median:.3g} of {max_score:g}.",
    "report.class_histogram_x": "score (of {max_score:g})",
    "report.class_histogram_y": "submissions",
    "report.class_histogram_mean": "mean {mean:.3g}",
    "report.class_histogram_median": "median {median:.3g}",
    "report.class_pass_rates_alt": "Pass rate of each of the {count} checks of {assignment}, from {lowest:.0f}% to {highest:.0f}%.",
    "report.class_pass_rates_x": "pass rate (%)",
    "report.class_problem_unreadable": "the file could not be read as a notebook",
    "report.class_problem_timeout": "its top-level code did not finish within the time limit",
    "report.class_problem_exited": "its top-level code ended the grading process",
    "report.class_problem_sandbox_failed": "the grader could not start a sandbox for it",
    "report.class_problem_child_failed": "the grader could not run it",
    "report.class_problem_grader_error": "grading did not finish",
    "report.class_problem_no_notebook": "no notebook handed in (its result names the files found)",
    "report.class_problem_other": "it was not graded normally ({problem})",
    "report.class_look_mismatch": "graded as another assignment than its file name or metadata says",
    "report.class_look_tampered": "its code changed the grading environment",
    "report.class_look_internal_error": "the grader failed in one of its checks",
    "report.class_look_identity": "who handed it in is not certain from where it sits",
    "report.class_look_ignored": "files not graded (one per assignment is): {files}",
    "report.class_terminal_title": "Class report: {count} submission(s), {assignments} assignment(s); {filename} in the out dir",
    "report.class_terminal_scores": "{assignment}: {count} submission(s), mean {mean:.3g}, median {median:.3g}, min {minimum:g}, max {maximum:g} of {max_score:g}",
    "report.class_terminal_failures": "Most common failures:",
    "report.class_terminal_failure": "{rank}. {assignment} / {check}: {count} submission(s): {cause}",
    "report.class_terminal_look": "Need a look ({count}):",
    "report.class_terminal_look_item": "{submission} ({assignment}): {reason}",
    "report.class_terminal_all_fine": "No submission needs a look.",
    "report.class_students_heading": "Every submission",
    "report.class_students_note": "By student. Feedback opens the submission's results.json: every check, its points and the feedback the student gets.",
    "report.class_col_student": "Student",
    "report.class_col_score": "Score",
    "report.class_col_look": "Needs a look",
    "report.class_col_feedback": "Feedback",
    "report.class_feedback_link": "results.json",
    "report.class_score_of": "{score} of {max_score}",
    "report.class_not_attempted_heading": "Not attempted",
    "report.class_not_attempted_note": "Functions a submission left as the released stub (it still raises NotImplementedError). Their checks are not counted among the most common failures.",
    "report.class_none_not_attempted": "Every submission attempted every function.",
    "report.class_col_function": "Function",
    "report.class_terminal_not_attempted": "Not attempted: {functions}",
    "report.class_terminal_not_attempted_item": "{function} ({count})",
}

LOCALE = Path(__file__).resolve().parent / "locale"
LANGUAGES = ("en", "ko")  # English, and each locale/<language>.po
LANGUAGE_VARIABLE = "AUTOGRADER_LANG"

_chosen: contextvars.ContextVar[str | None] = contextvars.ContextVar("autograder_language", default=None)
# The language a command chose for its whole run (`speaking`), from its --lang or, read once there, $AUTOGRADER_LANG:
# a value the command decides, seen by all its threads; the variable is not read again while it is set.
_run_language: str | None = None
_loaded: dict[str, dict[str, str]] = {"en": ENGLISH}
_warned: set[str] = set()


def language() -> str:
    """The language of feedback now: `using(...)` or `choose(...)`, else the one the entry point holds
    (`speaking`, `entering`, `hold`), else English. The environment is not read here: an entry point read it."""
    return _chosen.get() or _run_language or "en"


def from_environment() -> str | None:
    """$AUTOGRADER_LANG's language, or None: read by an entry point only (a command line, a check cell's call,
    nbgrader's process), which then holds it for what it runs."""
    return normalize(os.environ.get(LANGUAGE_VARIABLE))


def asked_for(argv: list[str]) -> str | None:
    """The language a command line asks for (`--lang ko`, `--lang=ko`), else $AUTOGRADER_LANG's, else None:
    read once, where a command starts, before its line is parsed (so that its --help is in it too)."""
    for index, argument in enumerate(argv):
        given = argv[index + 1] if argument == "--lang" and index + 1 < len(argv) else (
            argument.split("=", 1)[1] if argument.startswith("--lang=") else None)
        if given is not None:
            return normalize(given) or "en"
    return from_environment()


@contextlib.contextmanager
def speaking(name: str | None):
    """A command's whole run in `name` (None: each notebook's own language, else English), in every thread."""
    global _run_language
    previous, _run_language = _run_language, normalize(name)
    try:
        yield
    finally:
        _run_language = previous


@contextlib.contextmanager
def entering():
    """An entry point no command line started (a check cell's call in a notebook's kernel): $AUTOGRADER_LANG and
    $AUTOGRADER_HINTS are read once, here, and held for the block; what an outer entry point holds (a command's,
    nbgrader's process's) is kept as it is."""
    held_hints = _run_hints or hint_level_override()
    if _run_language is not None:
        with hinting(held_hints):
            yield
        return
    with speaking(from_environment()), hinting(held_hints):
        yield


def hold(name: str | None, hints: str | None = None) -> None:
    """Make `name` the language of this whole process from now on, and `hints` its hint level if given
    (nbgrader's process, which the kit enters through nbgrader_config.py and never leaves): as `speaking` and
    `hinting`, without a block."""
    global _run_language, _run_hints
    _run_language = normalize(name)
    _run_hints = check_hint_level(hints, where="$" + HINT_LEVEL_VARIABLE) if hints else _run_hints


def run_language() -> str | None:
    """The language the running command chose (`speaking`); None: each notebook's own."""
    return _run_language


def normalize(name: str | None) -> str | None:
    """"ko", "ko_KR.UTF-8", "KO" -> "ko"; a language without a catalog -> None (English, said once)."""
    if not name or not name.strip():
        return None
    short = name.strip().split(".")[0].split("_")[0].split("-")[0].lower()
    if short in LANGUAGES:
        return short
    if short not in _warned:
        _warned.add(short)
        print(f"autograder: no feedback in language {name!r}; using English (available: {', '.join(LANGUAGES)}).",
              file=sys.stderr)
    return None


def translate_help(parser: argparse.ArgumentParser) -> None:
    """`parser`'s and its commands' --help frame in the current language: the usage prefix, the two option
    groups' titles and -h's own help (argparse writes them in English, whatever the language)."""

    class Formatter(parser.formatter_class):  # type: ignore[name-defined,misc]
        def add_usage(self, usage, actions, groups, prefix=None):
            super().add_usage(usage, actions, groups, text("cli.help_usage") if prefix is None else prefix)

    parser.formatter_class = Formatter
    parser._positionals.title = text("cli.help_positionals")
    parser._optionals.title = text("cli.help_options")
    for action in parser._actions:
        if "-h" in action.option_strings:
            action.help = text("cli.help_help")
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                translate_help(command)


def choose(name: str | None) -> None:
    """Make `name` the language of this process's feedback (the command line's --lang)."""
    _chosen.set(normalize(name))


@contextlib.contextmanager
def using(name: str | None):
    """Feedback in `name` inside the block (a notebook's own language); None keeps the current one."""
    chosen = normalize(name)
    if chosen is None or _chosen.get() is not None or _run_language:
        yield  # an explicit --lang or $AUTOGRADER_LANG (held by the entry point) wins over the notebook's metadata
        return
    token = _chosen.set(chosen)
    try:
        yield
    finally:
        _chosen.reset(token)


def catalog(name: str) -> dict[str, str]:
    """key -> template in language `name`: its PO files' translations of the current English sentences (the
    kit's common ones, each assignment's own beside its catalog, then a course's, include_catalogs)."""
    if name not in _loaded:
        _loaded[name] = {key: template for path in translation_files(name)
                         for key, template in _read_po(path).items()}
    return _loaded[name]


def translation_files(name: str) -> list[Path]:
    """The PO files that translate into `name`: locale/<name>.po (the kit's common sentences), each assignment
    catalog's messages_<assignment>.<name>.po, and a course's locale/<name>.po (present or not)."""
    return [LOCALE / f"{name}.po", *(assignment_catalogs.translations(module, name) for module in _catalogs),
            *(folder / f"{name}.po" for folder in _course_locales)]


_course_locales: list[Path] = []
_catalogs: list = []  # the assignment catalogs added: the kit's, found at import, then a course's


def include_catalogs(catalogs: list, locale: Path) -> None:
    """Add the catalogs of a course's own assignments (course_suites) as the kit's were added at import, with
    their translations in `locale`/<language>.po. A key the kit or another catalog defines is a ValueError."""
    for module in catalogs:
        _catalogs.append(module)
        assignment_catalogs.merge(ENGLISH, module.ENGLISH, module.__name__)
        assignment_catalogs.merge(ENGLISH, assignment_catalogs.check_names(module), module.__name__)
        assignment_catalogs.merge(hint_ideas.IDEAS, module.IDEAS, module.__name__)
        assignment_catalogs.merge(hint_ideas.APIS, module.APIS, module.__name__)
        ENGLISH.update({f"{key}.idea": idea for key, idea in module.IDEAS.items()})
    if locale not in _course_locales:
        _course_locales.append(locale)
    for name in [name for name in _loaded if name != "en"]:  # read again, with the new sentences' translations
        del _loaded[name]


def _read_po(path: Path) -> dict[str, str]:
    """Entries keyed by msgctxt; a translation of an older English sentence (msgid changed) or a fuzzy one is not used."""
    import polib

    try:
        entries = polib.pofile(str(path))
    except (OSError, ValueError):
        return {}
    return {entry.msgctxt: entry.msgstr for entry in entries
            if entry.msgid == _english_of(entry.msgctxt) and entry.msgstr and "fuzzy" not in entry.flags}


def _english_of(key: str) -> str | None:
    """The current English of `key`; a check name's is the name itself, whether or not its catalog is here."""
    if key.startswith(CHECK_NAME_PREFIX):
        return key[len(CHECK_NAME_PREFIX):]
    return ENGLISH.get(key)


def text(key: str, **fields: object) -> str:
    """The student-facing sentence `key` in the current language, with `fields` filled in: a str that keeps its
    reference (a message_ref.Sentence: key and fields), so that it can be said in another language (`said_in`).

    A hint is shown at the current `hint_level()`.
    """
    if key in hint_ideas.IDEAS:
        level = hint_level()
        said = _hint(key, fields, level)
        return Sentence(said, reference(key, fields, _template(key if level == "recipe" else f"{key}.idea"), level))
    template = _template(key)
    return Sentence(template.format(**fields), reference(key, fields, template))


def said_in(message: Message, name: str) -> str:
    """`message` said in language `name` (its nested messages too), at the hint level it was said at."""
    fields = {field: said_in(value, name) if isinstance(value, Message) else value for field, value in message.fields}
    if message.key in (JOINED, TRIMMED):
        return said_joined(fields) if message.key == JOINED else said_trimmed(fields)
    if message.key.startswith(CHECK_NAME_PREFIX):
        return catalog(name).get(message.key) or message.key[len(CHECK_NAME_PREFIX):]
    if message.key in hint_ideas.IDEAS:
        return _hint(message.key, fields, message.level or hint_level(), name)
    return fill(_template(message.key, name), fields)


def sentence(message: Message) -> Sentence:
    """`message` (read from data: results.json, another process) said in the current language; a ValueError if
    the catalog does not know one of its keys or cannot say it with its fields."""
    unknown = [key for key in message.keys() if not (key in ENGLISH or key in hint_ideas.IDEAS or key in (JOINED, TRIMMED)
                                                     or key.startswith(CHECK_NAME_PREFIX))]
    if unknown:
        raise ValueError(f"not a catalog key: {unknown[0]!r}")
    try:
        return Sentence(said_in(message, language()), message)
    except (KeyError, IndexError, ValueError, TypeError) as error:
        raise ValueError(f"{message.key!r} cannot be said with its fields ({type(error).__name__})") from None


def _template(key: str, name: str | None = None) -> str:
    return catalog(name or language()).get(key) or ENGLISH[key]


def _hint(key: str, fields: Mapping[str, object], level: str, name: str | None = None) -> str:
    said = fill(_template(key if level == "recipe" else f"{key}.idea", name), fields)
    apis = hint_ideas.APIS.get(key, ())
    if level == "idea" or not apis:
        return said
    return f"{said} {_template('hint.read_about', name).format(apis=', '.join(f'`{api}`' for api in apis))}"


HINT_LEVELS = ("idea", "api", "recipe")  # how much a hint gives away, least first
DEFAULT_HINT_LEVEL = "api"  # never a line of a reference solution
HINT_LEVEL_VARIABLE = "AUTOGRADER_HINTS"
_hint_level: contextvars.ContextVar[str | None] = contextvars.ContextVar("autograder_hint_level", default=None)
# The level a command chose for its whole run (`hinting`: its --hints), seen by all its threads.
_run_hints: str | None = None


def hint_level() -> str:
    """How much a hint shows now: the level the entry point holds (a command's --hints, else $AUTOGRADER_HINTS
    read there: `hinting`, `entering`, `hold`), else `hints_at(...)`, else "api". The environment is not read
    here: an entry point read it."""
    return _run_hints or _hint_level.get() or DEFAULT_HINT_LEVEL


@contextlib.contextmanager
def hinting(level: str | None):
    """A command's whole run with hints at `level` (its --hints), over grading.toml's; None keeps the current."""
    global _run_hints
    previous = _run_hints
    _run_hints = check_hint_level(level, where="--hints") if level is not None else previous
    try:
        yield
    finally:
        _run_hints = previous


def hint_level_override() -> str | None:
    """$AUTOGRADER_HINTS if it names a level, else None: read by an entry point only, which holds it."""
    value = os.environ.get(HINT_LEVEL_VARIABLE, "").strip().lower()
    if value in HINT_LEVELS:
        return value
    if value and value not in _warned:
        _warned.add(value)
        print(f"autograder: ${HINT_LEVEL_VARIABLE}={value!r} is not a hint level ({', '.join(HINT_LEVELS)}); "
              f"using the configured one.", file=sys.stderr)
    return None


def check_hint_level(level: str, *, where: str) -> str:
    """`level` if it is one of HINT_LEVELS, else a ValueError that names `where` it was set."""
    if level not in HINT_LEVELS:
        raise ValueError(f"{where}: the hint level must be one of {', '.join(HINT_LEVELS)}, got {level!r}.")
    return level


@contextlib.contextmanager
def hints_at(level: str | None):
    """Hints at `level` inside the block; None keeps the current level.

    $AUTOGRADER_HINTS wins over the level given here, as $AUTOGRADER_LANG does
    over a notebook's language: it is the instructor's override for one run.
    """
    if level is None:
        yield
        return
    token = _hint_level.set(check_hint_level(level, where="hint level"))
    try:
        yield
    finally:
        _hint_level.reset(token)


def has(key: str) -> bool:
    """Whether the catalog has a sentence for `key`."""
    return key in ENGLISH


CHECK_NAME_PREFIX = assignment_catalogs.CHECK_NAME_PREFIX


def check_name(prop: str) -> str:
    """The graded property `prop` (its English name, the check's id) as reports show it in the current language.

    A property's English name is the name itself, so its translation is all a language needs: the student
    package, which ships no assignment catalog (their CHECK_NAMES), still shows each name in Korean. A
    property without a translation is shown by its English name; tests/test_translations.py requires one for
    every property in grading.toml.
    """
    return Sentence(catalog(language()).get(CHECK_NAME_PREFIX + prop) or prop, Message(CHECK_NAME_PREFIX + prop))


# Each assignment's own sentences (hint_ideas merged their ideas and APIs the same way), and the names of its own
# graded properties (CHECK_NAMES: those no other assignment has), translated as every "check_name." key.
for _catalog in assignment_catalogs.found():
    _catalogs.append(_catalog)
    assignment_catalogs.merge(ENGLISH, _catalog.ENGLISH, _catalog.__name__)
    assignment_catalogs.merge(ENGLISH, assignment_catalogs.check_names(_catalog), _catalog.__name__)

# The first level of every hint: its idea (hint_ideas.py), translated like any sentence.
ENGLISH.update({f"{key}.idea": idea for key, idea in hint_ideas.IDEAS.items()})
