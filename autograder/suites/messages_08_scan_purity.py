"""08_scan_purity: this assignment's own sentences and hints (see catalog/assignment_catalogs.py)."""

ENGLISH: dict[str, str] = {
    "08_scan_purity.cumulative_sum.values": "Carry the running total through `lax.scan`: `step(total, v)` returns `(total + v, total + v)`, the new carry and this step's output, and `_, sums = lax.scan(step, jnp.zeros((), x.dtype), x)` stacks the outputs into `[x0, x0 + x1, ...]`, with the shape and dtype of x. The first carry must have the type of the carry that step returns (a float32 scalar here, not `jnp.int32(0)`).",
    "08_scan_purity.cumulative_sum.unrolled_fix": "`lax.scan` keeps a single loop body in the program however long x is (a Python loop over x would be unrolled while tracing, one addition per entry).",
    "08_scan_purity.cumulative_sum.use_scan": "Write the running sum with `lax.scan(step, init, x)`; this exercise is about `lax.scan` (`jnp.cumsum` computes the same values without it).",
    "08_scan_purity.ema.values": "Start the average at the first value, m_0 = xs[0], then m_t = decay * m_(t-1) + (1 - decay) * xs[t]: carry the average through `lax.scan` and output it at every step, for example `lax.scan(step, xs[0], xs)`, whose first step gives xs[0] back. The result has the shape and dtype of xs.",
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
    "08_scan_purity.running_stats_update.final": "{call}: the final `{quantity}`",
    "08_scan_purity.running_stats_update.called_again": "{call}, called again",
    "08_scan_purity.cumulative_sum.mistake.exclusive": "The values are exactly the running sums shifted by one, starting at 0: each step outputs the total before adding its entry. Output the total after adding it.",
    "08_scan_purity.ema.mistake.starts_at_zero": "The values are exactly the average started at 0: the first output is (1 - decay) * xs[0], not xs[0]. Start the average at the first value.",
    "08_scan_purity.ema.mistake.swapped_weights": "The values are exactly an average with the two weights swapped, (1 - decay) * previous + decay * x: the previous average keeps the weight `decay` and the new value gets 1 - decay.",
    "08_scan_purity.ema.mistake.swapped_weights_from_zero": "The values are exactly an average started at 0 with the two weights swapped: the previous average keeps the weight `decay`, the new value gets 1 - decay, and the average starts at the first value.",
    "08_scan_purity.rnn_forward.mistake.h0_included": "The states are exactly h0, h_1, ..., h_(T-1): each step outputs the state it started from. Output the new state, so that hs holds h_1, ..., h_T.",
    "08_scan_purity.rnn_forward.mistake.no_tanh": "The states are exactly those of the update without tanh: the new state is the linear combination itself. Apply `jnp.tanh` to it.",
    "08_scan_purity.rnn_forward.mistake.relu_for_tanh": "The states are exactly those of the update with ReLU in place of tanh: the exercise's cell applies `jnp.tanh` to the linear combination, which keeps every state between -1 and 1.",
    "08_scan_purity.rnn_forward.mistake.transposed_weights": "The states are exactly those computed with W_h transposed (h @ W_h instead of W_h @ h): the matrix multiplies the state from the left.",
    "08_scan_purity.running_stats_update.mistake.squared_delta": "The new m2 is exactly m2 + delta * delta, with the mean before the update in both factors: Welford's update multiplies delta by x minus the updated mean.",
}

IDEAS: dict[str, str] = {
    "08_scan_purity.cumulative_sum.values": "Carry the running total through `lax.scan` and output it at every step. The first carry must have the type of the carry the step returns (the dtype of x).",
    "08_scan_purity.cumulative_sum.unrolled_fix": "`lax.scan` keeps a single loop body in the program however long x is (a Python loop over x would be unrolled while tracing, one addition per entry).",
    "08_scan_purity.cumulative_sum.use_scan": "this exercise is about `lax.scan`: write the running sum with it (`jnp.cumsum` computes the same values without it).",
    "08_scan_purity.ema.values": "Start the average at the first value, m_0 = xs[0], then m_t = decay * m_(t-1) + (1 - decay) * xs[t]: carry the average through `lax.scan` and output it at every step.",
    "08_scan_purity.ema.keep_traced": "`decay` may be traced, so use it only in array arithmetic inside the scan step, never as a Python number or a static argument.",
    "08_scan_purity.ema.use_scan": "this exercise is about `lax.scan`: carry the average with it.",
    "08_scan_purity.rnn_forward.values": "Scan over the rows of xs with the hidden state as the carry: each step applies the tanh update of the exercise and outputs the new state, so h0 is not among the outputs.",
    "08_scan_purity.rnn_forward.unrolled_fix": "A Python loop over the time steps is unrolled while tracing: one copy of the step per row of xs. A JAX loop keeps one loop body however long the sequence is.",
    "08_scan_purity.rnn_forward.vmap_fix": "Under `jax.vmap(rnn_forward, in_axes=(None, 0, 0))`, rnn_forward sees one sequence and one initial state at a time, with params shared: write it for one sequence, with no batch axis.",
    "08_scan_purity.running_stats_update.values": "One step of Welford's algorithm: count' = count + 1, delta = x - mean, mean' = mean + delta / count', m2' = m2 + delta * (x - mean'), returned as a new dict of float32 scalars with the same keys, so it can be a scan carry.",
    "08_scan_purity.running_stats_update.impure": "{call} changed the dict passed in ({change}), but a pure function leaves its arguments as they were: build and return a new dict. Under jit the change never reaches the caller, so the same code behaves differently with and without jit.",
    "08_scan_purity.running_stats_update.not_repeatable": "{call} gave a different result when called again with the same arguments. A pure function's result depends only on its arguments: no globals, no state kept from the last call.",
}

APIS: dict[str, tuple[str, ...]] = {
    "08_scan_purity.cumulative_sum.values": ("jax.lax.scan",),
    "08_scan_purity.cumulative_sum.unrolled_fix": ("jax.lax.scan",),
    "08_scan_purity.cumulative_sum.use_scan": ("jax.lax.scan",),
    "08_scan_purity.ema.values": ("jax.lax.scan",),
    "08_scan_purity.ema.keep_traced": ("jax.lax.scan",),
    "08_scan_purity.ema.use_scan": ("jax.lax.scan",),
    "08_scan_purity.rnn_forward.values": ("jax.lax.scan", "jax.numpy.tanh"),
    "08_scan_purity.rnn_forward.unrolled_fix": ("jax.lax.scan", "jax.lax.fori_loop"),
    "08_scan_purity.rnn_forward.vmap_fix": ("jax.vmap(in_axes=...)",),
    "08_scan_purity.running_stats_update.values": ("jax.lax.scan",),
    "08_scan_purity.running_stats_update.impure": ("pure functions (JAX's sharp bits)",),
    "08_scan_purity.running_stats_update.not_repeatable": ("pure functions (JAX's sharp bits)",),
}

# The names of this assignment's own graded properties (its @graded tests', grading.toml's), translated in
# ko.po as every "check_name." key; the kit's common ones ("correct", "jittable"...) are catalog/messages.py's.
CHECK_NAMES: tuple[str, ...] = (
    "uses lax.scan",
    "jittable with decay traced",
    "compiles once for several decay values",
    "program size independent of T",
    "pure",
    "as a lax.scan body gives numpy's mean and variance",
)

# The words this assignment's Korean text keeps in English, beside GLOSSARY.md's list for every assignment:
# the name of the algorithm running_stats_update implements.
KEPT_IN_ENGLISH: tuple[str, ...] = ("welford",)
