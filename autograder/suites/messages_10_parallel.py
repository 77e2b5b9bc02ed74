"""10_parallel: this assignment's own sentences and hints (see catalog/assignment_catalogs.py).

Keys are "10_parallel.<function>.<what>", used in the suite as `text(key, **fields)`. A hint is all three:
its recipe in ENGLISH (may show code), its idea in IDEAS (no line of the solution) and the JAX API
to read about in APIS. After adding keys, run `autograder i18n sync` and translate the new entries
it adds to autograder/catalog/locale/ko.po.
"""

ENGLISH: dict[str, str] = {
    "10_parallel.convolve.values": "out[i] = x[i] * w[0] + x[i+1] * w[1] + x[i+2] * w[2] for i from 0 to n - 3: add three shifted slices, `x[:-2] * w[0] + x[1:-1] * w[1] + x[2:] * w[2]` (or `jnp.convolve(x, w[::-1], mode=\"valid\")`: NumPy's convolution flips the kernel).",
    "10_parallel.convolve.unrolled_fix": "A Python loop over the positions is unrolled while tracing: one copy of the sum per output entry. Write the whole output at once with three shifted slices of x.",
    "10_parallel.convolve_on_devices.values": "Row k of the result is `convolve(xs[k], ws[k])`: map `convolve` over the rows with `jax.pmap(convolve)(xs, ws)`, which runs row k on device k (there are exactly `jax.device_count()` rows).",
    "10_parallel.convolve_on_devices.spread": "The rows must end up one per device. A Python loop over the devices (or `jax.vmap`) computes every row in one place; `jax.pmap(convolve)(xs, ws)` runs row k on device k and returns an array split by rows over all devices.",
    "10_parallel.shard_rows.spread": "`jax.device_put(x)` without a sharding leaves the whole array on one device. Place it with a sharding: `jax.device_put(x, NamedSharding(jax.make_mesh((jax.device_count(),), (\"data\",)), P(\"data\")))`, so each device holds rows / device_count rows.",
    "10_parallel.global_mean.values": "Inside `jax.shard_map` over the \"data\" mesh each device sees only its own rows: add its rows and count them, then `lax.psum(..., \"data\")` both over the devices, and divide the total sum by the total count (`out_specs=P()`: the result is the same on every device).",
    "10_parallel.global_mean.collective": "The devices must combine their partial sums: a `lax.psum` (or `lax.pmean`) over the \"data\" axis inside `jax.shard_map` is that all-reduce. Without it each device only knows its own rows.",
    "10_parallel.data_parallel_step.values": "Loss and gradient of the whole batch at the old params: with `jax.pmap(step, axis_name=\"i\", in_axes=(None, 0, 0))` over `xs.reshape(d, -1)`, each device computes `jax.value_and_grad` of its shard's MSE and `lax.pmean(..., \"i\")` averages both losses and gradients; then `new = params - learning_rate * grad` leaf by leaf, the same on every device.",
    "10_parallel.data_parallel_step.replicated": "The new parameters must be the same on every device (replicated): average the gradients over the devices (`lax.pmean`) before the update, so every device applies the same step.",
    "10_parallel.data_parallel_step.collective": "The devices must agree on one gradient: `lax.pmean` (or `lax.psum` and a division) of the per-device gradients over the device axis is that all-reduce.",
    "10_parallel.global_mean.mistake.no_collective": "The value is exactly the mean of one device's rows: `jnp.mean` inside `shard_map` sees only that device's shard. Add the partial sums and counts over the devices with `lax.psum(..., \"data\")`.",
    "10_parallel.global_mean.mistake.means_summed": "The value is exactly the device count times the mean: `lax.psum` adds the devices' means. Divide by the device count (`lax.pmean` does), or psum the sums and the counts and divide those.",
    "10_parallel.data_parallel_step.mistake.gradients_not_averaged": "The new parameters are exactly one device's step, taken with the gradient of its own shard only: the losses are averaged but not the gradients. Average the gradients over the devices with `lax.pmean` before the update.",
    "10_parallel.data_parallel_step.mistake.gradients_averaged_twice": "The step is exactly the device count times too large: inside `shard_map` the gradient of the `pmean`ed loss with respect to replicated params is already summed over the devices, and a further `lax.pmean` of those gradients multiplies it by the device count. Differentiate the averaged loss and use its gradient as it is.",
}

IDEAS: dict[str, str] = {
    "10_parallel.convolve.values": "Each output entry is a weighted sum of three neighbouring inputs. Compute all of them at once with shifted slices of the whole array, not position by position.",
    "10_parallel.convolve.unrolled_fix": "A Python loop over the positions is unrolled while tracing: one copy of the sum per output entry. Write the whole output at once with array operations.",
    "10_parallel.convolve_on_devices.values": "Row k of the result is the convolution of row k of xs with row k of ws. Map the one-row function over the rows with a transformation that puts each row on its own device.",
    "10_parallel.convolve_on_devices.spread": "The rows must end up one per device. A Python loop over the rows, or `jax.vmap` (which maps over a batch inside one program), computes every row in one place; a transformation that maps over devices places row k on device k.",
    "10_parallel.shard_rows.spread": "Placing an array without a sharding leaves it whole on one device. Give the placement a sharding over a one-axis mesh of every device that splits the rows.",
    "10_parallel.global_mean.values": "Inside `shard_map` each device sees only its own rows: each adds and counts its rows, a collective adds those over the devices, and the mean is the total sum over the total count.",
    "10_parallel.global_mean.collective": "The devices must combine their partial results with a collective (an all-reduce over the mesh axis) inside `shard_map`; without one each device only knows its own rows.",
    "10_parallel.data_parallel_step.values": "One step of the linear model on the whole batch: each device takes the loss and gradient of its shard, the devices average both, and every device applies the same update.",
    "10_parallel.data_parallel_step.replicated": "The new parameters must be the same on every device: every device must apply the same, averaged gradient.",
    "10_parallel.data_parallel_step.collective": "The devices must agree on one gradient: a collective average of the per-device gradients over the device axis.",
}

APIS: dict[str, tuple[str, ...]] = {
    "10_parallel.convolve.values": ("array slicing", "jax.numpy.convolve"),
    "10_parallel.convolve.unrolled_fix": ("array slicing",),
    "10_parallel.convolve_on_devices.values": ("jax.pmap",),
    "10_parallel.convolve_on_devices.spread": ("jax.pmap",),
    "10_parallel.shard_rows.spread": ("jax.device_put", "jax.sharding.NamedSharding", "jax.make_mesh"),
    "10_parallel.global_mean.values": ("jax.shard_map", "jax.lax.psum"),
    "10_parallel.global_mean.collective": ("jax.lax.psum", "jax.lax.pmean"),
    "10_parallel.data_parallel_step.values": ("jax.pmap", "jax.lax.pmean", "jax.value_and_grad"),
    "10_parallel.data_parallel_step.replicated": ("jax.lax.pmean",),
    "10_parallel.data_parallel_step.collective": ("jax.lax.pmean", "jax.lax.psum"),
}

# The names of this assignment's own graded properties (its @graded tests', grading.toml's), translated in
# ko.po as every "check_name." key; the kit's common ones ("correct", "jittable"...) are catalog/messages.py's.
CHECK_NAMES: tuple[str, ...] = (
    "no Python loop over n",
    "one row per device",
    "values unchanged",
    "split by rows over every device",
    "uses a collective",
    "equals the single-device step",
    "new params replicated on every device",
)

# The words this assignment's Korean text keeps in English, beside GLOSSARY.md's list for every assignment:
# JAX's sharding words (장치 stays the word for device).
KEPT_IN_ENGLISH: tuple[str, ...] = ("collective", "collectives", "all", "reduce", "mesh", "shard", "shards", "sharding")
