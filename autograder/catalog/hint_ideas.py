"""The first two levels of every hint: the JAX idea, and the API to read about.

A hint in `messages.ENGLISH` (a key here) is its third level, the worked
recipe, which may show the code of a solution. `messages.text(key)` shows the
level that grading.toml's `[feedback]` chooses (see `messages.hint_level`):

- "idea":   IDEAS[key], what went wrong and which JAX tool fixes it;
- "api":    the idea, then "Read about:" with APIS[key];
- "recipe": the recipe itself, then "Read about:".

An idea uses the same {fields} as its recipe (or fewer), so that a hint
made with the recipe's fields also fills its idea. No idea contains a line of
a reference solution; tests/test_hint_levels.py checks that on the corpus.
"""

from __future__ import annotations

from autograder.catalog import assignment_catalogs

# key -> the idea sentence (English; translations are catalog entries "<key>.idea").
IDEAS: dict[str, str] = {
    # --- JAX errors, by type or message (check/jax_error_hints.py) ------------
    "hint.ArrayTruthValue": "a Python `if`, `while`, `and`/`or` or `bool()` was applied to a whole array, whose truth value is ambiguous (even without jit): choose entry by entry with JAX's own control flow instead of branching in Python.",
    "hint.TracerBoolConversionError": "a Python `if`, `while`, `and`/`or` or `bool()` needed the value of a traced array. Inside jit, values are abstract: choose with JAX's own control flow (elementwise, between two computations, or a loop on a condition), or make the argument static.",
    "hint.ConcretizationTypeError": "a concrete Python value was needed from a traced value (a loop count, a shape, an `int`). Inside jit, values are abstract: loop with JAX's loops, whose bounds may be traced, choose without branching, or make the argument static if it really is a compile-time constant.",
    "hint.TracerIntegerConversionError": "a traced value was used where Python needs an int (a loop count, a list index, a shape). Make that argument static, or loop with a JAX loop whose bounds may be traced.",
    "hint.NonConcreteBooleanIndexError": "boolean-mask indexing has a shape that depends on the data, which jit cannot compile. Keep the shape fixed: select elementwise, with a neutral value where the mask is False, and reduce that.",
    "hint.TracerArrayConversionError": "a traced value was turned into a NumPy array. Inside a jitted function stay in `jax.numpy`; JAX arrays are updated functionally, not in place.",
    "hint.ImmutableArray": "JAX arrays are immutable: item assignment is not allowed. Build a new array with a functional update instead.",
    "hint.KeyReuseError": "a PRNG key was used more than once. Every random draw needs a fresh key: split the key and use each child exactly once, never the parent again.",
    "hint.UnexpectedTracerError": "a traced value escaped its transformation (kept in a global, a list or an attribute). Return values from the function instead of saving them outside it.",
    "hint.UnhashableStatic": "a static argument must be hashable (an int, a str, a tuple); arrays are not. Mark only the Python-valued arguments static and let arrays be traced.",
    "hint.IncompatibleShapes": "two arrays whose shapes do not broadcast were combined (trailing axes must be equal or 1). A reduction that drops an axis no longer lines up with the array it came from.",
    "hint.NonArrayArgument": "a value that is not an array (a string, a function, None) was passed to a jitted function as a traced argument. Such an argument must be static.",
    "hint.ScalarOutputGrad": "`jax.grad` differentiates a function that returns one scalar. A function that also returns extra outputs tells `jax.grad` so with `has_aux`; an array has to be reduced to a scalar first.",
    "hint.RemovedTreeMap": "`jax.tree_map` was removed from JAX (older tutorials still use it); it is now `jax.tree.map`.",
    "hint.RemovedIndexUpdate": "`jax.ops.index_update` and its relatives were removed from JAX (older tutorials still use them). JAX arrays are now updated functionally through `x.at[...]`.",
    "hint.RemovedHostCallback": "`jax.experimental.host_callback` was removed from JAX. Graded functions should not call back into Python at all.",
    "hint.RawAndTypedKeys": "a raw `uint32` key from the older `jax.random.PRNGKey` was mixed with the typed keys this exercise passes. Derive every key from the key you are given, by splitting it with `jax.random.split`.",
    "hint.VmapInAxes": "`jax.vmap` maps axis 0 of every argument, and of every leaf of a pytree argument, unless `in_axes` says otherwise. An argument that every example shares, such as the parameters, must not be mapped, and an `in_axes` entry for a pytree argument must match its structure (or be one None for all of it).",
    "hint.DeviceCountWrittenIn": "a device count written into the code (a mesh of 4) fails on a machine with another count: take the count from JAX when the function runs.",
    "hint.CarryType": "the carry of a loop (`lax.scan`, `lax.fori_loop`, `lax.while_loop`) must keep its type: the body must return a carry with exactly the structure, shapes and dtypes of the initial carry.",
    "hint.StaticTraced": "an argument marked static received a traced value: code that traces the function passes a value known only when the program runs, so that argument cannot be static. Let it be traced, and choose with it inside the program.",
    "hint.ReshapeFixedCount": "NumPy could not reshape an array to the shape asked for. If the array is the list of devices (or data split per device), its size is the number of devices, which differs between machines: compute the shape from the device count JAX reports when the function runs.",
    "hint.UnknownAxisName": "a collective or a sharding names an axis that is not there: an axis name exists only inside the `pmap`, `shard_map` or mesh that defines it, spelled the same way. Use one name in both places, and call the collective inside that function.",
    "hint.PythonScalar": "a Python number was used where a JAX array is needed (it has no `.at`, `.shape` or `.astype`): a value computed with Python numbers stays a Python `float` or `int`. Make it a JAX array first.",
    "hint.PerExampleAgainstBatch": "a value with one entry per row (one per example of a batch, or a sum or mean over each row) was combined with the whole array: broadcasting lines up the trailing axes, so its axis meets the array's last axis, not its first. Keep or add a trailing axis of size 1 so that it lines up with the rows.",
}

# key -> the JAX documentation entries a student should read (names, not sentences).
APIS: dict[str, tuple[str, ...]] = {
    "hint.ArrayTruthValue": ("jax.numpy.where", "jax.lax.cond"),
    "hint.TracerBoolConversionError": ("jax.numpy.where", "jax.lax.cond", "jax.lax.while_loop", "jax.jit(static_argnums=...)"),
    "hint.ConcretizationTypeError": ("jax.lax.fori_loop", "jax.lax.while_loop", "jax.numpy.where", "jax.jit(static_argnums=...)"),
    "hint.TracerIntegerConversionError": ("jax.jit(static_argnums=...)", "jax.lax.fori_loop"),
    "hint.NonConcreteBooleanIndexError": ("jax.numpy.where",),
    "hint.TracerArrayConversionError": ("jax.numpy", "jax.numpy.ndarray.at"),
    "hint.ImmutableArray": ("jax.numpy.ndarray.at",),
    "hint.KeyReuseError": ("jax.random.split",),
    "hint.UnexpectedTracerError": ("jax.jit",),
    "hint.UnhashableStatic": ("jax.jit(static_argnums=...)",),
    "hint.IncompatibleShapes": ("jax.numpy.sum(keepdims=True)", "broadcasting"),
    "hint.NonArrayArgument": ("jax.jit(static_argnames=...)",),
    "hint.ScalarOutputGrad": ("jax.grad(has_aux=True)", "jax.value_and_grad"),
    "hint.RemovedTreeMap": ("jax.tree.map",),
    "hint.RemovedIndexUpdate": ("jax.numpy.ndarray.at",),
    "hint.RemovedHostCallback": ("jax.debug.print",),
    "hint.RawAndTypedKeys": ("jax.random.key", "jax.random.split"),
    "hint.VmapInAxes": ("jax.vmap(in_axes=...)",),
    "hint.CarryType": ("jax.lax.scan", "jax.lax.fori_loop"),
    "hint.DeviceCountWrittenIn": ("jax.device_count", "jax.make_mesh"),
    "hint.StaticTraced": ("jax.jit(static_argnums=...)", "jax.lax.cond"),
    "hint.ReshapeFixedCount": ("jax.device_count", "jax.make_mesh"),
    "hint.UnknownAxisName": ("jax.pmap(axis_name=...)", "jax.lax.psum", "jax.sharding.PartitionSpec"),
    "hint.PythonScalar": ("jax.numpy.asarray",),
    "hint.PerExampleAgainstBatch": ("broadcasting", "jax.numpy.sum(keepdims=True)"),
}

# Each assignment's hints, beside its suite (suites/messages_<assignment>.py).
for _catalog in assignment_catalogs.found():
    assignment_catalogs.merge(IDEAS, _catalog.IDEAS, _catalog.__name__)
    assignment_catalogs.merge(APIS, _catalog.APIS, _catalog.__name__)
