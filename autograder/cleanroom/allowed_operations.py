"""The operations the clean room runs: every one computes values from values, and nothing else.

A program a student's function exports may hold only these (MLIR's registered
names, dialect included). Anything else is refused when it is loaded, before
it is compiled: an operation that talks to the host or another process
(`stablehlo.infeed` waits for host data that never comes, using no CPU), the
token plumbing such operations need, one that makes shapes dynamic, or one the
list does not know (a new dialect, a new operation). Custom calls are listed
because they are refused separately, with a reason of their own (programs.py).

What is here is what `jax.export` makes of jax.numpy, lax, the transformations
(grad, vmap, jit, checkpoint, shard_map, pmap) and jax.random, on every JAX the
student package supports: the exercises and their correct alternatives.
"""

from __future__ import annotations

# A module, its functions and the calls between them: jit, checkpoint and the derivative programs of
# jax.export put sub-computations in private functions.
_MODULE = frozenset({"builtin.module", "func.func", "func.return", "func.call"})

# Elementwise arithmetic, comparisons, conversions and bit operations (jax.numpy, lax).
_ELEMENTWISE = frozenset({
    "stablehlo.abs", "stablehlo.add", "stablehlo.and", "stablehlo.atan2", "stablehlo.bitcast_convert",
    "stablehlo.cbrt", "stablehlo.ceil", "stablehlo.clamp", "stablehlo.compare", "stablehlo.complex",
    "stablehlo.convert", "stablehlo.cosine", "stablehlo.count_leading_zeros", "stablehlo.divide",
    "stablehlo.exponential", "stablehlo.exponential_minus_one", "stablehlo.floor", "stablehlo.imag",
    "stablehlo.is_finite", "stablehlo.log", "stablehlo.log_plus_one", "stablehlo.logistic", "stablehlo.maximum",
    "stablehlo.minimum", "stablehlo.multiply", "stablehlo.negate", "stablehlo.not", "stablehlo.or",
    "stablehlo.popcnt", "stablehlo.power", "stablehlo.real", "stablehlo.reduce_precision", "stablehlo.remainder",
    "stablehlo.round_nearest_afz", "stablehlo.round_nearest_even", "stablehlo.rsqrt", "stablehlo.select",
    "stablehlo.shift_left", "stablehlo.shift_right_arithmetic", "stablehlo.shift_right_logical", "stablehlo.sign",
    "stablehlo.sine", "stablehlo.sqrt", "stablehlo.subtract", "stablehlo.tan", "stablehlo.tanh", "stablehlo.xor",
})

# Making, reshaping, indexing and updating arrays of static shape (`.at[]`, slicing, jnp.where's broadcasts,
# sort, the tuples of older lowerings). dynamic_slice and dynamic_update_slice take traced offsets, not
# traced sizes: their shapes are static.
_ARRAYS = frozenset({
    "stablehlo.broadcast", "stablehlo.broadcast_in_dim", "stablehlo.concatenate", "stablehlo.constant",
    "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice", "stablehlo.gather", "stablehlo.get_tuple_element",
    "stablehlo.iota", "stablehlo.pad", "stablehlo.reshape", "stablehlo.reverse", "stablehlo.scatter",
    "stablehlo.slice", "stablehlo.sort", "stablehlo.transpose", "stablehlo.tuple",
})

# Reductions, contractions and the linear algebra XLA computes itself.
_REDUCTIONS = frozenset({
    "stablehlo.cholesky", "stablehlo.convolution", "stablehlo.dot", "stablehlo.dot_general", "stablehlo.fft",
    "stablehlo.reduce", "stablehlo.reduce_window", "stablehlo.select_and_scatter", "stablehlo.triangular_solve",
})

# Control flow (lax.cond, lax.switch, while_loop, fori_loop, scan), the barrier jax.checkpoint places, and
# lax.composite (a named sub-computation that XLA runs as its decomposition).
_CONTROL = frozenset({"stablehlo.case", "stablehlo.if", "stablehlo.while", "stablehlo.return",
                      "stablehlo.optimization_barrier", "stablehlo.composite"})

# jax.random's bits (threefry lowers to arithmetic; the rbg implementations to these).
_RANDOM = frozenset({"stablehlo.rng", "stablehlo.rng_bit_generator"})

# Cross-device operations of one program over the runner's own devices (shard_map's psum, pmap), and which
# device a shard runs on. They exchange values inside one XLA computation, not with the host.
_COLLECTIVES = frozenset({
    "stablehlo.all_gather", "stablehlo.all_reduce", "stablehlo.all_to_all", "stablehlo.collective_broadcast",
    "stablehlo.collective_permute", "stablehlo.reduce_scatter", "stablehlo.partition_id", "stablehlo.replica_id",
})

# CHLO: JAX's lowering of special functions and a few composites, all arithmetic that expands to StableHLO.
_CHLO = frozenset({
    "chlo._asin_acos_kernel", "chlo.acos", "chlo.acosh", "chlo.asin", "chlo.asinh", "chlo.atan", "chlo.atanh",
    "chlo.bessel_i1e", "chlo.broadcast_add", "chlo.broadcast_and", "chlo.broadcast_atan2", "chlo.broadcast_compare",
    "chlo.broadcast_complex", "chlo.broadcast_divide", "chlo.broadcast_maximum", "chlo.broadcast_minimum",
    "chlo.broadcast_multiply", "chlo.broadcast_next_after", "chlo.broadcast_or", "chlo.broadcast_polygamma",
    "chlo.broadcast_power", "chlo.broadcast_remainder", "chlo.broadcast_select", "chlo.broadcast_shift_left",
    "chlo.broadcast_shift_right_arithmetic", "chlo.broadcast_shift_right_logical", "chlo.broadcast_subtract",
    "chlo.broadcast_xor", "chlo.broadcast_zeta", "chlo.conj", "chlo.constant", "chlo.constant_like", "chlo.cosh",
    "chlo.digamma", "chlo.erf", "chlo.erf_inv", "chlo.erfc", "chlo.is_inf", "chlo.is_neg_inf", "chlo.is_pos_inf",
    "chlo.lgamma", "chlo.mulhi", "chlo.next_after", "chlo.polygamma", "chlo.ragged_dot", "chlo.sinh",
    "chlo.square", "chlo.tan", "chlo.top_k", "chlo.zeta",
})

# Shardy (JAX 0.7 and newer): the partitioner's annotations of meshes, shardings and shard_map's bodies, and
# the collectives it derives from them. Before 0.7 the same annotations are custom calls (programs.py).
_SHARDY = frozenset({
    "sdy.all_gather", "sdy.all_reduce", "sdy.all_slice", "sdy.all_to_all", "sdy.collective_permute",
    "sdy.constant", "sdy.data_flow_edge", "sdy.func_data_flow_edge", "sdy.manual_computation", "sdy.mesh",
    "sdy.named_computation", "sdy.propagation_barrier", "sdy.reduce_scatter", "sdy.reshard", "sdy.return",
    "sdy.sharding_constraint", "sdy.sharding_group",
})

# Refused with reasons of their own (programs.py), so listed here to be told apart from the unknown.
CUSTOM_CALL = "stablehlo.custom_call"

ALLOWED_OPERATIONS = (_MODULE | _ELEMENTWISE | _ARRAYS | _REDUCTIONS | _CONTROL | _RANDOM | _COLLECTIVES | _CHLO
                      | _SHARDY | {CUSTOM_CALL})

# Not allowed, named so that the refusal is not a surprise to whoever reads the list: each waits for, or
# sends to, the host or another process (infeed, outfeed, send, recv, and the tokens that order them), or
# makes shapes dynamic (the grader exports with concrete shapes: module_walk refuses unknown sizes too).
NEVER_RUN = frozenset({
    "stablehlo.infeed", "stablehlo.outfeed", "stablehlo.send", "stablehlo.recv", "stablehlo.create_token",
    "stablehlo.after_all",
    "stablehlo.dynamic_broadcast_in_dim", "stablehlo.dynamic_conv", "stablehlo.dynamic_gather",
    "stablehlo.dynamic_iota", "stablehlo.dynamic_pad", "stablehlo.dynamic_reshape", "stablehlo.real_dynamic_slice",
    "stablehlo.get_dimension_size", "stablehlo.set_dimension_size",
})
