"""06_prng: this assignment's own sentences and hints (see catalog/assignment_catalogs.py)."""

ENGLISH: dict[str, str] = {
    "06_prng.generate_linear_samples.recipe": "Follow the recipe exactly; the split order matters: `key_x, key_noise = jax.random.split(key)` (first child for x, second for the noise), `x = jax.random.uniform(key_x, (n_samples,))`, `y = slope * x + intercept + noise_scale * jax.random.normal(key_noise, x.shape)`, return `(x, y)` as float32 arrays.",
    "06_prng.generate_linear_samples.key_reuse": "x and the noise need two different keys: split once with `key_x, key_noise = jax.random.split(key)` and use each child exactly once, never `key` itself again. With one key for both draws the noise is not independent of x: it is a function of x.",
    "06_prng.generate_linear_samples.not_reproducible": "{call} returned different values in two calls with the same key, so its randomness does not come from the key. Draw x and the noise with `jax.random.uniform` and `jax.random.normal` from the children of `key`, not with `np.random` (NumPy's hidden global state changes on every call).",
    "06_prng.init_mlp_params.recipe": "Follow the recipe exactly: `keys = jax.random.split(key, len(layer_widths) - 1)`, and layer i uses `keys[i]`: `{{\"weights\": jax.random.normal(keys[i], (n_in, n_out)) * jnp.sqrt(2 / n_in), \"biases\": jnp.ones(n_out)}}`; return the list of layer dicts in layer order.",
    "06_prng.init_mlp_params.key_reuse": "Each layer needs its own key: split once with `keys = jax.random.split(key, len(layer_widths) - 1)` and give `keys[i]` to layer i. `jax.random.normal` is a pure function of its key and shape, so layers that share a key and a shape get identical weights.",
    "06_prng.init_mlp_params.identical_layers": "{call}: layers {first} and {second} both have shape {shape} and identical weights, so they were drawn from the same key (`jax.random.normal` is a pure function of its key and shape). Give each layer its own key: `keys = jax.random.split(key, len(layer_widths) - 1)`, and layer i uses `keys[i]`.",
    "06_prng.init_mlp_params.key_ignored": "{call} returned the same weights for two different keys, so they do not depend on the key argument. Draw them from the key you are given: `keys = jax.random.split(key, len(layer_widths) - 1)`, and layer i uses `keys[i]`, not a fixed `jax.random.key(0)` or `np.random`.",
    "06_prng.dropout.recipe": "Follow the recipe exactly: `keep = jax.random.bernoulli(key, 1 - rate, x.shape)` (True, i.e. kept, with probability 1 - rate), then `jnp.where(keep, x / (1 - rate), 0)`, with the dtype of x.",
    "06_prng.dropout.not_reproducible": "{call} returned different outputs in two calls with the same key, so the mask does not come from the key. Draw it with `jax.random.bernoulli(key, 1 - rate, x.shape)`, not with `np.random`: NumPy's hidden state changes on every call (and under `jax.jit` it is frozen into the compiled program).",
    "06_prng.dropout.key_ignored": "{call} returned the same output for two different keys, so the mask does not depend on the key argument. Draw it from the key you are given with `jax.random.bernoulli(key, 1 - rate, x.shape)`, not from a fixed `jax.random.key(0)` or `np.random`.",
    "06_prng.dropout.traced_rate": "Under `jax.jit` `rate` is traced, so it cannot decide a Python `if`. Compute with it instead: `jax.random.bernoulli(key, 1 - rate, x.shape)` and `jnp.where(keep, x / (1 - rate), 0)` already give x back when rate is 0.",
    "06_prng.random_walk.recipe": "Follow the recipe exactly: `steps = 2 * jax.random.bernoulli(key, 0.5, (num_steps,)).astype(jnp.int32) - 1` (one call draws all the coin flips), then return `jnp.cumsum(steps)`, an int32 array of shape (num_steps,).",
    "06_prng.random_walk.key_reuse": "One `jax.random.bernoulli(key, 0.5, (num_steps,))` call draws all num_steps coin flips with a single use of the key. Calling a random function once per step with the same key repeats the same flip every time.",
    "06_prng.random_walk.not_reproducible": "{call} returned different walks in two calls with the same key, so its steps do not come from the key. Draw them with `jax.random.bernoulli(key, 0.5, (num_steps,))`, not with `np.random` (NumPy's hidden global state changes on every call).",
    "06_prng.random_walk.not_unit_steps": "{call}: {count} of {total} steps (differences between consecutive positions, starting from 0) are not +1 or -1; the first is step {index}, which is {value}. Turn the coin flips into steps with `2 * jax.random.bernoulli(key, 0.5, (num_steps,)).astype(jnp.int32) - 1`.",
    "06_prng.random_walk.vmap_fix": "This check runs `jax.vmap(random_walk, in_axes=(0, None))` over {batch} keys, so inside random_walk the key and the drawn values are traced. Draw all steps with one `jax.random.bernoulli(key, 0.5, (num_steps,))` call and turn them into +1/-1 with array operations (`2 * b - 1` or `jnp.where`), with no Python loop, `if` or `int()` on drawn values.",
    "06_prng.random_walk.vmap_identical": "{call}: all {batch} keys gave the same walk, so the walk does not depend on the key (NumPy's `np.random`, or a fixed key inside the function). Draw the steps from the key argument with `jax.random.bernoulli(key, 0.5, (num_steps,))`; under `jax.vmap` every key then gives its own walk.",
    "06_prng.random_walk.vmap_mean": "{call}: the mean final position over {batch} walks of {num_steps} steps is {mean:.3g}, but it should be within {tolerance:.3g} of 0 (the check's tolerance for a fair walk). Each step must be +1 or -1 with probability 1/2 each: `2 * jax.random.bernoulli(key, 0.5, (num_steps,)).astype(jnp.int32) - 1`.",
}

IDEAS: dict[str, str] = {
    "06_prng.generate_linear_samples.recipe": "the values must come from the exact recipe: split the key into one child for x and one for the noise, in that order, and draw x uniform and the noise normal, each from its own child.",
    "06_prng.generate_linear_samples.key_reuse": "x and the noise need two different keys: drawing both from one key makes them depend on each other. Split the key and use each child exactly once.",
    "06_prng.generate_linear_samples.not_reproducible": "{call} returned different values in two calls with the same key, so its randomness does not come from the key. Draw everything with `jax.random` from the key you are given, not from NumPy's hidden global state.",
    "06_prng.init_mlp_params.recipe": "the values must come from the exact recipe: split the key once into one child per layer, layer i drawing normal weights from child i, with the scaling and biases the exercise gives, in layer order.",
    "06_prng.init_mlp_params.key_reuse": "Each layer needs its own key: a random function of JAX is a pure function of its key, so the same key gives the same weights. Split the key once into one child per layer.",
    "06_prng.init_mlp_params.identical_layers": "{call}: layers {first} and {second} both have shape {shape} and identical weights, so they were drawn from the same key. Give each layer its own key: split the key once into one child per layer.",
    "06_prng.init_mlp_params.key_ignored": "{call} returned the same weights for two different keys, so they do not depend on the key argument. Draw them from the key you are given, not from a fixed key.",
    "06_prng.dropout.recipe": "the mask must follow the exact recipe: keep each entry with probability 1 - rate, drawn from the key; scale the kept entries by 1 / (1 - rate), zero the rest, and keep the dtype of x.",
    "06_prng.dropout.not_reproducible": "{call} returned different outputs in two calls with the same key, so the mask does not come from the key. Draw it with `jax.random` from the key you are given, not from NumPy's hidden global state.",
    "06_prng.dropout.key_ignored": "{call} returned the same output for two different keys, so the mask does not depend on the key argument. Draw it from the key you are given, not from a fixed key.",
    "06_prng.dropout.traced_rate": "Under `jax.jit` `rate` is traced, so it cannot decide a Python `if`: use it only in array arithmetic.",
    "06_prng.random_walk.recipe": "the walk must follow the exact recipe: one call draws all the coin flips from the key, each flip becomes an int32 step of +1 or -1, and the positions are the running sum of the steps.",
    "06_prng.random_walk.key_reuse": "Drawing once per step with the same key repeats the same coin flip. One call can draw all num_steps flips with a single use of the key.",
    "06_prng.random_walk.not_reproducible": "{call} returned different walks in two calls with the same key, so its steps do not come from the key. Draw them with `jax.random` from the key you are given, not from NumPy's hidden global state.",
    "06_prng.random_walk.not_unit_steps": "{call}: {count} of {total} steps (differences between consecutive positions, starting from 0) are not +1 or -1; the first is step {index}, which is {value}. Map each coin flip to +1 or -1.",
    "06_prng.random_walk.vmap_fix": "This check runs `jax.vmap(random_walk, in_axes=(0, None))` over {batch} keys, so inside random_walk the key and the drawn values are traced: no Python loop, `if` or `int()` on drawn values; array operations only.",
    "06_prng.random_walk.vmap_identical": "{call}: all {batch} keys gave the same walk, so the walk does not depend on the key. Draw the steps from the key argument; under `jax.vmap` every key then gives its own walk.",
    "06_prng.random_walk.vmap_mean": "{call}: the mean final position over {batch} walks of {num_steps} steps is {mean:.3g}, but it should be within {tolerance:.3g} of 0 (the check's tolerance for a fair walk). Each step must be +1 or -1 with probability 1/2 each.",
}

APIS: dict[str, tuple[str, ...]] = {
    "06_prng.generate_linear_samples.recipe": ("jax.random.split", "jax.random.uniform", "jax.random.normal"),
    "06_prng.generate_linear_samples.key_reuse": ("jax.random.split",),
    "06_prng.generate_linear_samples.not_reproducible": ("jax.random.uniform", "jax.random.normal"),
    "06_prng.init_mlp_params.recipe": ("jax.random.split", "jax.random.normal"),
    "06_prng.init_mlp_params.key_reuse": ("jax.random.split",),
    "06_prng.init_mlp_params.identical_layers": ("jax.random.split",),
    "06_prng.init_mlp_params.key_ignored": ("jax.random.split",),
    "06_prng.dropout.recipe": ("jax.random.bernoulli", "jax.numpy.where"),
    "06_prng.dropout.not_reproducible": ("jax.random.bernoulli",),
    "06_prng.dropout.key_ignored": ("jax.random.bernoulli",),
    "06_prng.dropout.traced_rate": ("jax.random.bernoulli", "jax.numpy.where"),
    "06_prng.random_walk.recipe": ("jax.random.bernoulli", "jax.numpy.cumsum"),
    "06_prng.random_walk.key_reuse": ("jax.random.bernoulli",),
    "06_prng.random_walk.not_reproducible": ("jax.random.bernoulli",),
    "06_prng.random_walk.not_unit_steps": ("jax.random.bernoulli", "jax.Array.astype"),
    "06_prng.random_walk.vmap_fix": ("jax.vmap", "jax.random.bernoulli"),
    "06_prng.random_walk.vmap_identical": ("jax.random.bernoulli",),
    "06_prng.random_walk.vmap_mean": ("jax.random.bernoulli",),
}

# The names of this assignment's own graded properties (its @graded tests', grading.toml's), translated in
# ko.po as every "check_name." key; the kit's common ones ("correct", "jittable"...) are catalog/messages.py's.
CHECK_NAMES: tuple[str, ...] = (
    "exact match",
    "reproducible for the same key",
    "no key reuse",
    "layers of equal shape differ",
    "same key same output, different keys differ",
    "jittable with rate traced",
    "steps are all +1 or -1",
    "mean over 1000 keys near 0",
)
