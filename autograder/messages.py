"""Every student-facing string of the kit, in one catalog so it can be translated.

Code never builds feedback sentences itself: it calls `text(key, **fields)`.
A translation is another dict with the same keys, selected with the
AUTOGRADER_LANG environment variable; missing keys fall back to English.
"""

from __future__ import annotations

import os

ENGLISH: dict[str, str] = {
    # --- Loading a submission -------------------------------------------------
    "load.file_missing": "Submission {path} does not exist. Check the path, or hand in the notebook file itself.",
    "load.not_json": "{path} is not a valid notebook: its JSON cannot be read ({error}). Re-download the notebook or restore it from a checkpoint; do not edit .ipynb files in a text editor.",
    "load.invalid_notebook": "{path} is not a valid nbformat 4 notebook ({error}). Re-download the notebook or restore it from a checkpoint.",
    "load.bad_suffix": "{path} is neither a notebook (.ipynb) nor a Python file (.py). Hand in the .ipynb file.",
    "load.not_utf8": "{path} is not UTF-8 text. Save it as UTF-8.",
    "load.unknown_assignment": "Cannot tell which assignment {path} is. Keep the notebook's file name (e.g. 01_immutable_updates.ipynb), or pass --assignment NAME. Known assignments: {known}.",
    "load.magic_skipped": "Cell {cell}: skipped IPython-only line `{line}` (magics and shell commands do not run in grading).",
    "load.check_cell_skipped": "Cell {cell}: check cell skipped (the grader runs its own checks).",
    "load.syntax_error": "Cell {cell} has a syntax error at line {line}: {error}. Nothing in that cell was defined; fix the syntax and run the cell again.",
    "load.cell_raised": "Cell {cell} raised {error_type}: {error}. The rest of that cell did not run; the grader went on with the next cells.",
    "load.cell_not_implemented": "Cell {cell} is not implemented yet (it still raises NotImplementedError).",
    "load.timeout": "The notebook's top-level code did not finish within {seconds:g} s (an infinite loop or a long computation outside a function?). No function could be graded. Move long work into functions and remove endless loops.",
    "load.exited": "The notebook's top-level code ended the process ({detail}). Remove calls such as sys.exit() or os._exit() from your notebook.",
    "load.child_failed": "The grader could not run the notebook ({detail}).",
    # --- Calling student functions -------------------------------------------
    "call.missing_function": "`{function}` is not defined. Define a function named exactly `{function}` (names are case-sensitive), and make sure its cell runs without errors.",
    "call.missing_not_implemented": "`{function}` is not defined because its cell still raises NotImplementedError: it is not implemented yet.",
    "call.not_callable": "`{function}` is a {type_name}, not a function. Define it with `def {function}(...)`.",
    "call.not_implemented": "`{function}` is not implemented yet: replace `raise NotImplementedError()` with your code.",
    "call.raised": "{call} raised {error_type}: {error}",
    "call.timeout": "{call} did not finish within {seconds:g} s (an infinite loop?). The check was stopped.",
    "call.exited": "{call} ended the grading process ({detail}). Do not call sys.exit(), os._exit() or raise SystemExit/KeyboardInterrupt in graded code.",
    "call.budget_exhausted": "The submission used up its total time limit of {seconds:g} s; the remaining checks were not run.",
    "call.bad_output": "{call} returned {detail}. Return JAX arrays (or the structure the exercise states).",
    "call.hint": "Hint: {hint}",
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
    "hint.NonArrayArgument": "a value that is not an array (a string, a function, None...) was passed to a jitted function as a traced argument. Mark that argument static with `static_argnames` (or `static_argnums`) in `jax.jit`, so JAX uses its Python value while tracing.",
    "hint.NotImplementedError": "this function is not implemented yet.",
    # --- Check outcomes -----------------------------------------------------
    "check.wrong_type": "{call} returned a {actual}, expected {expected}.",
    "check.wrong_shape": "{call} returned shape {actual}, expected {expected}.",
    "check.wrong_dtype": "{call} returned dtype {actual}, expected {expected}.",
    "check.wrong_values": "{call} returned wrong values: {count} of {size} entries differ (largest difference {max_diff:.3g}, tolerance rtol={rtol:g}, atol={atol:g}). First difference at index {index}: got {got}, expected {expected}.",
    "check.not_finite": "{call} returned {count} non-finite values (NaN or inf), expected all finite.",
    "check.wrong_structure": "{call} returned the structure {actual}, expected {expected}.",
    "check.not_jittable": "{call} cannot be traced by jax.jit with {static}: {error_type}: {error}",
    "check.static_none": "no static arguments",
    "check.static_some": "static {names}",
    "check.trace_count": "{call_sequence}: traced {actual} time(s), expected {expected}.",
    "check.cache_misses": "JAX explains the retraces:\n{explanations}",
    "check.primitive_missing": "{function} must use {construct}, but its jaxpr contains no `{primitives}`. {why}",
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
    "03_control_flow.square.keep_traced": "`negate` may be traced: do not branch on it with a Python `if` or mark it static, choose between the two results with `lax.cond(negate, true_fun, false_fun, x)`. Both branches are compiled into one program, so one compilation serves both values.",
    "03_control_flow.square.use_cond": "Choose between the two computations with `lax.cond(negate, true_fun, false_fun, x)`; this exercise is about `lax.cond` (`jnp.where` computes both results and selects elementwise).",
    "03_control_flow.sum_init.keep_traced": "`num` may be traced: do not use it in `range(num)` or mark it static, loop with `lax.fori_loop(0, num, body_fun, init_val)`, whose bounds may be traced. One compilation then serves every num.",
    "03_control_flow.sum_init.unrolled_fix": "Loop with `lax.fori_loop` instead of a Python loop over the entries of x: it stays a single loop in the compiled program however long x is.",
    "03_control_flow.sum_init.use_fori_loop": "Write the sum as `lax.fori_loop(0, num, body_fun, init_val)` with `body_fun(i, total)` adding `x[i]`; this exercise is about `lax.fori_loop`.",
    "03_control_flow.power_iteration.keep_traced": "`num_iters` may be traced: do not use it in `range(num_iters)` or mark it static, loop with `lax.fori_loop(0, num_iters, body_fun, v)`. One compilation then serves every num_iters.",
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
    # 06_prng (add below)
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

CATALOGS: dict[str, dict[str, str]] = {"en": ENGLISH}


def _catalog() -> dict[str, str]:
    return CATALOGS.get(os.environ.get("AUTOGRADER_LANG", "en"), ENGLISH)


def text(key: str, **fields: object) -> str:
    """The student-facing sentence `key`, with `fields` filled in."""
    template = _catalog().get(key) or ENGLISH[key]
    return template.format(**fields)


def has(key: str) -> bool:
    """Whether the catalog has a sentence for `key`."""
    return key in ENGLISH
