"""Replaying the recorded checks against a student's functions.

Each check of the record is a list of steps: the requests the check made of
the reference solution at release, with its answers, and the suite's own
judgements on them. Replay sends every request through the same
`Submission` (the in-process transport: the student's code in this
process) and compares each answer with the recorded one:

- values: the same structure; each leaf as the grader compared it at
  release (its rtol, atol and dtype rule, its finiteness check, its
  description of the call: the step's "compare"); a leaf the grader did not
  compare as returned, with the same dtype, floats within rtol 1e-4, atol
  1e-5, the rest exactly. A wrong value gets the exercise hints the grader
  gives for a wrong value there (the step's "hints", said from the
  record's "hints" catalog; see student/probing.py), and a value that is
  exactly what a known mistake gives there gets the sentence naming it
  (student/replayed_mistakes.py);
- trace: the function traces with the same static arguments (jittable),
  with no callback into Python;
- count_traces: every call's output as above, and the same number of traces;
- is_jitted: a jitted function where the solution's is one; describe and
  require: the function exists and is callable;
- an error the check expects: raised, of that type (a subclass too), its
  message mentioning what the check asked;
- "uses": the traced program contains one of the constructs the check asks
  for (`cond`, a loop); "not_unrolled": the program of the larger input has
  no more operations than that of the smaller one.

A check passes when every step matches; its feedback is the first mismatch,
in the words of the grader's own assertions and hints, with the exercise's
advice the grader says after a judgement (a suite's `fix=` on a trace count,
an unrolled loop, a missing `jax.jit`: the step's "fix").
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterable

import numpy as np

from autograder.catalog import messages
from autograder.catalog.message_ref import joined
from autograder.check import compare
from autograder.check.calls_shown import describe_call, describe_grad_call
from autograder.check.expectations import (
    assert_no_host_callbacks,
    assert_no_value_larger_than,
    assert_not_unrolled,
    assert_uses_collective,
    expected_error_feedback,
)
from autograder.check.failure import CheckFailed, Failure, failure_of, rebuilt, with_advice
from autograder.check.function_claims import FunctionClaims
from autograder.check.gated_checks import mark_not_checked
from autograder.check.placement_checks import assert_spread
from autograder.check.results import CheckResult
from autograder.check.retrace_explanations import explain
from autograder.check.rounding_relation import rounding_hint
from autograder.check.submission import ProgramFacts, StudentCodeError, Submission
from autograder.check.value_relations import relation_hint
from autograder.protocol.errors import ErrorKind
from autograder.student import jax_support, learned_sentences, recorded, replayed_mistakes
from autograder.student.strings import text

RTOL, ATOL = 1e-4, 1e-5


class Mismatch(CheckFailed):
    """A step's answer differs from the recorded one; its failure is the feedback."""

    def __init__(self, failure: str | Failure):
        super().__init__(failure if isinstance(failure, Failure) else Failure(failure))

    def with_failure(self, failure: Failure) -> Mismatch:
        return Mismatch(failure)


def _advice(step: dict) -> tuple[str, ...]:
    """The exercise's advice the grader says after this judgement, as a failure's advice."""
    fix = _fix(step)
    return (fix,) if fix else ()


def replay(record: dict, arrays: list[np.ndarray], submission: Submission,
           functions: Iterable[str] | None = None, claims: FunctionClaims | None = None) -> list[CheckResult]:
    """Every recorded check of `functions` (default: all), in the record's order, with points. With `claims`
    (a part of a check in two processes), those of each function it takes, in its order of functions."""
    wanted = None if functions is None else set(functions)
    learned_sentences.learn_record(record)
    results = []
    checks = record.get("checks", [])
    if claims is not None:
        checks = sorted(checks, key=lambda check: claims.rank(check["function"]))  # stable: each one's own order
    for check in checks:
        if wanted is not None and check["function"] not in wanted:
            continue
        if claims is not None and not claims.take(check["function"]):
            continue
        points = float(check.get("points", 0))
        try:
            _replay_check(check, arrays, submission)
        except AssertionError as failure:  # StudentCodeError and Mismatch: the feedback
            failed = CheckResult(check["function"], check["prop"], 0.0, points, False, "")
            results.append(failed.failing_with(failure_of(failure)))
        except recorded.RecordError as error:
            feedback = text("student.data_missing", assignment=record.get("assignment"), detail=error)
            results.append(CheckResult(check["function"], check["prop"], 0.0, points, False, feedback))
        except Exception as error:  # a fault of the checks themselves: said, not raised into the notebook
            feedback = text("student.internal_error", error_type=type(error).__name__, error=str(error)[:500],
                            versions=jax_support.versions())
            results.append(CheckResult(check["function"], check["prop"], 0.0, points, False, feedback))
        else:
            results.append(CheckResult(check["function"], check["prop"], points, points, True, ""))
    return mark_not_checked(results)


def _replay_check(check: dict, arrays: list[np.ndarray], submission: Submission) -> None:
    facts: dict[int, ProgramFacts] = {}
    answers: dict[int, Any] = {}  # what the submission answered at each step, for comparisons between steps
    for index, step in enumerate(check.get("steps", [])):
        op = step.get("op")
        if op == "uses":
            _expect_construct(facts[step["step"]], step)
        elif op == "not_unrolled":
            assert_not_unrolled(facts[step["small"]], facts[step["large"]], function=step["function"],
                                n_small=step["n_small"], n_large=step["n_large"], fix=_fix(step))
        elif op == "collective":
            with _advised(step):
                assert_uses_collective(facts[step["step"]], step["any_of"], function=step["function"], why="")
        elif op == "no_value_larger_than":
            with _hinted(step):
                assert_no_value_larger_than(facts[step["step"]], int(step["elements"]), function=step["function"],
                                            what=text("student.value_limit"), fix="")
        else:
            try:
                answer = (_placed(step, arrays, submission) if "placed" in step
                          else _request(step, arrays, submission, answers))
            except StudentCodeError as failure:
                raise _with_error_advice(failure, step) from None
            if isinstance(answer, ProgramFacts):
                facts[index] = answer
            answers[index] = answer


def _request(step: dict, arrays: list[np.ndarray], submission: Submission, answers: dict[int, Any]) -> Any:
    """Make one recorded request of the submission, and check its answer as the recording says."""
    op, function = step["op"], step["function"]
    outcome = step.get("outcome", {})
    if op == "describe":
        found = submission.describe(function)
        if outcome.get("exists") and not found.get("exists") or outcome.get("callable") and not found.get("callable"):
            submission.require(function)  # raises with the usual feedback
        return found
    if op == "require":
        return submission.require(function)
    if op == "is_jitted":
        jitted = submission.is_jitted(function)
        if outcome.get("jitted") and not jitted:
            type_name = submission.describe(function).get("type_name")
            feedback = messages.text("check.not_jitted", function=function, type_name=type_name)
            raise Mismatch(Failure(feedback, advice=_advice(step)))
        return jitted
    if op == "call":
        return _call(step, arrays, submission, answers)
    if op == "trace":
        return _trace(step, arrays, submission)
    if op == "count_traces":
        return _count_traces(step, arrays, submission)
    if op == "program_gradient":
        return _program_gradient(step, arrays, submission)
    if op == "outermost":
        return _outermost(step, arrays, submission)
    raise recorded.RecordError(f"unknown step {op!r}")


def _static_options(step: dict) -> dict:
    options = step.get("options", {})
    return {"static_argnums": tuple(options.get("static_argnums", ())),
            "static_argnames": tuple(options.get("static_argnames", ()))}


def _program_gradient(step: dict, arrays: list[np.ndarray], submission: Submission) -> Any:
    """A recorded gradient of the function's program: finite, and the recorded values."""
    function = step["function"]
    args, kwargs = recorded.decode(step["args"], arrays), recorded.decode(step["kwargs"], arrays)
    _, gradient = submission.program_gradient(function, args, kwargs, **_static_options(step))
    call = described(function, args, kwargs, {"mode": "grad_sum"})
    with _hinted(step, actual=gradient):
        compare.assert_all_finite(gradient, call=call)
        assert_matches(gradient, recorded.decode(step["outcome"]["value"], arrays), call=call)
    return gradient


def _outermost(step: dict, arrays: list[np.ndarray], submission: Submission) -> frozenset[str]:
    """The function is, at the top of its jaxpr, every construct the solution is (a custom rule)."""
    function = step["function"]
    args, kwargs = recorded.decode(step["args"], arrays), recorded.decode(step["kwargs"], arrays)
    names = submission.outermost_primitives(function, args, kwargs, **_static_options(step))
    missing = sorted(set(step["outcome"].get("names", ())) - names)
    if missing:
        raise Mismatch(text("student.construct_missing", call=function, construct=f"`{missing[0]}`",
                            primitives=missing[0]))
    return names


def _call(step: dict, arrays: list[np.ndarray], submission: Submission, answers: dict[int, Any]) -> Any:
    """A recorded call: the submission returns the recorded value, or raises the recorded error."""
    function, outcome = step["function"], step.get("outcome", {})
    expected_error = step.get("expect_error") or ({"type": outcome["error"]["type"], "mentions": None}
                                                 if "error" in outcome else None)
    options = dict(step.get("options", {}))
    args, kwargs = recorded.decode(step["args"], arrays), recorded.decode(step["kwargs"], arrays)
    call = described(function, args, kwargs, options)
    for name in ("static_argnums", "static_argnames"):
        options[name] = tuple(options.get(name, ()))
    for name in ("argnums", "in_axes"):
        if isinstance(options.get(name), list):
            options[name] = tuple(options[name])
    if expected_error is not None:
        return _expect_error(submission, function, args, kwargs, options, expected_error, call, _fix(step))
    actual = submission.call_with(function, args, kwargs, **options)
    expected = recorded.decode(outcome["value"], arrays)
    def in_64_bits() -> str | None:
        return rounding_hint(submission, function, args, kwargs, expected, options)

    with _hinted(step, arrays, actual, expected, args, None if options.get("rows_sharded") else in_64_bits):
        assert_matches(actual, expected, call=call, rules=step.get("compare"), earlier=answers)
    return actual


def _placed(step: dict, arrays: list[np.ndarray], submission: Submission) -> ProgramFacts | None:
    """A recorded `expect_placement` (a plain call: the function called as the student calls it, its outputs
    placed as the grader asks) or `expect_jittable_on_devices` (`jax.jit` of it on this process's devices);
    the recorded value is judged first, as the grader does. The program's facts for the jitted one."""
    function, options = step["function"], step.get("options", {})
    args, kwargs = recorded.decode(step["args"], arrays), recorded.decode(step["kwargs"], arrays)
    rows_sharded = tuple(options.get("rows_sharded", ()))
    call = described(function, args, kwargs, options)
    expected = recorded.decode(step["outcome"]["value"], arrays)
    if options.get("mode") == "jit":
        facts, actual, _ = submission.placed_run(function, args, kwargs, rows_sharded=rows_sharded)
        assert_no_host_callbacks(facts, function=function)
        with _hinted(step, arrays, actual, expected):
            assert_matches(actual, expected, call=call, rules=step.get("compare"))
        return facts
    actual, placements = submission.placed_call(function, args, kwargs, rows_sharded=rows_sharded)
    with _hinted(step, arrays, actual, expected):
        assert_matches(actual, expected, call=call, rules=step.get("compare"))
    spread, axis = step["placed"].get("spread"), step["placed"].get("axis")
    if spread:
        with _advised(step["placed"]):
            try:
                assert_spread(placements, spread, devices=submission.devices, call=call, why="", axis=axis)
            except AssertionError:
                if not _replicated_as_the_grader_sees(step, placements, arrays, submission):
                    raise
    return None


def _replicated_as_the_grader_sees(step: dict, placements: list, arrays: list[np.ndarray],
                                   submission: Submission) -> bool:
    """On a JAX whose `pmap` output indexed by a device lands on that device alone (student/jax_support.py),
    a result the grader's JAX returns replicated: judged on the jitted function, whose outputs that JAX
    returns replicated. Never for a result on the host, which no JAX places on a device."""
    if (step["placed"].get("spread") != "replicated" or jax_support.indexes_pmap_outputs_as_the_grader()
            or any(placement.on_host for placement in placements)):
        return False
    args, kwargs = recorded.decode(step["args"], arrays), recorded.decode(step["kwargs"], arrays)
    rows_sharded = tuple(step.get("options", {}).get("rows_sharded", ()))
    try:
        _, _, jitted = submission.placed_run(step["function"], args, kwargs, rows_sharded=rows_sharded)
        assert_spread(jitted, "replicated", devices=submission.devices, call="", why="")
    except AssertionError:  # StudentCodeError too: it does not jit, so nothing shows it replicated
        return False
    return True


@contextlib.contextmanager
def _advised(step: dict):
    """A failed judgement at `step` ends with the exercise's advice the grader gives there (`_fix`)."""
    try:
        yield
    except AssertionError as failure:
        raise with_advice(failure, *_advice(step)) from None


def _trace(step: dict, arrays: list[np.ndarray], submission: Submission) -> ProgramFacts:
    """A recorded trace: the facts of the submission's program, which may not call back to the host."""
    function, options = step["function"], step.get("options", {})
    args, kwargs = recorded.decode(step["args"], arrays), recorded.decode(step["kwargs"], arrays)
    facts = submission.trace(function, args, kwargs, static_argnums=tuple(options.get("static_argnums", ())),
                             static_argnames=tuple(options.get("static_argnames", ())))
    assert_no_host_callbacks(facts, function=function)
    return facts


def _count_traces(step: dict, arrays: list[np.ndarray], submission: Submission) -> Any:
    """Recorded calls after a warm-up: each returns the recorded value, and JAX traces as often as recorded."""
    function, outcome, options = step["function"], step.get("outcome", {}), step.get("options", {})
    calls = [(tuple(a), dict(k)) for a, k in recorded.decode(step["calls"], arrays)]
    warmup = [(tuple(a), dict(k)) for a, k in recorded.decode(step["warmup"], arrays)]
    report = submission.count_traces(function, calls, warmup=warmup,
                                     static_argnums=tuple(options.get("static_argnums", ())),
                                     static_argnames=tuple(options.get("static_argnames", ())),
                                     count_all=bool(options.get("count_all")))
    first_leaf = 0
    for (args, kwargs), actual, expected in zip(calls, report.outputs, recorded.decode(outcome["outputs"], arrays),
                                             strict=True):
        with _hinted(step, actual=actual, expected=expected):
            assert_matches(actual, expected, call=describe_call(function, args, kwargs),
                           rules=step.get("compare"), first_leaf=first_leaf)
        first_leaf += len(compare.leaves(expected))
    if report.traces != outcome["traces"]:
        sequence = _call_sequence(function, calls)
        detail = messages.text("check.trace_count", call_sequence=sequence, actual=report.traces,
                               expected=outcome["traces"])
        if report.traces > outcome["traces"] and (explained := explain(report.explanations)):
            detail = joined("\n", detail, explained)
        raise Mismatch(Failure(detail, advice=_advice(step)))
    return report


def _expect_error(submission: Submission, function: str, args: tuple, kwargs: dict, options: dict,
                  expected: dict, call: str, fix: str = "") -> None:
    """As the suites' expect_raises (the same decision, check.expectations.expected_error_feedback): the call
    raises `expected["type"]` (or a subclass), mentioning `expected["mentions"]`."""
    try:
        submission.call_with(function, args, kwargs, **options)
    except StudentCodeError as failure:
        error = failure.error
        if error is None or error.kind is not ErrorKind.RAISED or error.is_not_implemented:
            raise
    else:
        error = None
    feedback = expected_error_feedback(error, call=call, error_type=expected["type"], mentions=expected.get("mentions"))
    if feedback is not None:
        raise Mismatch(Failure(feedback, advice=(fix,) if fix else ()))


def _expect_construct(facts: ProgramFacts, step: dict) -> None:
    wanted = set(step["any_of"])
    if not wanted & facts.primitives:
        missing = text("student.construct_missing", call=step["function"], construct=step["construct"],
                       primitives=text("check.primitives_separator").join(sorted(wanted)))
        raise Mismatch(Failure(missing, advice=_advice(step)))


def assert_matches(actual: Any, expected: Any, *, call: str, rules: dict | None = None, first_leaf: int = 0,
                   earlier: dict[int, Any] | None = None) -> None:
    """The same structure as `expected`; each leaf by its rule (the grader's comparison, leaves numbered
    from `first_leaf`), else with the same dtype, floats within rtol 1e-4 / atol 1e-5, the rest exactly.

    A rule with `same_as` (step, leaf) compares the leaf with what the submission itself answered at that
    earlier step (in `earlier`), as the grader compares two of the student's own calls ("the same key gives
    the same samples"), not with the reference's value there."""
    rules = rules or {}
    compare.assert_same_structure(actual, expected, call=rules.get(str(first_leaf), {}).get("call", call))
    for index, (got, want) in enumerate(zip(compare.leaves(actual), compare.leaves(expected), strict=True)):
        rule = rules.get(str(first_leaf + index), {})
        want = _own_answer(rule.get("same_as"), earlier, default=want)
        if rule.get("finite"):
            compare.assert_all_finite(got, call=rule.get("call", call))
        if "rtol" in rule:
            compare.assert_close(got, want, call=rule.get("call", call), rtol=rule["rtol"], atol=rule["atol"],
                                 check_dtype=bool(rule.get("check_dtype")))
            continue
        want_array = np.asarray(want)
        tolerance = (RTOL, ATOL) if want_array.dtype.kind in "fc" else (0.0, 0.0)
        # A Python number where an array was recorded (plain calls only) is compared by value.
        check_dtype = isinstance(got, np.ndarray) and isinstance(want, (np.ndarray, np.generic))
        compare.assert_close(got, want_array, call=call, rtol=tolerance[0], atol=tolerance[1], check_dtype=check_dtype)


def _own_answer(same_as: Any, earlier: dict[int, Any] | None, default: Any) -> Any:
    """The submission's own answer at `same_as` = [step, leaf], where it has one; else `default`."""
    if not (isinstance(same_as, list) and len(same_as) == 2 and earlier and same_as[0] in earlier):
        return default
    leaves = compare.leaves(earlier[same_as[0]])
    return leaves[same_as[1]] if isinstance(same_as[1], int) and 0 <= same_as[1] < len(leaves) else default


@contextlib.contextmanager
def _hinted(step: dict, arrays: list[np.ndarray] | None = None, actual: Any = None, expected: Any = None,
            args: tuple = (), in_64_bits: Callable[[], str | None] | None = None):
    """A wrong value at `step` gets the exercise hints the grader gives there, in its words (those it gives
    for a wrong dtype, "dtype_hints", when `actual` has one); a value that is exactly what a known mistake
    gives (the step's recorded "mistakes") gets the sentence naming it instead of the check's own hint, as
    expect_output says it (advice said before it stays); otherwise how the value relates to the recorded one
    (check/value_relations.py), when a relation holds, comes before the exercise's hints, as in grading; with
    none, `in_64_bits` (check/rounding_relation.py) says whether the code is right in 64 bits."""
    try:
        yield
    except AssertionError as failure:
        retyped = "dtype_hints" in step and _other_dtype(actual, expected)
        broken = "non_finite_hints" in step and _not_finite(actual)
        hints = list(step.get("non_finite_hints" if broken else "dtype_hints" if retyped else "hints") or ())
        mistake = replayed_mistakes.named(actual, step.get("mistakes"), arrays or [])
        if mistake is not None:
            hints = [hint for hint in hints if not hint.get("wrapped")] + [{"key": mistake, "wrapped": True}]
        related = None if mistake is not None or actual is None else relation_hint(actual, expected, args)
        if related is None and mistake is None and actual is not None and in_64_bits is not None:
            related = in_64_bits()
        if not hints and not related and not step.get("values_gate"):
            raise
        advice = [messages.text(hint["key"]) for hint in hints if not hint.get("wrapped")]
        said = failure_of(failure).advised(*advice).hinted(related, *(messages.text(hint["key"]) for hint in hints
                                                                      if hint.get("wrapped")))
        raise rebuilt(failure, said.as_wrong_values() if step.get("values_gate") else said) from None


def _not_finite(actual: Any) -> bool:
    """Whether a floating array of `actual` holds a NaN or an infinity."""
    return any(isinstance(leaf, (np.ndarray, np.generic)) and np.asarray(leaf).dtype.kind in "fc"
               and not np.all(np.isfinite(leaf)) for leaf in compare.leaves(actual))


def _other_dtype(actual: Any, expected: Any) -> bool:
    """Whether an array of `actual` has another dtype than the recorded one in its place (same structure)."""
    got, want = compare.leaves(actual), compare.leaves(expected)
    if len(got) != len(want):
        return False
    arrays = (np.ndarray, np.generic)
    return any(isinstance(g, arrays) and isinstance(w, arrays) and g.dtype != w.dtype
               for g, w in zip(got, want, strict=True))


def _with_error_advice(failure: StudentCodeError, step: dict) -> StudentCodeError:
    """`failure` with the exercise's advice the grader adds to an exception the student's code raised at
    `step` (the step's "error_advice"): said before the error's own hint, or as a hint, as there."""
    error, advice = failure.error, step.get("error_advice") or ()
    if not advice or error is None or error.kind is not ErrorKind.RAISED or error.is_not_implemented:
        return failure
    plain = [messages.text(entry["key"]) for entry in advice if not entry.get("wrapped")]
    wrapped = [messages.text(entry["key"]) for entry in advice if entry.get("wrapped")]
    return failure.with_failure(failure.failure.advised(*plain).hinted(*wrapped))


def _fix(step: dict) -> str:
    """The exercise's advice the grader says after this judgement (the suite's `fix=`), in the notebook's
    language; empty when it gives none."""
    return " ".join(messages.text(hint["key"]) for hint in step.get("fix") or ())




def described(function: str, args: tuple, kwargs: dict, options: dict) -> str:
    """The call as the grader names it: `jit(f(f32[8]))`, `jax.grad(lambda x: f(x).sum())(f32[8])`."""
    mode = options.get("mode", "plain")
    call = describe_call(function, args, kwargs)
    if mode == "plain":
        return call
    if mode == "grad_sum":  # as the suites' describe_grad_call names it
        argnums = options.get("argnums", 0)
        return describe_grad_call(function, args, kwargs, argnums=tuple(argnums) if isinstance(argnums, list)
                                  else argnums)
    return f"{mode}({call})"  # as the suites' expect_output names it


def _call_sequence(function: str, calls: list) -> str:
    described = [describe_call(function, args, kwargs) for args, kwargs in calls]
    sequence = ", ".join(described)
    return sequence if len(sequence) <= 300 else f"{described[0]} ... ({len(described)} calls)"
