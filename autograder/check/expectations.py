"""Assertions about how a submission compiles: structure, size and trace counts."""

from __future__ import annotations

from typing import Iterable

from autograder.catalog import messages
from autograder.catalog.message_ref import joined
from autograder.check.failure import fail
from autograder.check.jax_error_hints import hint_for
from autograder.check.retrace_explanations import explain
from autograder.check.submission import ProgramFacts, TraceReport
from autograder.protocol.errors import ChildError
from autograder.protocol.program_facts import COLLECTIVES


def assert_uses_primitive(facts: ProgramFacts, any_of: Iterable[str], *, function: str, construct: str,
                          why: str) -> None:
    """The program holds at least one of the operations or constructs `any_of`.

    Args:
        facts: what `expect_jittable` returned (so the program computes the right values).
        any_of: operation or construct names: "cond", "while", "scan", "dot_general"...
            (StableHLO has one loop for `while_loop`, `fori_loop` and `scan`:
            accept all three where any loop will do).
        function: the student's function, for feedback.
        construct: what the exercise asks for, in words ("lax.cond").
        why: the exercise's sentence on why.

    Raises:
        AssertionError: the student reads "<function> must use <construct>, but
            its jaxpr contains no `cond`. <why>".
    """
    wanted = set(any_of)
    if not wanted & facts.primitives:
        raise fail(messages.text(
            "check.primitive_missing", function=function, construct=construct,
            primitives=joined(messages.text("check.primitives_separator"), *sorted(wanted)), why=why))


HOST_CALLBACKS = frozenset({"pure_callback", "io_callback", "debug_callback", "callback"})


def assert_no_host_callbacks(facts: ProgramFacts, *, function: str) -> None:
    """No callback into Python: compiled code must not escape the trace to compute its result.

    `expect_jittable` already checks this; call it where facts come from elsewhere.

    Args:
        facts: the program's facts.
        function: the student's function, for feedback.

    Raises:
        AssertionError: the student reads that the function calls back into
            Python (`pure_callback`, `io_callback`, `jax.debug.print`) and to
            write it with jax.numpy and lax.
    """
    found = facts.primitives & HOST_CALLBACKS
    if found:
        raise fail(messages.text("check.host_callback", function=function,
                                 primitives=", ".join(sorted(found))))


def assert_not_unrolled(small: ProgramFacts, large: ProgramFacts, *, function: str, n_small: int, n_large: int,
                        fix: str) -> None:
    """Program size does not grow with the input size: no Python loop unrolled at trace time.

    Judged per kind of operation, on two facts an unrolled loop cannot escape:
    - it repeats its own operations once per entry, whatever other operations
      the program adds at one size and leaves out at the other (padding that
      shrinks as the input grows hides growth in the total count, never in the
      kinds the loop repeats): no kind may grow;
    - a loop over n entries that emits an operation per entry holds at least n
      operations of that kind at size n, however it is padded (padding with
      the loop's own kind, C - n of them, keeps the count constant, at C >= n):
      at the large size no kind may have `n_large` operations or more. Correct
      programs hold far fewer of any kind (at most 16, measured over the kit's
      solutions and corpus, docs/architecture.md), and the suites draw `n_large`
      well above that (32 or more).
    The feedback says a loop was unrolled only when a kind grew by at least one
    operation per extra entry, or holds one per entry; smaller growth is
    described as it is, with the unrolled loop as one possible cause.

    Args:
        small: facts of the program traced at the small size.
        large: facts of the program traced at the large size.
        function: the student's function, for feedback.
        n_small: the small size, for feedback (drawn per run by the suite: a program cannot be tuned to it).
        n_large: the large size (drawn per run too, above what any correct program holds of one kind).
        fix: the exercise's advice ("use lax.fori_loop").

    Raises:
        AssertionError: the student reads "<function>'s compiled program grows
            with the input size (`scatter`: 3 operations for n=3, 10 for n=10) ... <fix>",
            or "<function>'s compiled program holds 200 `scatter` operations for n=81 entries ... <fix>".
    """
    kind, at_small, at_large = _most_grown_kind(small, large)
    growth = at_large - at_small
    if growth > 0:
        # One operation or more per extra entry is the evidence of code run once per entry while tracing
        # (a loop unrolled); less growth has other causes too (`lax.associative_scan`'s log-many levels).
        key = "check.unrolled" if growth >= n_large - n_small else "check.program_grows"
        raise fail(messages.text(
            key, function=function, operation=kind, small=at_small, large=at_large,
            n_small=n_small, n_large=n_large, fix=fix))
    kind, count = _most_frequent_kind(large)
    if count >= n_large:
        raise fail(messages.text("check.unrolled_per_entry", function=function, operation=kind, count=count,
                                 n=n_large, fix=fix))


def _most_grown_kind(small: ProgramFacts, large: ProgramFacts) -> tuple[str, int, int]:
    """The kind of operation whose count grew most from `small` to `large`, and its two counts.

    Facts without counts per kind (none were read) compare their totals, as "operations"."""
    if not small.operation_counts or not large.operation_counts:
        return "operations", small.equation_count, large.equation_count
    before, after = dict(small.operation_counts), dict(large.operation_counts)
    kind = max(sorted(after), key=lambda name: after[name] - before.get(name, 0))
    return kind, before.get(kind, 0), after[kind]


def _most_frequent_kind(facts: ProgramFacts) -> tuple[str, int]:
    """The kind of operation `facts` holds most of, and how many ("", 0 for facts without counts per kind:
    their total says nothing of one kind)."""
    if not facts.operation_counts:
        return "", 0
    return max(sorted(facts.operation_counts), key=lambda pair: pair[1])


def assert_trace_count(report: TraceReport, expected: int, *, call_sequence: str, fix: str = "") -> None:
    """Exactly `expected` traces (prefer `expect_trace_count`, which checks the values first).

    Args:
        report: what `Submission.count_traces` returned.
        expected: how many traces the call sequence should cost.
        call_sequence: the sequence in words, for feedback.
        fix: the exercise's advice.

    Raises:
        AssertionError: the student reads "<call_sequence> traced N times,
            expected M", `fix` and, for extra traces, JAX's explanation of which
            argument changed and why that retraces.
    """
    if report.traces == expected:
        return
    detail = messages.text("check.trace_count", call_sequence=call_sequence, actual=report.traces, expected=expected)
    if report.traces > expected and (explained := explain(report.explanations)):
        detail = joined("\n", detail, explained)
    raise fail(detail, advice=fix)


def assert_no_value_larger_than(facts: ProgramFacts, elements: int, *, function: str, what: str, fix: str) -> None:
    """No value in the program (argument, intermediate or result) has more than `elements` elements.

    For "never materialises the m×n matrix" properties. Taken from the parsed
    program, so it holds for what XLA is given, before any fusion.

    Args:
        facts: what `expect_jittable` returned.
        elements: the most elements any value may have (e.g. `max(m, n) * k`).
        function: the student's function, for feedback.
        what: the value that must not exist ("no m·n matrix of pairwise distances").
        fix: the way around it.

    Raises:
        AssertionError: the student reads "<function>'s compiled program holds
            a value of 4096 elements, more than the 512 allowed (<what>). <fix>".
    """
    if facts.largest_value_elements > elements:
        raise fail(messages.text("check.value_too_large", function=function,
                                 actual=facts.largest_value_elements, limit=elements, what=what, fix=fix))


def assert_uses_collective(facts: ProgramFacts, any_of: Iterable[str] = (), *, function: str, why: str) -> None:
    """The program holds a cross-device operation (one of `any_of`, or any collective if empty).

    For sharding exercises: a sum over a sharded axis must become an
    `all_reduce`, say. The program must have been exported for several
    devices (`facts.nr_devices`).

    Args:
        facts: what `expect_jittable` returned.
        any_of: "all_reduce", "all_gather", "reduce_scatter", "all_to_all",
            "collective_permute", "collective_broadcast"; empty: any of them.
        function: the student's function, for feedback.
        why: the exercise's sentence on what the communication is for.

    Raises:
        AssertionError: the student reads "<function>'s compiled program
            communicates between devices with none of `all_reduce` (it holds
            no communication between devices at all). <why>".
    """
    wanted = frozenset(any_of) or COLLECTIVES
    if not wanted & facts.collectives:
        raise fail(messages.text("check.collective_missing", function=function,
                                 collectives=joined(messages.text("check.primitives_separator"), *sorted(wanted)),
                                 found=", ".join(sorted(facts.collectives))
                                 or messages.text("check.no_collectives"), why=why))


def expected_error_feedback(error: ChildError | None, *, call: str, error_type: str,
                            mentions: str | None = None) -> str | None:
    """What a call that should raise `error_type` did wrong, or None when it raised as expected.

    One decision for the grader's `expect_raises` and the student package's
    replay. The error matches when `error_type` is its type or a base class of
    it and its message contains `mentions`.

    Args:
        error: what the student's side reported (`StudentCodeError.error`), a
            raised exception (ErrorKind.RAISED: other failures keep their own
            feedback); None when the call returned normally.
        call: how feedback names the call (`describe_call`).
        error_type: the expected exception's class name.
        mentions: text its message must contain, or None.

    Returns:
        None when the error is the expected one; else the feedback the student
        reads: "<call> should raise ValueError, but it returned normally" (or
        "it raised TypeError: <first line>", or "<call> raised ValueError, but
        its message '...' does not mention '...'"), then the hint for a JAX error.
    """
    if error is None:
        actual = messages.text("check.returned_instead")
        return messages.text("check.expected_error", call=call, expected=error_type, actual=actual)
    type_names = list(error.mro or (error.type,))
    message = error.message
    first = message.splitlines()[0] if message else ""
    if error_type not in type_names:
        actual = messages.text("check.raised_instead", error_type=error.type, error=first.rstrip("."))
        feedback = messages.text("check.expected_error", call=call, expected=error_type, actual=actual)
    elif mentions is not None and mentions not in message:
        feedback = messages.text("check.error_message", call=call, error_type=error.type,
                                 message=first[:200], needle=mentions)
    else:
        return None
    hint = hint_for(type_names, message)
    return joined("\n", feedback, messages.text("call.hint", hint=hint)) if hint else feedback
