"""07_vmap_pytrees: this assignment's own sentences and hints (see catalog/assignment_catalogs.py)."""

ENGLISH: dict[str, str] = {
    "07_vmap_pytrees.pairwise_distances.values": "Entry [i, j] is the Euclidean distance between the rows xs[i] and ys[j]. Write it for one pair of rows, `jnp.sqrt(jnp.sum((x - y) ** 2))`, and map it over both inputs: `jax.vmap(jax.vmap(distance, in_axes=(None, 0)), in_axes=(0, None))(xs, ys)` has shape (n, m) (broadcasting `xs[:, None, :] - ys[None, :, :]` works too).",
    "07_vmap_pytrees.pairwise_distances.equal_rows": "Where a row of xs equals a row of ys the distance is 0 (within 1e-3), but here it is NaN or not 0. One common cause is the expansion `|x|**2 + |y|**2 - 2 * x @ y`: for equal rows it cancels to a rounding error of either sign, whose square root is NaN or far from 0. Compute the distance from the difference of the rows, `jnp.sqrt(jnp.sum((x - y) ** 2))`.",
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
    "07_vmap_pytrees.pairwise_distances.mistake.squared": "The values are exactly the squared distances: the square root of the sum of squares is missing.",
    "07_vmap_pytrees.pairwise_distances.mistake.transposed": "The values are exactly the distances with rows and columns swapped: entry [i, j] must be the distance from xs[i] to ys[j], so the inner `vmap` runs over ys and the outer one over xs.",
    "07_vmap_pytrees.batched_predict.mistake.relu_on_last": "The values are exactly the network's outputs with ReLU applied to the last layer too: the last layer is linear, so its negative outputs must stay negative.",
    "07_vmap_pytrees.batched_predict.mistake.tanh_hidden": "The values are exactly the network's outputs with `tanh` as the activation of the hidden layers: the exercise's hidden layers apply ReLU (`jax.nn.relu`), and the last layer none.",
}

IDEAS: dict[str, str] = {
    "07_vmap_pytrees.pairwise_distances.values": "Entry [i, j] is the Euclidean distance between the rows xs[i] and ys[j]. Write the distance of one pair of rows, then map it over both inputs (or broadcast the rows against each other).",
    "07_vmap_pytrees.pairwise_distances.equal_rows": "Where a row of xs equals a row of ys the distance is 0 (within 1e-3), but here it is NaN or not 0. One common cause is expanding the square: it cancels large terms, and the square root of a tiny negative number is NaN. Compute the distance from the difference of the rows.",
    "07_vmap_pytrees.pairwise_distances.unrolled_fix": "A Python loop over the rows is unrolled while tracing: the program gets one copy of the distance code per row. Write the distance of one pair of rows and let `jax.vmap` map it.",
    "07_vmap_pytrees.batched_predict.values": "For one example, every layer but the last applies its weights and biases and then relu; the last layer has no relu. Write the prediction for one example and batch it with `jax.vmap`, sharing params with every example.",
    "07_vmap_pytrees.batched_predict.batch_of_one": "A batch of one example still gives shape (1, n_out): `jax.vmap` keeps the batch axis whatever its size, so do not squeeze it away.",
    "07_vmap_pytrees.batched_predict.unrolled_fix": "A Python loop over the examples is unrolled while tracing: one copy of the network per example. Write the prediction for one example and batch it with `jax.vmap`.",
    "07_vmap_pytrees.per_example_grads.values": "Per-example gradients: differentiate the loss of one example with respect to params, then map that gradient over the rows of xs and ys, sharing the whole params pytree with every example.",
    "07_vmap_pytrees.per_example_grads.one_gradient": "{call} returned one gradient for the whole batch: its leaves have the shapes of params, but each needs a leading axis of length {batch}, one gradient per example. Map the gradient of one example over the batch instead of differentiating the batch's loss.",
    "07_vmap_pytrees.per_example_grads.structure": "The result has params' structure (the same dicts, lists and tuples) with a leading batch axis on every leaf. Do not assume the notebook's params: sharing params with `None` in `in_axes` works for any pytree.",
    "07_vmap_pytrees.per_example_grads.unrolled_fix": "A Python loop over the examples is unrolled while tracing: one copy of the gradient computation per example. Map the one-example gradient over the batch with `jax.vmap`.",
    "07_vmap_pytrees.sgd_update.values": "Update every leaf, whatever the structure of params: walk params and grads together, leaf by leaf, with JAX's pytree utilities.",
    "07_vmap_pytrees.sgd_update.structure": "Return a pytree with exactly the structure of params (the same dicts with the same keys, lists and tuples) and leaves of the same dtypes.",
    "07_vmap_pytrees.sgd_update.traced_rate": "Under `jax.jit` learning_rate is traced: use it only in array arithmetic, never as a Python number.",
}

APIS: dict[str, tuple[str, ...]] = {
    "07_vmap_pytrees.pairwise_distances.values": ("jax.vmap(in_axes=...)", "broadcasting"),
    "07_vmap_pytrees.pairwise_distances.equal_rows": ("jax.numpy.sqrt",),
    "07_vmap_pytrees.pairwise_distances.unrolled_fix": ("jax.vmap(in_axes=...)",),
    "07_vmap_pytrees.batched_predict.values": ("jax.vmap(in_axes=...)", "jax.nn.relu"),
    "07_vmap_pytrees.batched_predict.batch_of_one": ("jax.vmap",),
    "07_vmap_pytrees.batched_predict.unrolled_fix": ("jax.vmap(in_axes=...)",),
    "07_vmap_pytrees.per_example_grads.values": ("jax.vmap(in_axes=...)", "jax.grad"),
    "07_vmap_pytrees.per_example_grads.one_gradient": ("jax.vmap(in_axes=...)", "jax.grad"),
    "07_vmap_pytrees.per_example_grads.structure": ("jax.vmap(in_axes=...)", "pytrees"),
    "07_vmap_pytrees.per_example_grads.unrolled_fix": ("jax.vmap(in_axes=...)",),
    "07_vmap_pytrees.sgd_update.values": ("jax.tree.map", "pytrees"),
    "07_vmap_pytrees.sgd_update.structure": ("jax.tree.map", "pytrees"),
    "07_vmap_pytrees.sgd_update.traced_rate": ("jax.jit",),
}

# The names of this assignment's own graded properties (its @graded tests', grading.toml's), translated in
# ko.po as every "check_name." key; the kit's common ones ("correct", "jittable"...) are catalog/messages.py's.
CHECK_NAMES: tuple[str, ...] = (
    "equal rows give 0, not NaN",
    "no Python loop over rows",
    "correct for 1 to 4 layers",
    "batch of one",
    "program size independent of the batch size",
    "correct for the grader's loss functions",
    "params structure preserved",
    "jittable with loss_fn static",
    "correct on hidden pytrees",
    "same tree structure and dtypes as params",
    "jittable with learning_rate traced",
)
