"""How the grader judges each value a check asks for: its hint for a wrong value, its tolerances
(release side; not in the student package).

The suites name the JAX idea behind a wrong result in its feedback
(`expect_output(hint=...)`, an `_advice` block), and compare with their own
tolerances and call descriptions. The student package ships no suite, so
at release:

- while the solution's run compares a returned array, the comparison's
  rtol, atol, dtype rule and call description are noted for that leaf of
  that step (`Comparisons`); so is a finiteness check;
- then the check runs again once per value step (`Probe`), with that one
  answer made wrong and every other answer the first run's, on the same
  inputs (no code of the solution runs again). The exercise hints in the
  failure it then fails with are recorded with the step, by key, read from
  the failure's catalog references (`hints_in`).

Replay adds those hints, in the catalog's words, when the student's value
at that step is wrong. The hints' first two levels (the idea, the APIs to
read about) ship with the record (`hint_catalog`); never a recipe, which
may quote reference code, unless the release shows recipes anyway.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable

import numpy as np

from autograder.catalog import hint_ideas, messages
from autograder.catalog.message_ref import Message, Sentence
from autograder.check import compare
from autograder.check.failure import Failure, FailureKind
from autograder.check.submission import TraceReport


class ProbeDiverged(RuntimeError):
    """The check asked for something else than in its first run: its hints cannot be told apart."""


@dataclasses.dataclass
class Answer:
    """One request of a check's first run and what the solution answered (a value, or the error it raised)."""

    op: str
    function: str
    result: Any
    step: int  # its index among the check's recorded steps
    raised: bool = False

    @property
    def is_value(self) -> bool:
        return not self.raised and self.op in ("call", "count_traces")


class Probe:
    """A rerun of one check: the answers of its first run, the one at `wrong` made wrong (by `change`,
    default `wrong_value`; or, with `error`, raising it instead, as the student's code would)."""

    def __init__(self, answers: list[Answer], wrong: int, error: Exception | None = None,
                 change: Callable[[Any], Any] | None = None):
        self._answers = answers
        self._wrong = wrong
        self._error = error
        self._change = change or wrong_value
        self._next = 0

    @property
    def wrong_step(self) -> int:
        """The recorded step whose answer this rerun makes wrong."""
        return self._answers[self._wrong].step

    def answer(self, op: str, function: str) -> Any:
        index, self._next = self._next, self._next + 1
        if index >= len(self._answers) or (self._answers[index].op, self._answers[index].function) != (op, function):
            raise ProbeDiverged(f"request {index} is {op} {function}, not as in the first run")
        answer = self._answers[index]
        if answer.raised:
            raise answer.result
        if index != self._wrong:
            return answer.result
        if self._error is not None:
            raise self._error
        if isinstance(answer.result, TraceReport):
            return dataclasses.replace(answer.result, outputs=tuple(self._change(o) for o in answer.result.outputs))
        return self._change(answer.result)


def wrong_value(value: Any) -> Any:
    """`value` with every number changed and its structure, shapes and dtypes kept."""
    if isinstance(value, dict):
        return {k: wrong_value(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(wrong_value(v) for v in value)
    if isinstance(value, np.generic):
        return wrong_value(np.asarray(value))[()]
    if not isinstance(value, np.ndarray):
        return value
    if value.dtype.kind == "b":
        return ~value
    if value.dtype.kind in "iu":
        return value + np.ones((), value.dtype)
    if value.dtype.kind in "fc":
        with np.errstate(all="ignore"):
            changed = value + 1 + np.abs(value)
        return np.where(np.isfinite(changed), changed, 0.5).astype(value.dtype)
    return value


# The dtype a retyped array takes: another kind than its own (bool -> int, int -> float, float -> int).
_RETYPED = {"b": np.int32, "i": np.float32, "u": np.float32, "f": np.int32, "c": np.int32}


def retyped(value: Any) -> Any:
    """`value` with every array of another dtype (values as close as the new dtype holds), structure and
    shapes kept: what a function that promotes or truncates returns."""
    if isinstance(value, dict):
        return {k: retyped(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(retyped(v) for v in value)
    if isinstance(value, np.generic):
        return retyped(np.asarray(value))[()]
    if not isinstance(value, np.ndarray) or value.dtype.kind not in _RETYPED:
        return value
    with np.errstate(all="ignore"):
        return np.nan_to_num(np.real(value)).astype(_RETYPED[value.dtype.kind])


def non_finite(value: Any) -> Any:
    """`value` with the first entry of every floating array made NaN, all else kept: what a function that
    divides by zero or differentiates `log` at 0 returns (the hints a check gives only then)."""
    if isinstance(value, dict):
        return {k: non_finite(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(non_finite(v) for v in value)
    if isinstance(value, np.generic):
        return non_finite(np.asarray(value))[()]
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "fc" or value.size == 0:
        return value
    changed = value.copy()
    changed.reshape(-1)[0] = np.nan
    return changed


class Comparisons:
    """The grader's comparisons of the arrays a check's requests returned, by step and leaf.

    The suites compare through `compare.assert_close` and `assert_equal`, which
    compare leaf by leaf in `compare._assert_leaf_close`: patched while the
    solution's checks run, it notes, for a leaf that a step returned (known
    by identity: the answers are kept alive), the tolerances it used.
    """

    def __init__(self) -> None:
        self._owner: dict[int, tuple[int, int]] = {}
        self.rules: dict[int, dict[int, dict]] = {}
        self._named: dict[int, str] = {}
        self._original = compare._assert_leaf_close
        self._original_finite = compare.assert_all_finite

    def reset(self) -> None:
        self._owner.clear()
        self.rules = {}
        self._named = {}

    def named(self, step: int, call: str) -> None:
        """How replay names the call of `step` by itself (a rule's `call` is kept only where the grader's differs)."""
        self._named[step] = call

    def returned(self, step: int, result: Any) -> None:
        """The leaves `result` (the answer to request `step`) holds."""
        outputs = list(result.outputs) if isinstance(result, TraceReport) else result
        for index, leaf in enumerate(compare.leaves(outputs)):
            if isinstance(leaf, (np.ndarray, np.generic)):
                self._owner[id(leaf)] = (step, index)

    def _rule(self, actual: Any) -> dict | None:
        owner = self._owner.get(id(actual))
        if owner is None:
            return None
        return self.rules.setdefault(owner[0], {}).setdefault(owner[1], {})

    def compared(self, actual: Any, expected: Any, *, call: str, rtol, atol, check_dtype: bool) -> None:
        rule = self._rule(actual)
        owner_step = self._owner.get(id(actual), (-1, 0))[0]
        if rule is not None and "rtol" not in rule:
            default_rtol, default_atol = compare.TOLERANCES.get(np.asarray(expected).dtype.name, (0.0, 0.0))
            rule.update(rtol=default_rtol if rtol is None else float(rtol),
                        atol=default_atol if atol is None else float(atol), check_dtype=bool(check_dtype))
            if _is_code(call) and call != self._named.get(owner_step):
                rule["call"] = call
            compared_with = self._owner.get(id(expected))
            if compared_with is not None and compared_with[0] != owner_step:
                # Two of the student's own answers compared (the same call made twice): replay compares the
                # student's, not this answer with the reference's value (replay.assert_matches).
                rule["same_as"] = list(compared_with)

    def checked_finite(self, actual: Any) -> None:
        for leaf in compare.leaves(actual):
            rule = self._rule(leaf)
            if rule is not None:
                rule["finite"] = True

    def install(self) -> None:
        def assert_leaf_close(actual, expected, *, call, rtol, atol, check_dtype):
            self.compared(actual, expected, call=call, rtol=rtol, atol=atol, check_dtype=check_dtype)
            return self._original(actual, expected, call=call, rtol=rtol, atol=atol, check_dtype=check_dtype)

        def assert_all_finite(actual, *args, **kwargs):
            self.checked_finite(actual)
            return self._original_finite(actual, *args, **kwargs)

        compare._assert_leaf_close = assert_leaf_close
        # The suites' shared steps call it through the module (a suite that imported it by name is
        # patched where it runs: recording.RecordingPlugin).
        compare.assert_all_finite = assert_all_finite

    def restore(self) -> None:
        compare._assert_leaf_close = self._original
        compare.assert_all_finite = self._original_finite


def _is_code(call: str) -> bool:
    """Whether the grader's description of a call is code (`jit(f(f32[8]))`, `f(...)[0] (mse)`), the same in
    every language, and not a sentence of the catalog, which is recorded in the release's language only."""
    return not re.search(r"[^\W\d_]+ [^\W\d_]+ [^\W\d_]+", call)


def hints_in(said: object, assignment: str) -> list[dict]:
    """The exercise hints of `assignment` that `said` holds, in its order: {"key", "wrapped"}
    (wrapped: said as `call.hint`, "Hint: ...", else as a sentence of its own).

    `said` is a failure, or a suite's advice: read from its catalog references, by key (a hint said with
    fields is left out: the replay says hints without); a part that is no catalog sentence, plain text, is
    searched for the hints' sentences, said now in the language and at the hint level it was written in.
    """
    return [hint for _, hint in _hints_by_part(said if isinstance(said, (str, Failure)) else str(said), assignment)]


def _hints_by_part(said: str | Failure, assignment: str) -> list[tuple[int, dict]]:
    """hints_in's hints, each with the index of the part of `said` (`_parts`) that says it; each key once."""
    found: dict[str, tuple[int, dict]] = {}
    for index, (part, wrapped) in enumerate(_parts(said)):
        keys = (_keys_in(part.message, assignment, wrapped) if isinstance(part, Sentence)
                else _keys_in_text(part, assignment))
        for key, as_hint in keys:
            found.setdefault(key, (index, {"key": key, "wrapped": as_hint}))
    return list(found.values())


def _parts(said: str | Failure) -> list[tuple[str, bool]]:
    """`said`'s parts in the order the student reads them, each with whether it is said as "Hint: ..."."""
    if not isinstance(said, Failure):
        return [(said, False)]
    return [*((part, False) for part in (*said.context, said.detail, *said.advice)),
            *((part, True) for part in said.hints), *((part, False) for part in said.recipes)]


def _keys_in(message: Message, assignment: str, wrapped: bool) -> list[tuple[str, bool]]:
    """The exercise hints `message` says, itself or in its fields, in order: (key, said as "Hint: ...")."""
    if message.key.startswith(f"{assignment}.") and message.key in hint_ideas.IDEAS:
        return [(message.key, wrapped)] if not message.fields else []
    inner = wrapped or message.key == "call.hint"
    return [found for _, value in message.fields if isinstance(value, Message)
            for found in _keys_in(value, assignment, inner)]


def _keys_in_text(feedback: str, assignment: str) -> list[tuple[str, bool]]:
    """The exercise hints whose sentence plain text `feedback` holds, in its order: (key, said as "Hint: ...")."""
    found = []
    for key in sorted(k for k in hint_ideas.IDEAS if k.startswith(f"{assignment}.")):
        try:
            said = messages.text(key)
        except (KeyError, IndexError):  # a hint with {fields}: not told apart here
            continue
        wrapped = messages.text("call.hint", hint=said)
        if wrapped in feedback:
            found.append((feedback.index(wrapped), (key, True)))
        elif said in feedback:
            found.append((feedback.index(said), (key, False)))
    return [hint for _, hint in sorted(found, key=lambda item: item[0])]


def hint_catalog(keys: set[str], level: str) -> dict[str, dict]:
    """What the student package needs to say each hint of `keys` as the grader does:
    its idea in every language, its APIs, and its recipe only when the release shows recipes."""
    entries = {}
    for key in sorted(keys):
        entry: dict[str, Any] = {"idea": in_every_language(f"{key}.idea"),
                                 "apis": list(hint_ideas.APIS.get(key, ()))}
        if level == "recipe":
            entry["recipe"] = in_every_language(key)
        entries[key] = entry
    return entries


def in_every_language(key: str) -> dict[str, str]:
    """The catalog sentence `key` in English and in every language that translates it."""
    said = {"en": messages.ENGLISH[key]}
    for language in messages.LANGUAGES:
        translated = messages.catalog(language).get(key) if language != "en" else None
        if translated:
            said[language] = translated
    return said


# The JAX error hint line a probing error carries, to tell advice placed before it from advice after it.
_ERROR_MARK = "probing-error-7f3a"
_HINT_MARK = "probing-hint-7f3a"


def raised_error() -> Exception:
    """What a probing rerun answers instead of a value: the student's code raised an exception, with the
    feedback's usual shape (what happened, then a "Hint:" line)."""
    from autograder.check.submission import StudentCodeError
    from autograder.protocol.errors import ChildError, ErrorKind

    failure = Failure(_ERROR_MARK, FailureKind.STUDENT_CODE, hints=(_HINT_MARK,))
    return StudentCodeError(failure, "ValueError", ChildError(ErrorKind.RAISED, message=_ERROR_MARK,
                                                              type="ValueError", mro=("ValueError", "Exception")))


def error_advice_in(failure: Failure, assignment: str) -> list[dict]:
    """The exercise's advice a check adds to a raised error (see `raised_error`), as `hints_in`, each with
    "before": said before the error's own hint line."""
    parts = [part for part, _ in _parts(failure)]
    if _ERROR_MARK not in parts:  # the check said something else than the error: nothing to add to one
        return []
    at = parts.index(_HINT_MARK) if _HINT_MARK in parts else -1
    return [{**hint, "before": at >= 0 and index < at} for index, hint in _hints_by_part(failure, assignment)]
