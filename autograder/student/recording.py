"""Recording what each check asks of the reference solution (release side; not in the student package).

The assignment's suite runs once, in this process, against the solution
notebook, with public inputs from a fixed seed. Every request a check makes
through `Submission` (call, trace, count_traces, describe, is_jitted,
require) is recorded with its arguments and the solution's answer: the
returned values, whether it traced, its trace counts, or the type of the
error it raised. So are the suite's structure assertions
(`assert_uses_primitive`, `assert_not_unrolled`) and expected errors
(`expect_raises`), as the requests they judge. Nothing of the solution's
code, programs or jaxprs is kept: only values on public inputs, counts, and
the names of the JAX constructs a check asks for. How the grader judges each
value (its tolerances, and the exercise hint it gives when the value is
wrong) is recorded with the step too (see `probing`), and so are the outputs
of the known mistakes the check would name there (see `mistake_recording`).
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import io
from pathlib import Path
from typing import AbstractSet, Any, Callable

import numpy as np
import pytest

from autograder.check import expectations
from autograder.check.failure import failure_of
from autograder.check.pytest_plugin import CheckOutcome, GradingPlugin
from autograder.check.submission import ProgramFacts, StudentCodeError, Submission, TraceReport
from autograder.grading_config import GradingConfig
from autograder.student import mistake_recording, probing, recorded, replay

FORMAT = recorded.FORMAT


class RecordingError(RuntimeError):
    """The solution cannot be recorded (it fails a check, or a check asks something that cannot be replayed)."""


class Recorder:
    """The steps of every check of one assignment, and their arrays."""

    def __init__(self, assignment: str = "") -> None:
        self.assignment = assignment
        self.steps: dict[tuple[str, str], list[dict]] = {}
        self.arrays: list = []
        self.current: tuple[str, str] | None = None
        # The current check's requests and answers, and how the suite compared them (see probing).
        self.answers: list[probing.Answer] = []
        self.comparisons = probing.Comparisons()
        self.probe: probing.Probe | None = None
        self._facts: dict[int, tuple[tuple[str, str] | None, int, ProgramFacts | list]] = {}

    def _check_steps(self) -> list[dict]:
        if self.current is None:
            raise RecordingError("a Submission request was made outside a check")
        return self.steps.setdefault(self.current, [])

    def add(self, step: dict) -> int:
        steps = self._check_steps()
        steps.append(step)
        return len(steps) - 1

    def encode(self, value: Any, path: str = "value") -> Any:
        return recorded.encode(value, self.arrays, path)

    def remember_facts(self, facts: ProgramFacts | list, index: int) -> None:
        """`facts` (a program's facts, or placed_run's placements) are the answer of step `index` of this check."""
        self._facts[id(facts)] = (self.current, index, facts)  # the facts object is kept alive, so its id is not reused

    def step_of(self, facts: Any) -> int:
        found = self._facts.get(id(facts))
        if found is None or found[0] != self.current or found[2] is not facts:
            raise RecordingError(
                "a structure assertion judged facts that did not come from this check's submission.trace")
        return found[1]

    def step_answering(self, result: Any) -> int | None:
        """The step of this check whose answer is `result` (the same object), or None."""
        return next((answer.step for answer in self.answers if answer.result is result), None)

    def next_index(self) -> int:
        return len(self._check_steps())

    def annotate(self, index: int, **fields: Any) -> None:
        self._check_steps()[index].update(fields)


class RecordingSubmission(Submission):
    """The solution's Submission, recording every request a check makes and its answer."""

    answers_in_64_bits = False

    def __init__(self, inner: Submission, recorder: Recorder):
        super().__init__(inner._transport, inner.notes)
        self._recorder = recorder
        self._depth = 0
        self._placed: dict[str, tuple[ProgramFacts, list]] = {}  # placed_run's facts and placements, by function
        self._placed_calls: dict[str, list] = {}  # placed_call's placements, by function

    def _recorded(self, step: dict, run: Callable[[], Any], outcome: Callable[[Any], dict]) -> Any:
        if self._depth:  # a request made by another request (is_jitted asks describe): not a step of its own
            return run()
        if self._recorder.probe is not None:  # a rerun of the check (probing): the first run's answers
            return self._recorder.probe.answer(step["op"], step["function"])
        self._depth += 1
        try:
            result = run()
        except StudentCodeError as failure:
            error = failure.error
            step["outcome"] = {"error": {"type": (error.type if error else "") or failure.error_type or "",
                                         "mro": list(error.mro) if error else [],
                                         "kind": error.kind.value if error else ""}}
            index = self._recorder.add(step)
            self._recorder.answers.append(probing.Answer(step["op"], step["function"], failure, index, raised=True))
            raise
        finally:
            self._depth -= 1
        step["outcome"] = outcome(result)
        index = self._recorder.add(step)
        self._recorder.answers.append(probing.Answer(step["op"], step["function"], result, index))
        if step["op"] in ("call", "count_traces"):
            self._recorder.comparisons.returned(index, result)
        if isinstance(result, ProgramFacts):
            self._recorder.remember_facts(result, index)
        return result

    def describe(self, function: str) -> dict:
        return self._recorded({"op": "describe", "function": function}, lambda: super(RecordingSubmission,
                                                                                      self).describe(function),
                              lambda facts: {"exists": bool(facts.get("exists")),
                                             "callable": bool(facts.get("callable"))})

    def is_jitted(self, function: str) -> bool:
        return self._recorded({"op": "is_jitted", "function": function},
                              lambda: super(RecordingSubmission, self).is_jitted(function),
                              lambda jitted: {"jitted": bool(jitted)})

    def require(self, function: str) -> None:
        return self._recorded({"op": "require", "function": function},
                              lambda: super(RecordingSubmission, self).require(function), lambda _: {})

    def call_with(self, function, args=(), kwargs=None, *, mode="plain", static_argnums=(), static_argnames=(),
                  argnums=0, in_axes=0, key_reuse_check=False, rows_sharded=()):
        kwargs = dict(kwargs or {})
        options = {"mode": mode, "static_argnums": list(static_argnums), "static_argnames": list(static_argnames),
                   "argnums": list(argnums) if isinstance(argnums, (list, tuple)) else argnums,
                   "in_axes": list(in_axes) if isinstance(in_axes, (list, tuple)) else in_axes,
                   "key_reuse_check": bool(key_reuse_check)}
        if rows_sharded:
            options["rows_sharded"] = list(rows_sharded)
        step = {"op": "call", "function": function, "args": self._recorder.encode(tuple(args), "args"),
                "kwargs": self._recorder.encode(kwargs, "kwargs"), "options": options}
        # How replay names this call by itself: a comparison that names it so needs no recorded name.
        self._recorder.comparisons.named(self._recorder.next_index(),
                                         replay.described(function, tuple(args), kwargs, options))

        def run():
            return super(RecordingSubmission, self).call_with(
                function, args, kwargs, mode=mode, static_argnums=static_argnums, static_argnames=static_argnames,
                argnums=argnums, in_axes=in_axes, key_reuse_check=key_reuse_check, rows_sharded=rows_sharded)

        return self._recorded(step, run, lambda value: {"value": self._recorder.encode(value, "output")})

    def placed_run(self, function, args, kwargs=None, *, rows_sharded=()):
        """Recorded as the `jax.jit` call it is, marked `placed`: the student package replays it with its own
        placed_run, on the student's own devices. Where the solution's results lived is not recorded (it
        depends on the devices); how the check judges placements is (`assert_spread`, `assert_uses_collective`,
        recorded on this step), and the student package judges the student's placements the same way."""
        kwargs = dict(kwargs or {})
        options = {"mode": "jit", "static_argnums": [], "static_argnames": [], "argnums": 0, "in_axes": 0,
                   "key_reuse_check": False, "rows_sharded": list(rows_sharded)}
        step = {"op": "call", "function": function, "args": self._recorder.encode(tuple(args), "args"),
                "kwargs": self._recorder.encode(kwargs, "kwargs"), "options": options, "placed": {}}
        index = self._recorder.next_index()
        self._recorder.comparisons.named(index, replay.described(function, tuple(args), kwargs, options))

        def run():
            facts, value, placements = super(RecordingSubmission, self).placed_run(function, args, kwargs,
                                                                                  rows_sharded=rows_sharded)
            self._placed[function] = (facts, placements)
            return value

        value = self._recorded(step, run, lambda value: {"value": self._recorder.encode(value, "output")})
        facts, placements = self._placed[function]  # a probing rerun gets the first run's answers
        if self._recorder.probe is None:  # the judgements of this step's placements and program refer to it
            self._recorder.remember_facts(facts, index)
            self._recorder.remember_facts(placements, index)
        return facts, value, placements

    def placed_call(self, function, args, kwargs=None, *, rows_sharded=()):
        """Recorded as the plain call it is, marked `placed`: the student package replays it with its own
        placed_call, the function called as the student calls it on the student's own devices; how the check
        judges its placements is recorded on this step (`assert_spread`), never where the solution's lived."""
        kwargs = dict(kwargs or {})
        options = {"mode": "plain", "static_argnums": [], "static_argnames": [], "argnums": 0, "in_axes": 0,
                   "key_reuse_check": False, "rows_sharded": list(rows_sharded)}
        step = {"op": "call", "function": function, "args": self._recorder.encode(tuple(args), "args"),
                "kwargs": self._recorder.encode(kwargs, "kwargs"), "options": options, "placed": {}}
        index = self._recorder.next_index()
        self._recorder.comparisons.named(index, replay.described(function, tuple(args), kwargs, options))
        placed: dict[str, list] = {}

        def run():
            value, placed[function] = super(RecordingSubmission, self).placed_call(function, args, kwargs,
                                                                                  rows_sharded=rows_sharded)
            return value

        value = self._recorded(step, run, lambda value: {"value": self._recorder.encode(value, "output")})
        placements = placed.get(function) or self._placed_calls[function]  # a probing rerun: the first run's
        self._placed_calls[function] = placements
        if self._recorder.probe is None:  # the judgement of this step's placements refers to it
            self._recorder.remember_facts(placements, index)
        return value, placements

    def trace(self, function, args, kwargs=None, *, static_argnums=(), static_argnames=()):
        kwargs = dict(kwargs or {})
        step = {"op": "trace", "function": function, "args": self._recorder.encode(tuple(args), "args"),
                "kwargs": self._recorder.encode(kwargs, "kwargs"),
                "options": {"static_argnums": list(static_argnums), "static_argnames": list(static_argnames)}}

        def run():
            return super(RecordingSubmission, self).trace(function, args, kwargs, static_argnums=static_argnums,
                                                          static_argnames=static_argnames)

        # Only that it traced: the solution's program, its operations and their number stay here.
        return self._recorded(step, run, lambda facts: {})

    def count_traces(self, function, calls, *, warmup=(), static_argnums=(), static_argnames=(), count_all=False):
        plan_calls = [(tuple(a), dict(k)) for a, k in calls]
        plan_warmup = [(tuple(a), dict(k)) for a, k in warmup]
        step = {"op": "count_traces", "function": function,
                "calls": self._recorder.encode(plan_calls, "calls"), "warmup": self._recorder.encode(plan_warmup,
                                                                                                     "warmup"),
                "options": {"static_argnums": list(static_argnums), "static_argnames": list(static_argnames),
                            "count_all": bool(count_all)}}

        def run():
            return super(RecordingSubmission, self).count_traces(function, calls, warmup=warmup,
                                                                 static_argnums=static_argnums,
                                                                 static_argnames=static_argnames, count_all=count_all)

        def outcome(report: TraceReport) -> dict:
            return {"traces": int(report.traces), "outputs": self._recorder.encode(list(report.outputs), "outputs")}

        return self._recorded(step, run, outcome)

    def program_gradient(self, function, args, kwargs=None, *, static_argnums=(), static_argnames=()):
        kwargs = dict(kwargs or {})
        step = {"op": "program_gradient", "function": function, "args": self._recorder.encode(tuple(args), "args"),
                "kwargs": self._recorder.encode(kwargs, "kwargs"),
                "options": {"static_argnums": list(static_argnums), "static_argnames": list(static_argnames)}}

        def run():
            return super(RecordingSubmission, self).program_gradient(
                function, args, kwargs, static_argnums=static_argnums, static_argnames=static_argnames)

        # The gradient's values on the public inputs; the program stays here.
        return self._recorded(step, run, lambda result: {"value": self._recorder.encode(result[1], "output")})

    def outermost_primitives(self, function, args, kwargs=None, *, static_argnums=(), static_argnames=()):
        kwargs = dict(kwargs or {})
        step = {"op": "outermost", "function": function, "args": self._recorder.encode(tuple(args), "args"),
                "kwargs": self._recorder.encode(kwargs, "kwargs"),
                "options": {"static_argnums": list(static_argnums), "static_argnames": list(static_argnames)}}

        def run():
            return super(RecordingSubmission, self).outermost_primitives(
                function, args, kwargs, static_argnums=static_argnums, static_argnames=static_argnames)

        # Only the constructs a check can ask a function to be (a custom rule), never the rest of its jaxpr.
        return self._recorded(step, run, lambda names: {"names": sorted(set(names) & OUTERMOST_CONSTRUCTS)})


# The constructs a function can be at the top of its jaxpr that a check may ask for.
OUTERMOST_CONSTRUCTS = frozenset({"custom_jvp_call", "custom_vjp_call"})


# --- the suite's own judgements, recorded as steps ----------------------------------

def _wrap_assert_uses_primitive(original: Callable, recorder: Recorder) -> Callable:
    signature = inspect.signature(original)

    def assert_uses_primitive(*args, **kwargs):
        if recorder.probe is not None:  # a rerun: nothing more to record
            return original(*args, **kwargs)
        bound = signature.bind(*args, **kwargs).arguments
        step = recorder.step_of(bound["facts"])
        original(*args, **kwargs)
        uses = {"op": "uses", "step": step, "any_of": sorted(str(p) for p in bound["any_of"]),
                "function": str(bound["function"]), "construct": str(bound["construct"])}
        fix = probing.hints_in(bound["why"], recorder.assignment)  # the exercise's sentence on why
        recorder.add({**uses, "fix": fix} if fix else uses)

    return assert_uses_primitive


def _wrap_assert_spread(original: Callable, recorder: Recorder) -> Callable:
    signature = inspect.signature(original)

    def assert_spread(*args, **kwargs):
        if recorder.probe is not None:
            return original(*args, **kwargs)
        bound = signature.bind(*args, **kwargs).arguments
        step = recorder.step_of(bound["placements"])
        original(*args, **kwargs)
        # On the placed step itself: its values decide first, as in the grader's expect_placement.
        placed = {"spread": str(bound["spread"]), "fix": probing.hints_in(bound["why"], recorder.assignment)}
        if bound.get("axis") is not None:
            placed["axis"] = str(bound["axis"])
        recorder.annotate(step, placed=placed)

    return assert_spread


def _wrap_assert_uses_collective(original: Callable, recorder: Recorder) -> Callable:
    signature = inspect.signature(original)

    def assert_uses_collective(*args, **kwargs):
        if recorder.probe is not None:
            return original(*args, **kwargs)
        bound = signature.bind(*args, **kwargs).arguments
        step = recorder.step_of(bound["facts"])
        original(*args, **kwargs)
        recorder.add({"op": "collective", "step": step, "any_of": sorted(str(c) for c in bound.get("any_of", ())),
                      "function": str(bound["function"]),
                      "fix": probing.hints_in(bound["why"], recorder.assignment)})

    return assert_uses_collective


def _wrap_assert_not_unrolled(original: Callable, recorder: Recorder) -> Callable:
    signature = inspect.signature(original)

    def assert_not_unrolled(*args, **kwargs):
        if recorder.probe is not None:
            return original(*args, **kwargs)
        bound = signature.bind(*args, **kwargs).arguments
        small, large = recorder.step_of(bound["small"]), recorder.step_of(bound["large"])
        original(*args, **kwargs)
        step = {"op": "not_unrolled", "small": small, "large": large, "function": str(bound["function"]),
                "n_small": int(bound["n_small"]), "n_large": int(bound["n_large"])}
        fix = probing.hints_in(bound["fix"], recorder.assignment)  # said in the notebook's language
        recorder.add({**step, "fix": fix} if fix else step)

    return assert_not_unrolled


def _wrap_assert_no_value_larger_than(original: Callable, recorder: Recorder) -> Callable:
    signature = inspect.signature(original)

    def assert_no_value_larger_than(*args, **kwargs):
        if recorder.probe is not None:
            return original(*args, **kwargs)
        bound = signature.bind(*args, **kwargs).arguments
        step = recorder.step_of(bound["facts"])
        original(*args, **kwargs)
        # The limit is the suite's (from the public sizes); the fix is said through the exercise's hint.
        recorder.add({"op": "no_value_larger_than", "step": step, "elements": int(bound["elements"]),
                      "function": str(bound["function"]),
                      "hints": probing.hints_in(bound["fix"], recorder.assignment)})

    return assert_no_value_larger_than


def _wrap_expect_raises(original: Callable, recorder: Recorder) -> Callable:
    signature = inspect.signature(original)

    def expect_raises(*args, **kwargs):
        if recorder.probe is not None:
            return original(*args, **kwargs)
        bound = signature.bind(*args, **kwargs).arguments
        index = recorder.next_index()
        original(*args, **kwargs)
        mentions = bound.get("mentions")
        expected = {"type": str(bound["error_type"]), "mentions": None if mentions is None else str(mentions)}
        fix = probing.hints_in(bound.get("fix", ""), recorder.assignment)  # said after the feedback
        recorder.annotate(index, expect_error=expected, **({"fix": fix} if fix else {}))

    return expect_raises


def _wrap_assert_trace_count(original: Callable, recorder: Recorder) -> Callable:
    signature = inspect.signature(original)

    def assert_trace_count(*args, **kwargs):
        if recorder.probe is not None:
            return original(*args, **kwargs)
        bound = signature.bind(*args, **kwargs).arguments
        original(*args, **kwargs)
        step = recorder.step_answering(bound["report"])
        fix = probing.hints_in(bound.get("fix", ""), recorder.assignment)
        if fix and step is not None:  # the exercise's advice after a wrong count
            recorder.annotate(step, fix=fix)

    return assert_trace_count


def _wrap_expect_jitted(original: Callable, recorder: Recorder) -> Callable:
    signature = inspect.signature(original)

    def expect_jitted(*args, **kwargs):
        if recorder.probe is not None:
            return original(*args, **kwargs)
        bound = signature.bind(*args, **kwargs).arguments
        index = recorder.next_index()
        original(*args, **kwargs)
        fix = probing.hints_in(bound.get("fix", ""), recorder.assignment)
        if fix:  # the exercise's advice after "not a jitted function", on its is_jitted step
            recorder.annotate(index, fix=fix)

    return expect_jitted


def _wrap_assert_all_finite(original: Callable, recorder: Recorder) -> Callable:
    def assert_all_finite(actual, *args, **kwargs):
        recorder.comparisons.checked_finite(actual)
        return original(actual, *args, **kwargs)

    return assert_all_finite


def _originals() -> dict[str, tuple[Callable, Callable]]:
    from autograder.check import compare, placement_checks
    from autograder.suites import expect

    return {
        "assert_all_finite": (compare.assert_all_finite, _wrap_assert_all_finite),
        "assert_uses_primitive": (expectations.assert_uses_primitive, _wrap_assert_uses_primitive),
        "assert_not_unrolled": (expectations.assert_not_unrolled, _wrap_assert_not_unrolled),
        "assert_no_value_larger_than": (expectations.assert_no_value_larger_than,
                                        _wrap_assert_no_value_larger_than),
        "expect_raises": (expect.expect_raises, _wrap_expect_raises),
        "assert_trace_count": (expectations.assert_trace_count, _wrap_assert_trace_count),
        "expect_jitted": (expect.expect_jitted, _wrap_expect_jitted),
        "assert_spread": (placement_checks.assert_spread, _wrap_assert_spread),
        "assert_uses_collective": (expectations.assert_uses_collective, _wrap_assert_uses_collective),
    }


class RecordingPlugin:
    """Tells the recorder which check is running, and records the suite's assertions."""

    def __init__(self, recorder: Recorder):
        self._recorder = recorder
        self._patched: list[tuple[Any, str, Any]] = []

    def pytest_collection_modifyitems(self, config, items) -> None:
        from autograder.suites import expect

        originals = _originals()
        # The suites' modules, and the shared steps' (expect_trace_count asks assert_trace_count by name there).
        modules = {id(expect): expect, **{id(item.module): item.module for item in items}}
        for module in modules.values():
            for name, (original, wrap) in originals.items():
                if getattr(module, name, None) is original:
                    self._patched.append((module, name, original))
                    setattr(module, name, wrap(original, self._recorder))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        mark = item.get_closest_marker("graded")
        self._recorder.current = (mark.kwargs["function"], mark.kwargs["prop"]) if mark else None
        self._recorder.answers = []
        self._recorder.comparisons.reset()
        try:
            yield
        finally:
            self._recorder.current = None
            self._recorder.answers = []
            self._recorder.comparisons.reset()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        generators = _generator_states(item)
        outcome = yield
        if outcome.excinfo is None and self._recorder.current is not None:
            for step, rules in self._recorder.comparisons.rules.items():
                self._recorder.annotate(step, compare={str(leaf): rule for leaf, rule in sorted(rules.items())})
            _probe_values(self._recorder, item, generators)
            _probe_errors(self._recorder, item, generators)

    def restore(self) -> None:
        for module, name, original in reversed(self._patched):
            setattr(module, name, original)
        self._patched.clear()


def _generator_states(item) -> dict[str, Any]:
    """The state of each random generator the check receives (`rng`, `sizes`), before it draws."""
    return {name: copy.deepcopy(dict(value.bit_generator.state)) for name, value in item.funcargs.items()
            if isinstance(value, np.random.Generator)}


def _rerun(recorder: Recorder, item, generators: dict[str, Any], probe: probing.Probe) -> AssertionError | None:
    """The check run again on the same inputs (the generators restored) with `probe`'s answers: what it
    failed with, or None (passed, or could not judge: asked otherwise, or raised something else)."""
    for name, state in generators.items():
        item.funcargs[name].bit_generator.state = copy.deepcopy(state)
    recorder.probe = probe
    try:
        item.runtest()
    except AssertionError as failure:
        return failure
    except Exception:  # noqa: BLE001 - the suite could not judge the changed answer (or asked otherwise)
        return None
    finally:
        recorder.probe = None
    return None


def _probe_values(recorder: Recorder, item, generators: dict[str, Any]) -> None:
    """Run the check again once per value it asked for, that answer made wrong, and note with the step the
    exercise hints the check then gives, and whether the grader reports that failure as wrong values (which
    makes its later checks "not checked"); then once with only its dtype changed, and once with a NaN in it,
    for the hints the check gives only for a wrong dtype or only for a value that is not finite."""
    answers = list(recorder.answers)
    for index, answer in enumerate(answers):
        if not answer.is_value:
            continue
        failure = _rerun(recorder, item, generators, probing.Probe(answers, index))
        if failure is not None:
            hints = probing.hints_in(failure_of(failure), recorder.assignment)
            if hints:
                recorder.annotate(answer.step, hints=hints)
            if failure_of(failure).on_wrong_values:  # the grader's gate: a later check failing here is not checked
                recorder.annotate(answer.step, values_gate=True)
        plain = probing.hints_in(failure_of(failure) if failure is not None else "", recorder.assignment)
        for change, field in ((probing.retyped, "dtype_hints"), (probing.non_finite, "non_finite_hints")):
            changed = _rerun(recorder, item, generators, probing.Probe(answers, index, change=change))
            hints = probing.hints_in(failure_of(changed), recorder.assignment) if changed is not None else []
            if hints and hints != plain:
                recorder.annotate(answer.step, **{field: hints})


# Requests whose answer the student's code can fail to give by raising.
_MAY_RAISE = frozenset({"call", "trace", "count_traces", "program_gradient"})


def _probe_errors(recorder: Recorder, item, generators: dict[str, Any]) -> None:
    """Run the check again once per request the student's code answers, that request raising an exception
    instead, and note with the step the exercise's advice the check adds to the error (a suite's fix for
    an exception), and where: before or after the error's own hint."""
    answers = list(recorder.answers)
    for index, answer in enumerate(answers):
        if answer.raised or answer.op not in _MAY_RAISE:
            continue
        failure = _rerun(recorder, item, generators, probing.Probe(answers, index, error=probing.raised_error()))
        advice = probing.error_advice_in(failure_of(failure), recorder.assignment) if failure is not None else []
        if advice:
            recorder.annotate(answer.step, error_advice=advice)


def record_checks(assignment: str, submission: Submission, seed: int, functions: AbstractSet[str] | None, *,
                  recorder: Recorder) -> list[CheckOutcome]:
    """runner.run_checks with the recording submission and plugin."""
    from autograder.check.runner import PYTEST_OPTIONS, no_plugin_autoload, suite_path

    plugin = GradingPlugin(RecordingSubmission(submission, recorder), seed, functions)
    recording = RecordingPlugin(recorder)
    sink = io.StringIO()
    recorder.comparisons.install()
    try:
        with no_plugin_autoload(), contextlib.redirect_stdout(sink), mistake_recording.recording_mistakes(recorder):
            code = pytest.main([str(suite_path(assignment)), *PYTEST_OPTIONS], plugins=[plugin, recording])
    finally:
        recording.restore()
        recorder.comparisons.restore()
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        raise RecordingError(f"the {assignment} suite could not run (pytest exit {code}):\n{sink.getvalue()[-3000:]}")
    return list(plugin.outcomes.values())


def record_assignment(assignment: str, config: GradingConfig, solution: Path, seed: int,
                      functions: AbstractSet[str] | None = None) -> tuple[dict, list]:
    """Run `assignment`'s suite on `solution` (the checks of `functions`, default all) and return its record
    (JSON-able) and arrays."""
    import jax

    from autograder.grade.pipeline import GradingOptions, WorkerResources, grade_submission

    recorder = Recorder(assignment)
    result = grade_submission(solution, config,
                              GradingOptions(seed=seed, sandbox="inprocess", assignment=assignment,
                                             functions=functions),
                              WorkerResources(run_suite=lambda a, s, sd, f: record_checks(a, s, sd, f,
                                                                                          recorder=recorder)))
    failed = [f"{c.name}: {c.feedback}" for c in result.checks if not c.passed]
    if failed:
        raise RecordingError(f"the solution of {assignment} fails checks with seed {seed}:\n" + "\n".join(failed))
    checks = []
    for check in result.checks:
        steps = recorder.steps.get((check.function, check.prop), [])
        if not steps:
            raise RecordingError(
                f"{assignment}: the check {check.name!r} asks nothing of the submission; it cannot be replayed")
        checks.append({"function": check.function, "prop": check.prop, "points": check.max_score, "steps": steps})
    hinted = {hint["key"] for steps in recorder.steps.values() for step in steps
              for hint in [*step.get("hints", ()), *step.get("dtype_hints", ()), *step.get("non_finite_hints", ()),
                           *step.get("fix", ()), *step.get("error_advice", ()),
                           *(step.get("placed") or {}).get("fix", ())]}
    record = {"format": FORMAT, "assignment": assignment, "seed": seed, "jax_version": jax.__version__,
              "checks": checks, "hints": probing.hint_catalog(hinted, config.hint_level("check")),
              "mistakes": mistake_recording.sentences([step for steps in recorder.steps.values() for step in steps])}
    return record, recorder.arrays
