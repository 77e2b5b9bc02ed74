"""09_autodiff: this assignment's own sentences and hints (see catalog/assignment_catalogs.py)."""

ENGLISH: dict[str, str] = {
    "09_autodiff.hessian.values": "Differentiate twice, forward over reverse: `jax.jacrev(f)` is the gradient as a function of x, and `jax.jacfwd` of that is the Hessian as a function, `H[i, j] = d²f / dx_i dx_j`, of shape (n, n). Return that function itself, `return jax.jacfwd(jax.jacrev(f))`, without calling it: `hessian(f)(x)` calls it.",
    "09_autodiff.hessian.returns_function": "`hessian(f)` must return a function of x (the Hessian as a function), not an array: the grader calls `hessian(f)(x)` with its own f.",
    "09_autodiff.directional_derivative.values": "`jax.jvp(f, (x,), (v,))` returns `(f(x), J_f(x) @ v)`: it pushes the tangent v through f in forward mode. Return the second of the two, of shape (m,).",
    "09_autodiff.directional_derivative.vector_output": "f returns a vector, and `jax.grad` only differentiates functions with one scalar output. For a vector-valued f use forward mode, `jax.jvp(f, (x,), (v,))` for J @ v (or `jax.vjp` for u @ J, `jax.jacfwd` for the whole Jacobian).",
    "09_autodiff.directional_derivative.jacobian": "no array of {m}·{n} = {elements} elements: the m×n Jacobian of f at x",
    "09_autodiff.directional_derivative.jacobian_fix": "Building the whole Jacobian (`jax.jacfwd(f)(x)`) and multiplying by v stores m·n numbers for m of them. `jax.jvp(f, (x,), (v,))` computes J @ v in forward mode at about the cost of one call of f, and never forms J.",
    "09_autodiff.vector_jacobian_product.values": "`y, pullback = jax.vjp(f, x)` runs f and returns its reverse-mode pullback; `pullback(u)` returns a tuple with `u @ J_f(x)` (shape (n,)) as its one entry.",
    "09_autodiff.vector_jacobian_product.vector_output": "f returns a vector, and `jax.grad` only differentiates functions with one scalar output. For a vector-valued f use reverse mode, `jax.vjp(f, x)` and its pullback for u @ J (or `jax.jvp` for J @ v, `jax.jacrev` for the whole Jacobian).",
    "09_autodiff.vector_jacobian_product.tangent_shape": "`jax.jvp(f, (x,), (u,))` pushes u forward as a tangent of x, but u has the shape of f's output, (m,), not that of x, (n,): J @ v is forward mode, and u @ J is reverse mode. Run `y, pullback = jax.vjp(f, x)` and pull u back with `pullback(u)`.",
    "09_autodiff.vector_jacobian_product.jacobian": "no array of {m}·{n} = {elements} elements: the m×n Jacobian of f at x",
    "09_autodiff.vector_jacobian_product.jacobian_fix": "Building the whole Jacobian (`jax.jacrev(f)(x)`) and multiplying by u stores m·n numbers for n of them. `jax.vjp(f, x)` gives a pullback that computes u @ J in reverse mode at about the cost of one call of f, and never forms J.",
    "09_autodiff.newton_minimize.values": "Each Newton step is `x - jax.grad(f)(x) / jax.grad(jax.grad(f))(x)`, exactly num_steps of them from x0, with derivatives from autodiff (no finite differences: their rounding error shows at these tolerances). Repeat the step with `lax.fori_loop(0, num_steps, lambda i, x: step(x), x0)`.",
    "09_autodiff.newton_minimize.unrolled_fix": "A Python `for` loop over `range(num_steps)` needs num_steps as a Python int (it fails when num_steps is traced), is unrolled into one copy of the step per iteration, and compiles again for every new num_steps. `lax.fori_loop(0, num_steps, body, x0)` accepts a traced num_steps and keeps one loop body.",
    "09_autodiff.newton_minimize.calls": "`newton_minimize(quartic, x0, num_steps)` with num_steps = {steps}",
    "09_autodiff.safe_norm.values": "The value is the Euclidean norm, `jnp.sqrt(jnp.sum(x ** 2))`, a float32 scalar.",
    "09_autodiff.safe_norm.gradient": "`jnp.linalg.norm`'s derivative is x / norm(x), which is 0 / 0 = NaN at x = 0. Decorate safe_norm with `@jax.custom_jvp` and give it a rule with `@safe_norm.defjvp`: from `(x,), (t,)` return `(norm, tangent)` with tangent `jnp.dot(x, t) / norm` where norm > 0 and 0 where it is 0. Guard the division itself, `jnp.where(norm > 0, norm, 1.0)` as the divisor: a `jnp.where` around an unguarded `x / norm` still lets NaN into the gradient.",
    "09_autodiff.safe_norm.use_custom_jvp": "This exercise is about `jax.custom_jvp`: define safe_norm itself with `@jax.custom_jvp` and its rule with `@safe_norm.defjvp` (a `jnp.where` guard inside the function can give the same gradient, but without a custom rule).",
    "09_autodiff.safe_norm.mistake.squared": "The value is exactly the squared norm, the sum of the squares of x: the norm is the square root of that sum.",
}

IDEAS: dict[str, str] = {
    "09_autodiff.hessian.values": "The Hessian is the derivative of the gradient: differentiate twice, forward mode over reverse mode as in JAX's quickstart, and return the resulting function of x without calling it.",
    "09_autodiff.hessian.returns_function": "`hessian(f)` must return a function of x, not an array: the grader calls `hessian(f)(x)` with its own f.",
    "09_autodiff.directional_derivative.values": "A Jacobian-vector product is forward mode: push the tangent v through f together with x, and keep the tangent output.",
    "09_autodiff.directional_derivative.vector_output": "f returns a vector, and `jax.grad` only differentiates functions with one scalar output. For a vector-valued f use forward mode (`jax.jvp`) for J @ v.",
    "09_autodiff.directional_derivative.jacobian_fix": "Building the whole Jacobian and multiplying stores m·n numbers for m of them. Forward mode computes J @ v at about the cost of one call of f, and never forms J.",
    "09_autodiff.vector_jacobian_product.values": "A vector-Jacobian product is reverse mode: run f once to get its pullback, and pull u back through it.",
    "09_autodiff.vector_jacobian_product.vector_output": "f returns a vector, and `jax.grad` only differentiates functions with one scalar output. For a vector-valued f use reverse mode (`jax.vjp`) for u @ J.",
    "09_autodiff.vector_jacobian_product.tangent_shape": "u has the shape of f's output, not that of x, so it cannot be pushed forward as a tangent of x: u @ J is reverse mode. Get f's pullback and pull u back through it.",
    "09_autodiff.vector_jacobian_product.jacobian_fix": "Building the whole Jacobian and multiplying stores m·n numbers for n of them. Reverse mode computes u @ J at about the cost of one call of f, and never forms J.",
    "09_autodiff.newton_minimize.values": "A Newton step divides the first derivative by the second, both from autodiff (grad of grad), and is repeated exactly num_steps times from x0, with a JAX loop.",
    "09_autodiff.newton_minimize.unrolled_fix": "A Python loop over num_steps needs a Python int, is unrolled while tracing and compiles again for every num_steps. A JAX loop accepts a traced bound and keeps one loop body.",
    "09_autodiff.safe_norm.values": "The value is the Euclidean norm of x, a float32 scalar.",
    "09_autodiff.safe_norm.gradient": "The norm's own derivative is 0 / 0 = NaN at x = 0. Give safe_norm a custom derivative rule whose tangent is 0 where the norm is 0, and guard the division itself, not only its result.",
    "09_autodiff.safe_norm.use_custom_jvp": "This exercise is about `jax.custom_jvp`: define safe_norm itself as a custom-JVP function with its own rule.",
}

APIS: dict[str, tuple[str, ...]] = {
    "09_autodiff.hessian.values": ("jax.jacfwd", "jax.jacrev", "jax.hessian"),
    "09_autodiff.hessian.returns_function": ("jax.jacfwd", "jax.jacrev"),
    "09_autodiff.directional_derivative.values": ("jax.jvp",),
    "09_autodiff.directional_derivative.vector_output": ("jax.jvp", "jax.vjp", "jax.jacfwd"),
    "09_autodiff.directional_derivative.jacobian_fix": ("jax.jvp",),
    "09_autodiff.vector_jacobian_product.values": ("jax.vjp",),
    "09_autodiff.vector_jacobian_product.vector_output": ("jax.vjp", "jax.jvp", "jax.jacrev"),
    "09_autodiff.vector_jacobian_product.tangent_shape": ("jax.vjp", "jax.jvp"),
    "09_autodiff.vector_jacobian_product.jacobian_fix": ("jax.vjp",),
    "09_autodiff.newton_minimize.values": ("jax.grad", "jax.lax.fori_loop"),
    "09_autodiff.newton_minimize.unrolled_fix": ("jax.lax.fori_loop",),
    "09_autodiff.safe_norm.values": ("jax.numpy.sqrt", "jax.numpy.sum"),
    "09_autodiff.safe_norm.gradient": ("jax.custom_jvp", "jax.numpy.where"),
    "09_autodiff.safe_norm.use_custom_jvp": ("jax.custom_jvp",),
}

# The names of this assignment's own graded properties (its @graded tests', grading.toml's), translated in
# ko.po as every "check_name." key; the kit's common ones ("correct", "jittable"...) are catalog/messages.py's.
CHECK_NAMES: tuple[str, ...] = (
    "correct for the grader's functions",
    "the returned function is jittable",
    "shape (n, n) and symmetric",
    "jittable with f static",
    "no array of m·n elements (forward mode)",
    "no array of m·n elements (reverse mode)",
    "jittable with num_steps traced",
    "compiles once for several num_steps",
    "program size independent of num_steps",
    "gradient finite, 0 at x = 0",
    "uses jax.custom_jvp",
)

# The words this assignment's Korean text keeps in English, beside GLOSSARY.md's list for every assignment:
# JAX's autodiff vocabulary (students search JAX's documentation with it), and Newton's and Rosenbrock's names.
KEPT_IN_ENGLISH: tuple[str, ...] = (
    "jacobian", "hessian", "forward", "reverse", "mode", "tangent", "tangents", "primal", "primals", "pullback",
    "quickstart", "newton", "rosenbrock",
)
