"""03_control_flow: this assignment's own sentences and hints (see catalog/assignment_catalogs.py)."""

ENGLISH: dict[str, str] = {
    "03_control_flow.square.keep_traced": "`negate` may be traced, so choose between the two results with `lax.cond(negate, true_fun, false_fun, x)` instead of a Python `if` or a static argument: both branches are compiled into one program, which serves both values.",
    "03_control_flow.square.use_cond": "Choose between the two computations with `lax.cond(negate, true_fun, false_fun, x)`; this exercise is about `lax.cond` (`jnp.where` computes both results and selects elementwise).",
    "03_control_flow.sum_init.keep_traced": "`num` may be traced, so loop with `lax.fori_loop(0, num, body_fun, init_val)` (its bounds may be traced) instead of `range(num)` or a static argument: one compiled program then serves every num.",
    "03_control_flow.sum_init.unrolled_fix": "Loop with `lax.fori_loop` instead of a Python loop over the entries of x: it stays a single loop in the compiled program however long x is.",
    "03_control_flow.sum_init.use_fori_loop": "Write the sum as `lax.fori_loop(0, num, body_fun, init_val)` with `body_fun(i, total)` adding `x[i]`; this exercise is about `lax.fori_loop`.",
    "03_control_flow.power_iteration.keep_traced": "`num_iters` may be traced, so loop with `lax.fori_loop(0, num_iters, body_fun, v)` instead of `range(num_iters)` or a static argument: one compiled program then serves every num_iters.",
    "03_control_flow.collatz_steps.use_while_loop": "The number of steps depends on the value of n, so loop with `lax.while_loop(cond_fun, body_fun, (n, steps))`; this exercise is about `lax.while_loop`.",
    "03_control_flow.square.calls": "`square(x, negate)` with x of shape {shape} and negate = {negates}",
    "03_control_flow.sum_init.calls": "`sum_init(x, num)` with x of shape {shape} and num = {nums}",
    "03_control_flow.power_iteration.calls": "`power_iteration(a, num_iters)` with a of shape {shape} and num_iters = {counts}",
    "03_control_flow.square.mistake.swapped_branches": "The values are exactly those of the other branch: x squared where `negate` is True and its negative where it is False. The two branches are swapped: with `lax.cond`, the first function runs when the predicate is True.",
    "03_control_flow.sum_init.mistake.starts_at_x0": "With num = 0 the value is exactly x[0]: the sum starts from the first entry instead of from 0, so it can never be empty. Start the total at 0 and add x[i] for i from 0 to num - 1.",
    "03_control_flow.sum_init.mistake.last_entries": "The value is exactly the sum of the last num entries: the loop counts from the end of x. Sum the first num entries, x[0] to x[num - 1].",
    "03_control_flow.sum_init.mistake.one_more": "The value is exactly the sum of the first num + 1 entries: the loop runs one step too many. The upper bound of a `lax.fori_loop` is excluded, as in `range`.",
    "03_control_flow.power_iteration.mistake.normalize_first": "The values are exactly power iteration that normalizes before multiplying by a: the last product is returned unnormalized. Multiply first, then normalize, so every iterate (and the result) has norm 1.",
    "03_control_flow.power_iteration.mistake.unnormalized_start": "The values are exactly power iteration from a start vector of ones that is not normalized: with num_iters = 0 it is returned as it is. Start from the vector of ones divided by its norm.",
    "03_control_flow.collatz_steps.dtype": "the step count must be int32: start the counter in the carry of `lax.while_loop` from `jnp.int32(0)` (or `jnp.zeros((), jnp.int32)`) and add 1 to it; a float counter such as `0.0` makes the result float32.",
    "03_control_flow.square.mistake.not_squared": "The values are exactly x (its negative where `negate` is True): the branches change the sign but never square. Each branch of `lax.cond` computes x ** 2, one of them negated.",
    "03_control_flow.sum_init.mistake.counted": "The value is exactly num: each step adds 1 to the total instead of the entry. The body of `lax.fori_loop` receives the index i: add `x[i]` to the running total.",
    "03_control_flow.power_iteration.mistake.start_vector": "The result is exactly the normalized start vector: the loop body never multiplies by a. Each iteration computes `a @ v` and divides it by its norm.",
    "03_control_flow.collatz_steps.mistake.always_halved": "The counts are exactly those of halving n at every step, odd values too: the `3 * n + 1` step for odd n is missing. Choose the step by the parity of n, e.g. `jnp.where(n % 2 == 0, n // 2, 3 * n + 1)`.",
}

IDEAS: dict[str, str] = {
    "03_control_flow.square.keep_traced": "`negate` may be traced, so neither a Python `if` nor a static argument can choose the branch. Choose between the two computations inside the compiled program.",
    "03_control_flow.square.use_cond": "this exercise is about `lax.cond`: choose between the two computations with it (`jnp.where` computes both results and selects elementwise).",
    "03_control_flow.sum_init.keep_traced": "`num` may be traced, so `range(num)` or a static argument cannot set the length of the loop. Loop inside the compiled program, with a loop whose bounds may be traced.",
    "03_control_flow.sum_init.unrolled_fix": "A Python loop over the entries of x is unrolled while tracing, one step per entry. A JAX loop keeps one loop body in the compiled program however long x is.",
    "03_control_flow.sum_init.use_fori_loop": "this exercise is about `lax.fori_loop`: write the sum as a loop body that adds one entry to the running total.",
    "03_control_flow.power_iteration.keep_traced": "`num_iters` may be traced, so `range(num_iters)` or a static argument cannot set the number of iterations. Loop inside the compiled program, with a loop whose bounds may be traced.",
    "03_control_flow.collatz_steps.use_while_loop": "The number of steps depends on the value of n, so the loop has to run inside the compiled program until a condition fails: this exercise is about `lax.while_loop`.",
    "03_control_flow.collatz_steps.dtype": "the step count must be int32: count the steps in an integer carry, started from an int32 zero.",
}

APIS: dict[str, tuple[str, ...]] = {
    "03_control_flow.square.keep_traced": ("jax.lax.cond",),
    "03_control_flow.square.use_cond": ("jax.lax.cond",),
    "03_control_flow.sum_init.keep_traced": ("jax.lax.fori_loop",),
    "03_control_flow.sum_init.unrolled_fix": ("jax.lax.fori_loop",),
    "03_control_flow.sum_init.use_fori_loop": ("jax.lax.fori_loop",),
    "03_control_flow.power_iteration.keep_traced": ("jax.lax.fori_loop",),
    "03_control_flow.collatz_steps.use_while_loop": ("jax.lax.while_loop",),
    "03_control_flow.collatz_steps.dtype": ("jax.lax.while_loop",),
}

# The names of this assignment's own graded properties (its @graded tests', grading.toml's), translated in
# ko.po as every "check_name." key; the kit's common ones ("correct", "jittable"...) are catalog/messages.py's.
CHECK_NAMES: tuple[str, ...] = (
    "jittable with negate traced",
    "compiles once for both values of negate",
    "uses lax.cond",
    "num = 0 and num = len(x)",
    "compiles once for many num",
    "uses lax.fori_loop",
    "compiles once for many num_iters",
    "uses lax.while_loop",
)
