"""How feedback names a call: as the student would write it, arguments by dtype and shape.

One description for the grader's checks, the suites and the student package's
replay, so a call reads the same wherever it is shown; a call made through one
of the kit's harnesses is shown as the harness declares (child/harnesses.py),
never as `function@harness`, which no student can define or call.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from autograder.check.typed_key import TypedKey
from autograder.child.harnesses import HARNESSES


def describe_call(function: str, args: Sequence[Any], kwargs: dict[str, Any]) -> str:
    """`name(f32[17], 3, negate=True)`: how feedback names a call.

    A call through one of the kit's harnesses (`hessian@returned_function`) is shown as the harness
    declares: `hessian(rosenbrock)(f32[7])`.

    Args:
        function: the function's name.
        args: positional arguments (arrays by dtype and shape, scalars by value).
        kwargs: keyword arguments.

    Returns:
        The description.
    """
    name, _, harness = function.partition("@")
    parts = _argument_parts(args, kwargs)
    if harness:
        named = args[0] if args and isinstance(args[0], str) else ""
        rest = parts[1:] if named else parts
        return HARNESSES[harness].shown.format(function=name, named=named, rest=", ".join(rest),
                                               arguments=", ".join(parts))
    return f"{function}({', '.join(parts)})"


def describe_grad_call(function: str, args: Sequence[Any], kwargs: dict[str, Any] | None = None, *,
                       argnums: int | Sequence[int] = 0, arg_names: Sequence[str] | None = None) -> str:
    """How feedback names a gradient check, as the student would write it.

    Args:
        function: the student's function, by name.
        args: its positional arguments (described by shape and dtype).
        kwargs: its keyword arguments, written into the lambda.
        argnums: what `jax.grad` differentiates with respect to.
        arg_names: the lambda's parameter names; by default `x` for one
            argument, else `a, b, c, ...`.

    Returns:
        E.g. `jax.grad(lambda x: safe_log(x).sum())(f32[17])` or
        `jax.grad(lambda a, b: f(a, b).sum(), argnums=(0, 1))(f32[2, 8], f32[2, 8])`.
    """
    names = list(arg_names or (["x"] if len(args) == 1 else [chr(ord("a") + i) for i in range(len(args))]))
    keywords = ", ".join(_argument_parts((), dict(kwargs or {})))
    body = f"{function}({', '.join([*names, keywords] if keywords else names)})"
    grad_options = "" if argnums == 0 else f", argnums={tuple(argnums) if not isinstance(argnums, int) else argnums}"
    return f"jax.grad(lambda {', '.join(names)}: {body}.sum(){grad_options})({', '.join(_argument_parts(args, {}))})"


def student_function(function: str) -> str:
    """The student's own function in a request's name: `hessian` of `hessian@returned_function`."""
    return function.partition("@")[0]


def _argument_parts(args: Sequence[Any], kwargs: dict[str, Any]) -> list[str]:
    return [_describe_value(a) for a in args] + [f"{k}={_describe_value(v)}" for k, v in kwargs.items()]


def _describe_value(value: Any) -> str:
    if isinstance(value, TypedKey):
        return "key" if value.data.ndim <= 1 else f"key{list(value.data.shape[:-1])}"
    if isinstance(value, np.generic):
        return f"{value.item():.4g}" if isinstance(value, np.floating) else repr(value.item())
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return f"{value.dtype.name}({value.item()!r})"
        short = {"float32": "f32", "int32": "i32", "bool": "bool", "uint32": "u32", "float64": "f64",
                 "float16": "f16", "bfloat16": "bf16"}.get(value.dtype.name, value.dtype.name)
        return f"{short}{list(value.shape)}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_describe_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_describe_value(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    return repr(value)
