"""Every student-facing string of the kit, in one catalog so it can be translated.

Code never builds feedback sentences itself: it calls `text(key, **fields)`.
Translations live in gettext PO files, `locale/<language>.po` (msgctxt: the
key, msgid: the English sentence, msgstr: the translation; see
locale/README.md), which translators edit with their usual tools. The
language is `--lang` (`choose`), else $AUTOGRADER_LANG, else the notebook's
own metadata (`using`), else English; a sentence not yet translated is
English.

A hint (a key of `hint_ideas.IDEAS`) is shown at a level, `hint_level()`:
the JAX idea, the idea and the API to read about, or the worked recipe.
grading.toml's `[feedback]` sets the level for `check` and for grading.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
from pathlib import Path

from autograder import hint_ideas

ENGLISH: dict[str, str] = {
    # --- Loading a submission -------------------------------------------------
    "load.file_missing": "Submission {path} does not exist. Check the path, or hand in the notebook file itself.",
    "load.not_json": "{path} is not a valid notebook: its JSON cannot be read ({error}). Re-download the notebook or restore it from a checkpoint; do not edit .ipynb files in a text editor.",
    "load.invalid_notebook": "{path} is not a valid nbformat 4 notebook ({error}). Re-download the notebook or restore it from a checkpoint.",
    "load.bad_suffix": "{path} is neither a notebook (.ipynb) nor a Python file (.py). Hand in the .ipynb file.",
    "load.not_utf8": "{path} is not UTF-8 text. Save it as UTF-8.",
    "load.unknown_assignment": "Cannot tell which assignment {path} is. Keep the notebook's file name (e.g. 01_immutable_updates.ipynb), or pass --assignment NAME. Known assignments: {known}.",
    "load.magic_skipped": "Cell {cell}: skipped IPython-only line `{line}` (magics and shell commands do not run in grading).",
    "load.cell_unreadable": "Cell {cell} could not be read ({reason}); nothing in it was run, so the functions it defines are missing. Retype that cell's code in a new cell.",
    "load.cell_magic_skipped": "Cell {cell}: the cell magic `%%{magic}` does not run in grading; the whole cell was skipped. Keep graded code out of cells that start with a cell magic.",
    "load.cell_magic_body_run": "Cell {cell}: ran the cell's code without its first line, `%%{magic}`, which does not run in grading.",
    "load.check_cell_skipped": "Cell {cell}: check cell skipped (the grader runs its own checks).",
    "load.syntax_error": "Cell {cell} has a syntax error at line {line}: {error}. Nothing in that cell was defined; fix the syntax and run the cell again.",
    "load.cell_raised": "Cell {cell} raised {error_type}: {error}. The rest of that cell did not run; the grader went on with the next cells.",
    "load.demos_skipped": "Cells {cells} were not run: they are the notebook's examples, unchanged, and nothing graded uses them.",
    "load.cell_not_implemented": "Cell {cell} is not implemented yet (it still raises NotImplementedError).",
    "load.timeout": "The notebook's top-level code did not finish within {seconds:g} s (an infinite loop or a long computation outside a function?). No function could be graded. Move long work into functions and remove endless loops.",
    "load.exited": "The notebook's top-level code ended the process ({detail}). Remove calls such as sys.exit() or os._exit() from your notebook.",
    "load.tampered": "The notebook's top-level code changed the grading environment ({change}); the change was undone before grading.",
    "load.last_output": "Last output before it ended:\n{output}",
    "load.child_failed": "The grader could not run the notebook ({detail}).",
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
    "batch.resume_reason.no_result": "no finished result yet",
    "batch.resume_reason.other_student": "its result belongs to {recorded}",
    "batch.resume_reason.content_changed": "the file changed since it was graded",
    "batch.resume_reason.settings_changed": "the grading settings changed ({what})",
    # --- Calling student functions -------------------------------------------
    "call.missing_function": "`{function}` is not defined. Define a function named exactly `{function}` (names are case-sensitive), and make sure its cell runs without errors.",
    "call.did_you_mean": "Did you mean `{similar}`? Rename it to `{function}`.",
    "call.missing_not_implemented": "`{function}` is not defined because its cell still raises NotImplementedError: it is not implemented yet.",
    "call.not_callable": "`{function}` is of type {type_name}, not a function. Define it with `def {function}(...)`.",
    "call.not_implemented": "`{function}` is not implemented yet: replace `raise NotImplementedError()` with your code.",
    "call.raised": "{call} raised {error_type}: {error}",
    "call.timeout": "{call} did not finish within {seconds:g} s (an infinite loop?). The check was stopped.",
    "call.exited": "{call} ended the grading process ({detail}). Do not call sys.exit(), os._exit() or raise SystemExit/KeyboardInterrupt in graded code.",
    "call.budget_exhausted": "The submission used up its total time limit of {seconds:g} s; the remaining checks were not run.",
    "call.bad_output": "{call} returned {detail}. Return JAX arrays (or the structure the exercise states).",
    "call.hint": "Hint: {hint}",
    "call.said_above": "(See above: what this function's first failed check says applies here too.)",
    "call.location": "(in `{function}`, line {line} of its cell)",
    "call.location_top_level": "(line {line} of the cell)",
    "hint.read_about": "Read about: {apis}.",
    "call.tampered": "{call} changed the grading environment while it ran ({changes}). The result of this check cannot be trusted and scores 0. Graded code must not change jax.config, replace JAX or NumPy functions, or patch the grader.",
    # --- Hints for JAX errors: the JAX idea that fixes each ---------------------
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
    "hint.NotImplementedError": "this function is not implemented yet.",
    "hint.RemovedTreeMap": "`jax.tree_map` was removed from JAX (older tutorials still use it). Use `jax.tree.map` (or `jax.tree_util.tree_map`).",
    "hint.RemovedIndexUpdate": "`jax.ops.index_update` and its relatives were removed from JAX (older tutorials still use them). JAX arrays are updated functionally with `x.at[...]`: read about `.at[...].set`, `.add`, `.multiply`.",
    "hint.RemovedHostCallback": "`jax.experimental.host_callback` was removed from JAX. Graded functions should not call back into Python at all; for printing while debugging, read about `jax.debug.print`.",
    "hint.RawAndTypedKeys": "a raw `uint32` key (from `jax.random.PRNGKey`, the older API) was mixed with typed keys. This exercise passes typed keys made by `jax.random.key(seed)`: split the key you are given with `jax.random.split` instead of making new ones.",
    # --- Check outcomes -----------------------------------------------------
    "check.wrong_type": "{call} returned a value of type {actual}, expected {expected}.",
    "check.wrong_shape": "{call} returned shape {actual}, expected {expected}.",
    "check.wrong_dtype": "{call} returned dtype {actual}, expected {expected}.",
    "check.wrong_values": "{call} returned wrong values: {count} of {size} entries differ (largest difference {max_diff:.3g}, tolerance rtol={rtol:g}, atol={atol:g}). First difference at index {index}: got {got}, expected {expected}.",
    "check.values_excerpt": "Entries {span} (* marks those that differ):\n  got:      {got}\n  expected: {expected}",
    "check.not_finite": "{call} returned {count} non-finite values (NaN or inf), expected all finite.",
    "check.wrong_structure": "{call} returned the structure {actual}, expected {expected}.",
    "check.not_jittable": "{call} cannot be traced by jax.jit with {static}: {error_type}: {error}",
    "check.program_refused": "{call} under jax.jit cannot be graded: {reason}. Write the function with jax.numpy and lax only, with no callbacks into Python.",
    "check.static_none": "no static arguments",
    "check.static_some": "static {names}",
    "check.trace_count": "{call_sequence}: traced {actual} time(s), expected {expected}.",
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
    "check.unrolled": "{function}'s jaxpr grows with the input size ({small} equations for n={n_small}, {large} for n={n_large}): a Python loop is being unrolled at trace time. {fix}",
    "check.not_jitted": "`{function}` is a plain {type_name}, not a jitted function. Decorate it with `@jax.jit` (or `@partial(jax.jit, ...)`) as the exercise asks.",
    "check.expected_error": "{call} should raise {expected}, but {actual}.",
    "check.returned_instead": "it returned normally",
    "check.raised_instead": "it raised {error_type}: {error}",
    "check.error_message": "{call} raised {error_type}, but its message {message!r} does not mention {needle!r}.",
    # --- Exercise-specific feedback: keys "<assignment>.<function>.<what>" ----
    "01_immutable_updates.set_diagonal.unrolled_fix": "Update the whole diagonal at once: m.at[idx, idx].set(values) with idx = jnp.arange(n).",
    "01_immutable_updates.histogram.duplicates": "`.at[indices].set(1)` writes 1 once per bin, so repeated indices are lost. Use `.at[indices].add(1)`, which adds once per occurrence.",
    "01_immutable_updates.histogram.dtype": "the counts must be int32: start from `jnp.zeros(num_bins, dtype=jnp.int32)`.",
    "01_immutable_updates.swap_rows.sequential": "if you write row i first and then read it to fill row j, you read the already-updated row. Read both rows first, or update both in one step: `m.at[jnp.array([i, j])].set(m[jnp.array([j, i])])`.",
    "01_immutable_updates.set_element.dtype": "`x.at[index].set(value)` keeps the dtype of `x`; building the result with arithmetic or `jnp.where` promotes it to the value's dtype.",
    "02_where.masked_mean.empty": "with no True entry, `sum / count` is 0 / 0 = NaN. Divide by `jnp.maximum(count, 1)` (the sum is 0 then), or choose with `jnp.where(count > 0, ..., 0.0)`; sum with `jnp.where(mask, x, 0)` so no boolean indexing is needed.",
    "02_where.safe_log.double_where": "`jnp.where(x > 0, jnp.log(x), 0.)` is right in value, but its gradient is NaN where x <= 0: the unused branch log(x) still gets a gradient of 0 * inf. Use the double-where idiom: `safe_x = jnp.where(x > 0, x, 1.0)` first, then `jnp.where(x > 0, jnp.log(safe_x), 0.0)`.",
    # 03_control_flow (add below)
    "03_control_flow.square.keep_traced": "`negate` may be traced, so choose between the two results with `lax.cond(negate, true_fun, false_fun, x)` instead of a Python `if` or a static argument: both branches are compiled into one program, which serves both values.",
    "03_control_flow.square.use_cond": "Choose between the two computations with `lax.cond(negate, true_fun, false_fun, x)`; this exercise is about `lax.cond` (`jnp.where` computes both results and selects elementwise).",
    "03_control_flow.sum_init.keep_traced": "`num` may be traced, so loop with `lax.fori_loop(0, num, body_fun, init_val)` (its bounds may be traced) instead of `range(num)` or a static argument: one compiled program then serves every num.",
    "03_control_flow.sum_init.unrolled_fix": "Loop with `lax.fori_loop` instead of a Python loop over the entries of x: it stays a single loop in the compiled program however long x is.",
    "03_control_flow.sum_init.use_fori_loop": "Write the sum as `lax.fori_loop(0, num, body_fun, init_val)` with `body_fun(i, total)` adding `x[i]`; this exercise is about `lax.fori_loop`.",
    "03_control_flow.power_iteration.keep_traced": "`num_iters` may be traced, so loop with `lax.fori_loop(0, num_iters, body_fun, v)` instead of `range(num_iters)` or a static argument: one compiled program then serves every num_iters.",
    "03_control_flow.collatz_steps.use_while_loop": "The number of steps depends on the value of n, so loop with `lax.while_loop(cond_fun, body_fun, (n, steps))`; this exercise is about `lax.while_loop`.",
    # 04_static_args (add below)
    "04_static_args.power.decorate": "Put `@partial(jax.jit, static_argnums=1)` (from `functools import partial`) above `def power`, so that `power` itself is the jitted function and `n` is static.",
    "04_static_args.power.call_sequence": "`power(x, n)` called with n = {ns}, each time with a new x of shape {shape}",
    "04_static_args.power.trace_fix": "Mark `n` static (`@partial(jax.jit, static_argnums=1)`) and keep `x` traced: JAX then traces once for each distinct n, and reuses that program for every new x of the same shape and dtype.",
    "04_static_args.normalize.decorate": "Put `@partial(jax.jit, static_argnames=\"axis\")` above `def normalize`, so that `normalize` itself is the jitted function and `axis` is static by name.",
    "04_static_args.normalize.static_fix": "`axis` must be static by name: `@partial(jax.jit, static_argnames=\"axis\")`. The axis decides the shape of `x.sum(axis=axis, keepdims=True)`, so JAX needs its Python value while tracing, whether it is passed by keyword or by position.",
    "04_static_args.normalize.keepdims": "divide by `x.sum(axis=axis, keepdims=True)`: `keepdims=True` keeps the summed axis with size 1, so every entry is divided by the sum of its own slice along `axis`.",
    "04_static_args.normalize.call_sequence": "`normalize(x, axis=...)` called with axis = {axes}, each time with a new x of shape {shape}",
    "04_static_args.normalize.trace_fix": "Make only `axis` static (`static_argnames=\"axis\"`) and keep `x` traced: JAX then traces once for each distinct axis, and reuses that program for every new x of the same shape and dtype.",
    "04_static_args.activation.decorate": "Put `@partial(jax.jit, static_argnames=\"name\")` above `def activation`, so that `activation` itself is the jitted function and `name` is static.",
    "04_static_args.activation.static_fix": "`name` must be static: `@partial(jax.jit, static_argnames=\"name\")`. A string is not an array, so JAX cannot trace it; a static `name` is a plain Python str while tracing, so `if name == \"relu\":` works.",
    "04_static_args.activation.unknown_fix": "Check the name while tracing and raise for anything other than \"relu\", \"tanh\" or \"sigmoid\" (compared exactly, so \"ReLU\" is unknown): `raise ValueError(f\"unknown activation name: {{name!r}}\")`.",
    "04_static_args.run_steps.call_sequence": "after a warm-up call, `run_steps(x, {first})` then `run_steps(x, {second})` with new x of shape {shape}",
    "04_static_args.run_steps.trace_fix": "Every trace here is a new compile. Create the jitted `step` once, at module level (`@jax.jit` above `def step`), and let the plain Python loop of `run_steps` call that same `step`. A `jax.jit(lambda ...)` or `jax.jit(partial(...))` inside the loop is a new function object in every iteration, which JAX has never seen, so it traces every time; jitting `run_steps` with a static `num_steps` traces again for every new `num_steps`.",
    # 05_grad_aux (add below)
    "05_grad_aux.loss_with_aux.structure": "`loss_with_aux` returns a pair `(mse, aux)`: `mse` is a float32 scalar and `aux` is a dict with exactly the keys \"predictions\" and \"residuals\", as `jax.grad(..., has_aux=True)` expects (loss first, then the auxiliary pytree).",
    "05_grad_aux.loss_with_aux.values": "compute `predictions = params[\"w\"] * x + params[\"b\"]`, then `residuals = predictions - y` (predictions minus targets, in this order) and `mse = jnp.mean(residuals ** 2)` (the mean, not the sum).",
    "05_grad_aux.grad_with_aux.swapped": "grad_with_aux returned `(aux, grads)`, but `jax.grad(loss_with_aux, has_aux=True)(params, x, y)` returns `(grads, aux)`: the gradient first, then aux. Return it in that order (do not unpack it as `aux, grads = ...`).",
    "05_grad_aux.grad_with_aux.value_and_grad": "grad_with_aux returned `((loss, aux), grads)`, which is what `jax.value_and_grad(..., has_aux=True)` returns. grad_with_aux returns `(grads, aux)`: unpack `(loss, aux), grads = ...` and return `grads, aux`, or use `jax.grad(loss_with_aux, has_aux=True)`, which returns `(grads, aux)` directly.",
    "05_grad_aux.grad_with_aux.wrong_argument": "the gradient is an array shaped like x and y, not a dict like params: it was taken with respect to the wrong argument. `jax.grad` differentiates with respect to the first argument (`argnums=0`, here params) by default; do not pass `argnums=1` (x) or `argnums=2` (y), and keep params first in the function you differentiate.",
    "05_grad_aux.grad_with_aux.structure": "grad_with_aux returns `(grads, aux)`, as `jax.grad(loss_with_aux, has_aux=True)(params, x, y)` does: grads is a dict with the same keys as params (\"w\", \"b\"), because the gradient of a pytree has the pytree's structure; aux is the dict of loss_with_aux.",
    "05_grad_aux.grad_with_aux.values": "grads is the derivative of the mean squared error with respect to params: dL/dw = mean(2 * residuals * x), dL/db = mean(2 * residuals). Let JAX compute it with `jax.grad(loss_with_aux, has_aux=True)(params, x, y)` (and check that loss_with_aux is right).",
    "05_grad_aux.grad_with_aux.fd_call": "{call}[0][{name!r}] (checked against the central difference of loss_with_aux, step {step:g} in {name!r})",
    "05_grad_aux.grad_with_aux.finite_differences": "grads must be the gradient of your own loss_with_aux. Compute it with `jax.grad(loss_with_aux, has_aux=True)` instead of a formula written by hand or a second copy of the loss, so that the gradient always matches the loss.",
    "05_grad_aux.grad_with_aux.aux": "aux is the dict that loss_with_aux returns, passed through unchanged by `has_aux=True`: `{{\"predictions\": ..., \"residuals\": predictions - y}}` at the params given. Return the aux of `jax.grad(loss_with_aux, has_aux=True)(params, x, y)` as it is.",
    "05_grad_aux.train_step.structure": "train_step returns `(new_params, loss)`: new_params a dict with the same keys as params (\"w\", \"b\"), and loss a float32 scalar.",
    "05_grad_aux.train_step.params": "one gradient-descent step subtracts the learning rate times the gradient from every parameter: `new_params = jax.tree_util.tree_map(lambda p, g: p - learning_rate * g, params, grads)`, with grads from `jax.value_and_grad(loss_with_aux, has_aux=True)(params, x, y)`.",
    "05_grad_aux.train_step.old_loss": "return the loss at the params passed in, before the update: the loss that `(loss, aux), grads = jax.value_and_grad(loss_with_aux, has_aux=True)(params, x, y)` gives together with the gradient, not a loss recomputed at new_params.",
    "05_grad_aux.train_step.run": "train_step over a training run of {steps} steps (new params each step, a decaying learning rate, the same x and y)",
    "05_grad_aux.train_step.retrace": "A training run calls train_step again and again with inputs of the same shapes and dtypes, so it must be traced only once. Keep params, x, y and learning_rate traced: do not mark learning_rate (or any argument) static with `static_argnums`/`static_argnames`, since every new static value is a new cache key and a new trace and compile.",
    "05_grad_aux.fit.values": "fit feeds each step's result into the next step: `params, loss = train_step(params, x, y, learning_rate)`, num_steps times, keeps each loss (the loss before that update), and returns `(params, jnp.array(losses))`: the final params dict and a float32 array of shape (num_steps,).",
    "05_grad_aux.fit.not_converged": "{call} on the seed's data (y = 1.3 x + 4.5 + noise) did not reach the least-squares line: got w = {w:.4f}, b = {b:.4f}, expected w = {w_ls:.4f}, b = {b_ls:.4f} within {tol:g}.",
    "05_grad_aux.fit.calls": "fit called {calls} more times after a first call, with new params values and the same x, y, learning_rate and num_steps={num_steps} (so nothing needs a new trace)",
    "05_grad_aux.fit.retrace": "fit creates a new jitted function per call or per step (a `jax.jit(lambda ...)`, a `jax.jit(partial(...))`, or a `@jax.jit` function defined inside fit): each is a function object JAX has never seen, so it is traced and compiled again. Jit train_step once, at the top level with `@jax.jit`, and call that same train_step in fit's loop.",
    # 06_prng (add below)
    "06_prng.generate_linear_samples.recipe": "Follow the recipe exactly; the split order matters: `key_x, key_noise = jax.random.split(key)` (first child for x, second for the noise), `x = jax.random.uniform(key_x, (n_samples,))`, `y = slope * x + intercept + noise_scale * jax.random.normal(key_noise, x.shape)`, return `(x, y)` as float32 arrays.",
    "06_prng.generate_linear_samples.key_reuse": "x and the noise need two different keys: split once with `key_x, key_noise = jax.random.split(key)` and use each child exactly once, never `key` itself again. With one key for both draws the noise is not independent of x: it is a function of x.",
    "06_prng.generate_linear_samples.not_reproducible": "{call} returned different values in two calls with the same key, so its randomness does not come from the key. Draw x and the noise with `jax.random.uniform` and `jax.random.normal` from the children of `key`, not with `np.random` (NumPy's hidden global state changes on every call).",
    "06_prng.init_mlp_params.recipe": "Follow the recipe exactly: `keys = jax.random.split(key, len(layer_widths) - 1)`, and layer i uses `keys[i]`: `{{\"weights\": jax.random.normal(keys[i], (n_in, n_out)) * jnp.sqrt(2 / n_in), \"biases\": jnp.ones(n_out)}}`; return the list of layer dicts in layer order.",
    "06_prng.init_mlp_params.key_reuse": "Each layer needs its own key: split once with `keys = jax.random.split(key, len(layer_widths) - 1)` and give `keys[i]` to layer i. `jax.random.normal` is a pure function of its key and shape, so layers that share a key and a shape get identical weights.",
    "06_prng.init_mlp_params.identical_layers": "{call}: layers {first} and {second} both have shape {shape} and identical weights, so they were drawn from the same key (`jax.random.normal` is a pure function of its key and shape). Give each layer its own key: `keys = jax.random.split(key, len(layer_widths) - 1)`, and layer i uses `keys[i]`.",
    "06_prng.dropout.recipe": "Follow the recipe exactly: `keep = jax.random.bernoulli(key, 1 - rate, x.shape)` (True, i.e. kept, with probability 1 - rate), then `jnp.where(keep, x / (1 - rate), 0)`, with the dtype of x.",
    "06_prng.dropout.not_reproducible": "{call} returned different outputs in two calls with the same key, so the mask does not come from the key. Draw it with `jax.random.bernoulli(key, 1 - rate, x.shape)`, not with `np.random`: NumPy's hidden state changes on every call (and under `jax.jit` it is frozen into the compiled program).",
    "06_prng.dropout.key_ignored": "{call} returned the same output for two different keys, so the mask does not depend on the key argument. Draw it from the key you are given with `jax.random.bernoulli(key, 1 - rate, x.shape)`, not from a fixed `jax.random.key(0)` or `np.random`.",
    "06_prng.dropout.traced_rate": "Under `jax.jit` `rate` is traced, so it cannot decide a Python `if`. Compute with it instead: `jax.random.bernoulli(key, 1 - rate, x.shape)` and `jnp.where(keep, x / (1 - rate), 0)` already give x back when rate is 0.",
    "06_prng.random_walk.recipe": "Follow the recipe exactly: `steps = 2 * jax.random.bernoulli(key, 0.5, (num_steps,)).astype(jnp.int32) - 1` (one call draws all the coin flips), then return `jnp.cumsum(steps)`, an int32 array of shape (num_steps,).",
    "06_prng.random_walk.key_reuse": "One `jax.random.bernoulli(key, 0.5, (num_steps,))` call draws all num_steps coin flips with a single use of the key. Calling a random function once per step with the same key repeats the same flip every time.",
    "06_prng.random_walk.not_unit_steps": "{call}: {count} of {total} steps (differences between consecutive positions, starting from 0) are not +1 or -1; the first is step {index}, which is {value}. Turn the coin flips into steps with `2 * jax.random.bernoulli(key, 0.5, (num_steps,)).astype(jnp.int32) - 1`.",
    "06_prng.random_walk.vmap_fix": "This check runs `jax.vmap(random_walk, in_axes=(0, None))` over {batch} keys, so inside random_walk the key and the drawn values are traced. Draw all steps with one `jax.random.bernoulli(key, 0.5, (num_steps,))` call and turn them into +1/-1 with array operations (`2 * b - 1` or `jnp.where`), with no Python loop, `if` or `int()` on drawn values.",
    "06_prng.random_walk.vmap_identical": "{call}: all {batch} keys gave the same walk, so the walk does not depend on the key (NumPy's `np.random`, or a fixed key inside the function). Draw the steps from the key argument with `jax.random.bernoulli(key, 0.5, (num_steps,))`; under `jax.vmap` every key then gives its own walk.",
    "06_prng.random_walk.vmap_mean": "{call}: the mean final position over {batch} walks of {num_steps} steps is {mean:.3g}, but it should be within {tolerance:.3g} of 0 (the check's tolerance for a fair walk). Each step must be +1 or -1 with probability 1/2 each: `2 * jax.random.bernoulli(key, 0.5, (num_steps,)).astype(jnp.int32) - 1`.",
    # --- nbgrader autograde (autograder/nbgrader_preprocessors.py) -------------
    "nbgrader.kernel_died": "The kernel died while this cell was running (the process was killed or exited: a crash, os._exit(), or running out of memory). This cell and every cell after it score 0.",
    "nbgrader.kernel_stuck": "This cell did not finish within the time limit and kept running when it was interrupted (does it catch KeyboardInterrupt?). This cell and every cell after it score 0.",
    "nbgrader.sandbox_failed": "The sandboxed grader could not grade this notebook ({detail}), so this check scores 0 for now. This is not a problem with your notebook: course staff will grade it again.",
    "nbgrader.no_checks": "The sandboxed grader has no checks for `{function}`; this check cell scores 0. Course staff: check grading.toml and the notebook's check cells.",
    "nbgrader.not_run": "Not run: grading stopped at an earlier cell (see its error), so this cell scores 0.",
    "notebook.missing_function": "If its cell still says `raise NotImplementedError()`, it is not implemented yet; otherwise run that cell, and the cells above it, without errors.",
    # --- The student package (autograder/student/) ---------------------------
    "student.report_header": "{name} ({assignment}), checked on the public inputs of this release",
    "student.unknown_function": "No check for a function named `{function}` in this package. Known functions: {known}.",
    "student.construct_missing": "{call}: the traced program contains no `{primitives}`, but this exercise asks for {construct}.",
    "student.install_failed": "The checks of this notebook are not installed. Run `pip install {address}` (in a notebook cell: `%pip install {address}`), then restart the kernel and run this cell again.",
    "student.install_comment": "Installs the checks of this notebook (the `autograder` package) when they are missing, e.g. on Colab.",
    "student.data_missing": "The checks of {assignment} could not be read ({detail}). Reinstall the package.",
    # --- Reports ------------------------------------------------------------
    "report.header": "{name} ({assignment}), hidden-input seed {seed}",
    "report.total": "Total: {score:g} / {max_score:g}",
    "report.passed": "passed",
    "report.failed": "failed",
    "report.all_passed": "All checks passed.",
    "report.notes": "Notes:",
    "report.grader_crashed": "Grading did not finish for this submission ({detail}); it scores 0. Ask course staff to look at it.",
    "report.internal_error": "Internal grader error in this check ({error_type}: {error}). This is not your fault; report it to course staff.",
}

LOCALE = Path(__file__).resolve().parent / "locale"
LANGUAGES = ("en", "ko")  # English, and each locale/<language>.po
LANGUAGE_VARIABLE = "AUTOGRADER_LANG"

_chosen: contextvars.ContextVar[str | None] = contextvars.ContextVar("autograder_language", default=None)
_loaded: dict[str, dict[str, str]] = {"en": ENGLISH}
_warned: set[str] = set()


def language() -> str:
    """The language of feedback now: `using(...)` or `choose(...)`, else $AUTOGRADER_LANG, else English."""
    return _chosen.get() or normalize(os.environ.get(LANGUAGE_VARIABLE)) or "en"


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


def choose(name: str | None) -> None:
    """Make `name` the language of this process's feedback (the command line's --lang)."""
    _chosen.set(normalize(name))


@contextlib.contextmanager
def using(name: str | None):
    """Feedback in `name` inside the block (a notebook's own language); None keeps the current one."""
    chosen = normalize(name)
    if chosen is None or _chosen.get() is not None or normalize(os.environ.get(LANGUAGE_VARIABLE)):
        yield  # an explicit --lang or $AUTOGRADER_LANG wins over the notebook's metadata
        return
    token = _chosen.set(chosen)
    try:
        yield
    finally:
        _chosen.reset(token)


def catalog(name: str) -> dict[str, str]:
    """key -> template in language `name`: its PO file's translations of the current English sentences."""
    if name not in _loaded:
        _loaded[name] = _read_po(LOCALE / f"{name}.po")
    return _loaded[name]


def _read_po(path: Path) -> dict[str, str]:
    """Entries keyed by msgctxt; a translation of an older English sentence (msgid changed) or a fuzzy one is not used."""
    import polib

    try:
        entries = polib.pofile(str(path))
    except (OSError, ValueError):
        return {}
    return {entry.msgctxt: entry.msgstr for entry in entries
            if entry.msgctxt in ENGLISH and entry.msgid == ENGLISH[entry.msgctxt] and entry.msgstr
            and "fuzzy" not in entry.flags}


def text(key: str, **fields: object) -> str:
    """The student-facing sentence `key` in the current language, with `fields` filled in.

    A hint is shown at the current `hint_level()`.
    """
    if key in hint_ideas.IDEAS:
        return _hint(key, fields)
    return _template(key).format(**fields)


def _template(key: str) -> str:
    return catalog(language()).get(key) or ENGLISH[key]


def _hint(key: str, fields: dict[str, object]) -> str:
    level = hint_level()
    said = _template(key if level == "recipe" else f"{key}.idea").format(**fields)
    apis = hint_ideas.APIS.get(key, ())
    if level == "idea" or not apis:
        return said
    return f"{said} {_template('hint.read_about').format(apis=', '.join(f'`{api}`' for api in apis))}"


HINT_LEVELS = ("idea", "api", "recipe")  # how much a hint gives away, least first
DEFAULT_HINT_LEVEL = "api"  # never a line of a reference solution
HINT_LEVEL_VARIABLE = "AUTOGRADER_HINTS"
_hint_level: contextvars.ContextVar[str | None] = contextvars.ContextVar("autograder_hint_level", default=None)


def hint_level() -> str:
    """How much a hint shows now: $AUTOGRADER_HINTS, else `hints_at(...)`, else "api"."""
    return hint_level_override() or _hint_level.get() or DEFAULT_HINT_LEVEL


def hint_level_override() -> str | None:
    """$AUTOGRADER_HINTS if it names a level (set by --hints), else None."""
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


# --- 07_vmap_pytrees ---------------------------------------------------------
ENGLISH.update({
    "hint.VmapInAxes": "`jax.vmap` maps axis 0 of every argument, and of every leaf of a pytree argument, unless `in_axes` says otherwise: all of them need that axis, with the same batch size. Give None in `in_axes` for an argument that every example shares, such as the parameters: `jax.vmap(f, in_axes=(None, 0))(params, xs)`. None covers a whole pytree of any structure; an `in_axes` entry written as a dict or list must have exactly its argument's structure.",
    "07_vmap_pytrees.pairwise_distances.values": "Entry [i, j] is the Euclidean distance between the rows xs[i] and ys[j]. Write it for one pair of rows, `jnp.sqrt(jnp.sum((x - y) ** 2))`, and map it over both inputs: `jax.vmap(jax.vmap(distance, in_axes=(None, 0)), in_axes=(0, None))(xs, ys)` has shape (n, m) (broadcasting `xs[:, None, :] - ys[None, :, :]` works too).",
    "07_vmap_pytrees.pairwise_distances.equal_rows": "Equal rows are at distance 0 (within 1e-3), never NaN. Compute the distance from the difference of the rows, `jnp.sqrt(jnp.sum((x - y) ** 2))`: the expansion `|x|**2 + |y|**2 - 2 * x @ y` cancels for equal rows to a rounding error of either sign, whose square root is NaN or far from 0.",
    "07_vmap_pytrees.pairwise_distances.unrolled_fix": "A Python loop over the rows is unrolled while tracing: the program gets one copy of the distance code per row. Write the distance of one pair of rows and let `jax.vmap` add the row axes (or broadcast), so the program is the same for any number of rows.",
    "07_vmap_pytrees.batched_predict.values": "For one example x, every layer but the last computes `h = jax.nn.relu(h @ layer[\"weights\"] + layer[\"biases\"])`, and the last layer the same without relu (the output is not clipped at 0). Batch that one-example function with `jax.vmap(predict, in_axes=(None, 0))(params, xs)`: None shares params with every example, 0 maps over the rows of xs.",
    "07_vmap_pytrees.batched_predict.batch_of_one": "A batch of one example still gives shape (1, n_out): `jax.vmap` keeps the batch axis whatever its size, so do not squeeze it away (no `jnp.squeeze`, no `reshape(-1)`).",
    "07_vmap_pytrees.batched_predict.unrolled_fix": "A Python loop over the examples is unrolled while tracing: one copy of the network per example. Write the prediction for one example and batch it with `jax.vmap(predict, in_axes=(None, 0))`. (A Python loop over the layers is fine: their number does not change with the batch.)",
    "07_vmap_pytrees.per_example_grads.values": "The gradient for each example is `jax.vmap(jax.grad(loss_fn), in_axes=(None, 0, 0))(params, xs, ys)`: `jax.grad(loss_fn)` differentiates the loss of one example with respect to params (its first argument), and `jax.vmap` runs it for every row of xs and ys, with None sharing the whole params pytree, whatever its structure, with every example. Each leaf of the result has a leading axis of length len(xs).",
    "07_vmap_pytrees.per_example_grads.one_gradient": "{call} returned one gradient for the whole batch: its leaves have the shapes of params, but each needs a leading axis of length {batch}, one gradient per example. The gradient of the mean (or sum) of the losses averages the examples together; take `jax.grad` of the one-example loss inside `jax.vmap` instead.",
    "07_vmap_pytrees.per_example_grads.structure": "The result has params' structure (the same dicts, lists and tuples) with a leading batch axis on every leaf: `jax.grad` returns a gradient shaped like params, and `jax.vmap` keeps that structure. Do not assume the notebook's params: `in_axes=(None, 0, 0)` works for any params pytree, while an in_axes dict such as `{{\"w\": None, \"b\": None}}` must match params' structure exactly.",
    "07_vmap_pytrees.per_example_grads.unrolled_fix": "A Python loop over the examples is unrolled while tracing: one copy of the gradient computation per example. Map the one-example gradient over the batch with `jax.vmap(jax.grad(loss_fn), in_axes=(None, 0, 0))` instead.",
    "07_vmap_pytrees.sgd_update.values": "Update every leaf, whatever the structure of params: `jax.tree.map(lambda p, g: p - learning_rate * g, params, grads)` walks nested dicts, lists and tuples alike, and treats every array (a 0-d scalar too) as one leaf.",
    "07_vmap_pytrees.sgd_update.structure": "Return a pytree with exactly the structure of params (the same dicts with the same keys, lists and tuples) and leaves of the same dtypes, not a list of leaves or a flat dict: `jax.tree.map(f, params, grads)` builds its result with params' structure.",
    "07_vmap_pytrees.sgd_update.traced_rate": "Under `jax.jit` learning_rate is traced: use it in array arithmetic only (`p - learning_rate * g`), without `float(learning_rate)`, an `if` or NumPy on it.",
})


# --- 08_scan_purity ----------------------------------------------------------
ENGLISH.update({
    "hint.CarryType": "the carry of a loop (`lax.scan`, `lax.fori_loop`, `lax.while_loop`) must keep its type: the body must return a carry with exactly the structure, shapes and dtypes of the initial carry. Start from a value of the data's type, e.g. `jnp.zeros((), x.dtype)` or `xs[0]`, not `jnp.int32(0)` for float data, and return the same dict keys or tuple layout that you started with.",
    "08_scan_purity.cumulative_sum.values": "Carry the running total through `lax.scan`: `step(total, v)` returns `(total + v, total + v)`, the new carry and this step's output, and `_, sums = lax.scan(step, jnp.zeros((), x.dtype), x)` stacks the outputs into `[x0, x0 + x1, ...]`, with the shape and dtype of x. The first carry must have the type of the carry that step returns (a float32 scalar here, not `jnp.int32(0)`).",
    "08_scan_purity.cumulative_sum.unrolled_fix": "A Python loop over x is unrolled while tracing: the program gets one addition per entry. `lax.scan` keeps a single loop body in the program however long x is.",
    "08_scan_purity.cumulative_sum.use_scan": "Write the running sum with `lax.scan(step, init, x)`; this exercise is about `lax.scan` (`jnp.cumsum` computes the same values without it).",
    "08_scan_purity.ema.values": "Start the average at the first value, m_0 = xs[0] (not at 0), then m_t = decay * m_(t-1) + (1 - decay) * xs[t]: carry the average through `lax.scan` and output it at every step, for example `lax.scan(step, xs[0], xs)`, whose first step gives xs[0] back. The result has the shape and dtype of xs.",
    "08_scan_purity.ema.keep_traced": "`decay` may be traced, so use it only in array arithmetic inside the scan step: `float(decay)`, an `if` on it or a static argument needs its value while tracing, which fails under `jax.jit` or compiles again for every new decay.",
    "08_scan_purity.ema.calls": "`ema(xs, decay)` with xs of length {length} and decay = {decays}",
    "08_scan_purity.ema.use_scan": "Carry the average with `lax.scan(step, init, xs)`; this exercise is about `lax.scan`.",
    "08_scan_purity.rnn_forward.values": "Scan over the rows of xs with the hidden state as the carry: `step(h, x)` computes `h_new = jnp.tanh(params[\"W_h\"] @ h + params[\"W_x\"] @ x + params[\"b\"])` and returns `(h_new, h_new)`; then `h_T, hs = lax.scan(step, h0, xs)`. hs holds h_1, ..., h_T, shape (T, H): each step outputs the new state, so h0 is not in it.",
    "08_scan_purity.rnn_forward.unrolled_fix": "A Python loop over the time steps is unrolled while tracing: one copy of the step per row of xs. `lax.scan` (or `lax.fori_loop` writing into hs) keeps one loop body however long the sequence is.",
    "08_scan_purity.rnn_forward.vmap_fix": "Under `jax.vmap(rnn_forward, in_axes=(None, 0, 0))`, rnn_forward sees one sequence xs of shape (T, D) and one h0 of shape (H,) at a time, with params shared. Write it for one sequence, with no Python control flow on values and no reshape that assumes a batch axis.",
    "08_scan_purity.running_stats_update.values": "One step of Welford's algorithm: count' = count + 1, delta = x - mean, mean' = mean + delta / count', m2' = m2 + delta * (x - mean'). Return a new dict `{{\"count\": count', \"mean\": mean', \"m2\": m2'}}` of float32 scalars: the same keys and types as the stats passed in, so it can be a scan carry.",
    "08_scan_purity.running_stats_update.impure": "{call} changed the dict passed in ({change}), but a pure function leaves its arguments as they were. Build and return a new dict, `{{\"count\": count + 1, \"mean\": ..., \"m2\": ...}}` (or update a copy, `new = dict(stats)`), instead of `stats[\"count\"] += 1`. Without jit the caller's stats change behind its back; under jit the change never reaches the caller, so the same code behaves differently with and without jit.",
    "08_scan_purity.running_stats_update.not_repeatable": "{call} gave a different result when called again with the same arguments, so it depends on something that changes between calls (a global, or state kept from the last call). A pure function's result depends only on its arguments: pass the state in and return it.",
    "08_scan_purity.running_stats_update.changed_entry": "stats[{name!r}] was {before} before the call and {after} after it",
    "08_scan_purity.running_stats_update.missing_key": "missing",
    "08_scan_purity.running_stats_update.scan_call": "lax.scan(lambda stats, x: (running_stats_update(stats, x), None), {{\"count\": 0., \"mean\": 0., \"m2\": 0.}}, xs) with {length} values in xs",
})


# The first level of every hint: its idea (hint_ideas.py), translated like any sentence.
ENGLISH.update({f"{key}.idea": idea for key, idea in hint_ideas.IDEAS.items()})
