"""04_static_args: this assignment's own sentences and hints (see catalog/assignment_catalogs.py)."""

ENGLISH: dict[str, str] = {
    "04_static_args.power.decorate": "Put `@partial(jax.jit, static_argnums=1)` (from `functools import partial`) above `def power`, so that `power` itself is the jitted function and `n` is static.",
    "04_static_args.power.call_sequence": "`power(x, n)` called with n = {ns}, each time with a new x of shape {shape}",
    "04_static_args.power.trace_fix": "Mark `n` static (`@partial(jax.jit, static_argnums=1)`) and keep `x` traced: JAX then traces once for each distinct n, and reuses that program for every new x of the same shape and dtype.",
    "04_static_args.normalize.decorate": "Put `@partial(jax.jit, static_argnames=\"axis\")` above `def normalize`, so that `normalize` itself is the jitted function and `axis` is static by name.",
    "04_static_args.normalize.static_fix": "`axis` must be static by name: `@partial(jax.jit, static_argnames=\"axis\")`. The axis decides the shape of `x.sum(axis=axis, keepdims=True)`, so JAX needs its Python value while tracing, whether it is passed by keyword or by position.",
    "04_static_args.normalize.call_sequence": "`normalize(x, axis=...)` called with axis = {axes}, each time with a new x of shape {shape}",
    "04_static_args.normalize.trace_fix": "Make only `axis` static (`static_argnames=\"axis\"`) and keep `x` traced: JAX then traces once for each distinct axis, and reuses that program for every new x of the same shape and dtype.",
    "04_static_args.activation.decorate": "Put `@partial(jax.jit, static_argnames=\"name\")` above `def activation`, so that `activation` itself is the jitted function and `name` is static.",
    "04_static_args.activation.static_fix": "`name` must be static: `@partial(jax.jit, static_argnames=\"name\")`. A string is not an array, so JAX cannot trace it; a static `name` is a plain Python str while tracing, so `if name == \"relu\":` works.",
    "04_static_args.activation.unknown_fix": "Check the name while tracing and raise for anything other than \"relu\", \"tanh\" or \"sigmoid\" (compared exactly, so \"ReLU\" is unknown): `raise ValueError(f\"unknown activation name: {{name!r}}\")`.",
    "04_static_args.run_steps.call_sequence": "after a warm-up call, `run_steps(x, {first})` then `run_steps(x, {second})` with new x of shape {shape}",
    "04_static_args.run_steps.trace_fix": "Every trace here is a new compile. Create the jitted `step` once, at module level (`@jax.jit` above `def step`), and let the plain Python loop of `run_steps` call that same `step`. A `jax.jit(lambda ...)` or `jax.jit(partial(...))` inside the loop is a new function object in every iteration, which JAX has never seen, so it traces every time; jitting `run_steps` with a static `num_steps` traces again for every new `num_steps`.",
    "04_static_args.power.mistake.starts_from_x": "The values are exactly x to the power n + 1: the product starts from x instead of from 1, so it has one factor too many (and n = 0 gives x, not 1).",
    "04_static_args.normalize.mistake.no_keepdims": "The values are exactly x divided by its sums along `axis` with that axis dropped: without `keepdims=True`, the sums broadcast against the wrong axis of x. Keep the reduced axis (size 1) so each entry is divided by the sum of its own slice.",
    "04_static_args.normalize.mistake.whole_array": "The values are exactly x divided by the sum of all its entries: the sum is taken over the whole array, not along `axis`.",
    "04_static_args.normalize.mistake.max": "The values are exactly x divided by its maximum along `axis`: normalize divides by the sum along `axis`, so that the entries of each slice add up to 1.",
    "04_static_args.run_steps.mistake.halved_sum": "The values are exactly those of the step 0.5 * (x + 1) applied num_steps times: the step halves x + 1, where it should add 1 to half of x (0.5 * x + 1).",
    "04_static_args.run_steps.mistake.one_step": "The values are exactly those of a single step, whatever num_steps is: the step's result is not fed back into the next step (or the loop returns after its first step).",
    "04_static_args.run_steps.mistake.no_step": "The values are exactly x as it was passed in: no step changed it. Calling `step` does not change x (JAX arrays are immutable), so if you call it in a loop, assign each step's result back to x.",
    "04_static_args.power.mistake.times_n": "The values are exactly x times n: x is added n times (or multiplied by n) where it is multiplied by itself n times. Start from 1 and multiply by x at every step.",
    "04_static_args.normalize.mistake.length": "The values are exactly x divided by its length along `axis`: the division is by the number of entries, not by their sum. Divide by `x.sum(axis=axis, keepdims=True)`.",
}

IDEAS: dict[str, str] = {
    "04_static_args.power.decorate": "`power` itself must be the jitted function, with `n` static: write the `jax.jit` decorator above its `def`, giving it the static argument through `functools.partial`.",
    "04_static_args.power.trace_fix": "`n` counts a Python loop, so it must be static while `x` stays traced: JAX then traces once for each distinct n and reuses that program for every new x of the same shape and dtype.",
    "04_static_args.normalize.decorate": "`normalize` itself must be the jitted function, with `axis` static by name: write the `jax.jit` decorator above its `def`, giving it the static argument through `functools.partial`.",
    "04_static_args.normalize.static_fix": "the axis decides the shape of the sum (kept with size 1 by `keepdims=True`), so JAX needs its Python value while tracing: `axis` must be static, by name.",
    "04_static_args.normalize.trace_fix": "Only `axis` should be static; keep x traced. JAX then traces once for each distinct axis and reuses that program for every new x of the same shape and dtype.",
    "04_static_args.activation.decorate": "`activation` itself must be the jitted function, with `name` static by name: write the `jax.jit` decorator above its `def`, giving it the static argument through `functools.partial`.",
    "04_static_args.activation.static_fix": "a string is not an array, so JAX cannot trace it: `name` must be static, so that it is a plain Python str while tracing and can choose the activation.",
    "04_static_args.activation.unknown_fix": "an unknown name must raise `ValueError`, with the name in its message, while tracing: the static name is compared exactly (so \"ReLU\" is unknown) with the three known names.",
    "04_static_args.run_steps.trace_fix": "Every trace here is a new compile, and a function object JAX has never seen is traced again. Jit `step` once, at module level, and call that same function in the loop of `run_steps`; a static `num_steps` would trace again for every new value.",
}

APIS: dict[str, tuple[str, ...]] = {
    "04_static_args.power.decorate": ("jax.jit(static_argnums=...)", "functools.partial"),
    "04_static_args.power.trace_fix": ("jax.jit(static_argnums=...)",),
    "04_static_args.normalize.decorate": ("jax.jit(static_argnames=...)", "functools.partial"),
    "04_static_args.normalize.static_fix": ("jax.jit(static_argnames=...)",),
    "04_static_args.normalize.trace_fix": ("jax.jit(static_argnames=...)",),
    "04_static_args.activation.decorate": ("jax.jit(static_argnames=...)", "functools.partial"),
    "04_static_args.activation.static_fix": ("jax.jit(static_argnames=...)",),
    "04_static_args.activation.unknown_fix": ("jax.jit(static_argnames=...)",),
    "04_static_args.run_steps.trace_fix": ("jax.jit",),
}

# The names of this assignment's own graded properties (its @graded tests', grading.toml's), translated in
# ko.po as every "check_name." key; the kit's common ones ("correct", "jittable"...) are catalog/messages.py's.
CHECK_NAMES: tuple[str, ...] = (
    "traces once per distinct n",
    "axis static by name",
    "correct with axis by position",
    "retraces only when axis changes",
    "name static",
    "ValueError for unknown names",
    "no new traces after warm-up",
)
