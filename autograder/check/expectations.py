"""Assertions about how a submission compiles: structure, size and trace counts."""

from __future__ import annotations

from typing import Iterable

from autograder.catalog import messages
from autograder.check.retrace_explanations import explain
from autograder.check.submission import JaxprFacts, TraceReport


def assert_uses_primitive(facts: JaxprFacts, any_of: Iterable[str], *, function: str, construct: str, why: str) -> None:
    """The jaxpr contains at least one of the primitives `any_of`."""
    wanted = set(any_of)
    if not wanted & facts.primitives:
        raise AssertionError(messages.text(
            "check.primitive_missing", function=function, construct=construct,
            primitives="` or `".join(sorted(wanted)), why=why))


HOST_CALLBACKS = frozenset({"pure_callback", "io_callback", "debug_callback", "callback"})


def assert_no_host_callbacks(facts: JaxprFacts, *, function: str) -> None:
    """No callback into Python: compiled code must not escape the trace to compute its result."""
    found = facts.primitives & HOST_CALLBACKS
    if found:
        raise AssertionError(messages.text("check.host_callback", function=function,
                                           primitives=", ".join(sorted(found))))


def assert_not_unrolled(small: JaxprFacts, large: JaxprFacts, *, function: str, n_small: int, n_large: int,
                        fix: str) -> None:
    """Program size does not grow with the input size."""
    if large.equation_count > small.equation_count:
        raise AssertionError(messages.text(
            "check.unrolled", function=function, small=small.equation_count, large=large.equation_count,
            n_small=n_small, n_large=n_large, fix=fix))


def assert_trace_count(report: TraceReport, expected: int, *, call_sequence: str, fix: str = "") -> None:
    """Exactly `expected` traces; on failure, the `fix` and, for extra traces, why JAX traced again."""
    if report.traces == expected:
        return
    feedback = messages.text("check.trace_count", call_sequence=call_sequence, actual=report.traces, expected=expected)
    if fix:
        feedback += " " + fix
    if report.traces > expected and (explained := explain(report.explanations)):
        feedback += "\n" + explained
    raise AssertionError(feedback)
