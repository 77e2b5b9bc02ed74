"""05_grad_aux: this assignment's own sentences and hints (see catalog/assignment_catalogs.py)."""

ENGLISH: dict[str, str] = {
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
    "05_grad_aux.train_step.leaf_unchanged": "One parameter of the new params is exactly its value passed in: the step left it out. Update every leaf of params in the same way (`jax.tree.map` over params and grads), rather than a dict written by hand.",
    "05_grad_aux.fit.not_fed_back": "Every loss is the loss at the params passed in: each step starts again from them, so the result is a single step of training. Feed each step's new params into the next step: `params, loss = train_step(params, x, y, learning_rate)`.",
    "05_grad_aux.fit.loss_after_update": "Every loss is the loss of the next step: it is taken after the update, at the new params. Keep the loss that train_step returns, the loss at the params before its update.",
}

IDEAS: dict[str, str] = {
    "05_grad_aux.loss_with_aux.structure": "`loss_with_aux` returns what `jax.grad(..., has_aux=True)` expects: a pair, the float32 scalar loss first, then a dict of extra outputs with exactly the keys \"predictions\" and \"residuals\".",
    "05_grad_aux.loss_with_aux.values": "the loss is the mean squared error of a linear model: predictions from params, residuals as predictions minus targets (in this order), then the mean (not the sum) of their squares.",
    "05_grad_aux.grad_with_aux.swapped": "`jax.grad(..., has_aux=True)` returns the gradient first, then aux: grad_with_aux returns `(grads, aux)`, in that order.",
    "05_grad_aux.grad_with_aux.value_and_grad": "this is the layout of `jax.value_and_grad(..., has_aux=True)`, which adds the loss; grad_with_aux returns `(grads, aux)`: the gradient and aux, without the loss.",
    "05_grad_aux.grad_with_aux.wrong_argument": "the gradient was taken with respect to the wrong argument: `jax.grad` differentiates with respect to the first argument unless `argnums` says otherwise, and the gradient has the structure of params.",
    "05_grad_aux.grad_with_aux.structure": "grad_with_aux returns `(grads, aux)`: the gradient is taken with respect to params, so grads has params' structure (a dict with the same keys), and aux is what `has_aux=True` passes through.",
    "05_grad_aux.grad_with_aux.values": "grads is the gradient of the mean squared error with respect to params. Let JAX differentiate loss_with_aux instead of writing the derivative by hand (and check that loss_with_aux is right).",
    "05_grad_aux.grad_with_aux.finite_differences": "grads must be the gradient of your own loss_with_aux: let `jax.grad` with `has_aux=True` compute it, not a formula written by hand or a second copy of the loss.",
    "05_grad_aux.grad_with_aux.aux": "aux is passed through unchanged by `has_aux=True`: it is the dict that loss_with_aux returns at the params given.",
    "05_grad_aux.train_step.structure": "train_step returns `(new_params, loss)`: new_params a dict with the same keys as params (\"w\", \"b\"), and loss a float32 scalar.",
    "05_grad_aux.train_step.params": "one gradient-descent step subtracts the learning rate times the gradient from every parameter, leaf by leaf over the params pytree.",
    "05_grad_aux.train_step.old_loss": "return the loss at the params passed in, before the update: the loss that is computed together with the gradient.",
    "05_grad_aux.train_step.retrace": "A training run calls train_step again and again with inputs of the same shapes and dtypes, so it must be traced only once. Every static argument is part of the cache key: a new static value is a new trace and compile. Keep every argument traced.",
    "05_grad_aux.fit.values": "fit feeds each step's result into the next step, num_steps times, keeps the loss of every step (the loss before that update), and returns the final params with a float32 array of the losses.",
    "05_grad_aux.fit.retrace": "fit creates a new jitted function per call or per step: a function object JAX has never seen is traced and compiled again. Jit train_step once, at the top level, and call that same function in fit's loop.",
}

APIS: dict[str, tuple[str, ...]] = {
    "05_grad_aux.loss_with_aux.structure": ("jax.grad(has_aux=True)",),
    "05_grad_aux.loss_with_aux.values": ("jax.numpy.mean",),
    "05_grad_aux.grad_with_aux.swapped": ("jax.grad(has_aux=True)",),
    "05_grad_aux.grad_with_aux.value_and_grad": ("jax.grad(has_aux=True)", "jax.value_and_grad(has_aux=True)"),
    "05_grad_aux.grad_with_aux.wrong_argument": ("jax.grad(argnums=...)",),
    "05_grad_aux.grad_with_aux.structure": ("jax.grad(has_aux=True)",),
    "05_grad_aux.grad_with_aux.values": ("jax.grad(has_aux=True)",),
    "05_grad_aux.grad_with_aux.finite_differences": ("jax.grad(has_aux=True)",),
    "05_grad_aux.grad_with_aux.aux": ("jax.grad(has_aux=True)",),
    "05_grad_aux.train_step.structure": ("jax.value_and_grad(has_aux=True)",),
    "05_grad_aux.train_step.params": ("jax.tree.map", "jax.grad"),
    "05_grad_aux.train_step.old_loss": ("jax.value_and_grad(has_aux=True)",),
    "05_grad_aux.train_step.retrace": ("jax.jit(static_argnums=...)",),
    "05_grad_aux.fit.values": ("jax.numpy.array",),
    "05_grad_aux.fit.retrace": ("jax.jit",),
}

# The names of this assignment's own graded properties (its @graded tests', grading.toml's), translated in
# ko.po as every "check_name." key; the kit's common ones ("correct", "jittable"...) are catalog/messages.py's.
CHECK_NAMES: tuple[str, ...] = (
    "correct values and structure",
    "gradient matches the analytic formula",
    "gradient matches finite differences of loss_with_aux",
    "aux correct",
    "correct new params",
    "loss at the old params",
    "traced once across a training run",
    "correct final params and losses",
    "converges to least squares",
    "train_step traced once in total",
)
