"""A check's failure as a value: what the student reads, kept in parts until it is rendered once.

A failed check used to be an AssertionError whose text was final, and code
downstream edited that text (renamed a call, slipped advice in before a "Hint:"
line, matched a prefix to tell "not checked"). Here the parts stay apart, as
pytest keeps a report's `longrepr`: the call as the student would write it, the
kind of failure (wrong values gate the property checks after them), the detail,
the exercise's advice and the hints. Suites and the grader add to a failure by
building a new value; `render` turns it into the feedback once, in the order
every output shows: detail, advice, hints, then the exercise's recipe restated.

A part that is a catalog sentence is a `Sentence` (catalog/message_ref.py):
text in the run's language that keeps its key and fields, so each output can
say the failure in the language it wants (`render(failure, "ko")`) and
results.json keeps it as data (`to_json`: keys and fields, not text). Text
that is not a catalog sentence (what a plain `assert` said) stays as it is.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable

from autograder.catalog import messages
from autograder.catalog.message_ref import JOINED, Message, Sentence, trimmed


class FailureKind(enum.Enum):
    """Why a check failed, as far as its points and its neighbours are concerned."""

    # The function's values differ from the reference: its property checks after this one never reached
    # their property, and are reported as not checked.
    WRONG_VALUES = "wrong_values"
    # The checked property does not hold (a structure, a trace count, an expected error, a placement).
    PROPERTY = "property"
    # The student's code is missing, raised, or ran out of time or memory.
    STUDENT_CODE = "student_code"
    # The function is still the released stub (it raises NotImplementedError): said once per function,
    # since every check of it fails for this one reason.
    NOT_IMPLEMENTED = "not_implemented"
    # The kit itself failed: never reported as the student's mistake.
    INTERNAL = "internal"


@dataclasses.dataclass(frozen=True)
class Failure:
    """One failed check, in parts. Every text is said in the run's language; a catalog sentence keeps its
    reference (a message_ref.Sentence), so that it can be said in another.

    Attributes:
        detail: what happened, naming the call ("safe_log(f32[17]) returned wrong values: ...").
        kind: why it failed (see FailureKind).
        call: the call as the student would write it (`jit(hessian(rosenbrock)(f32[7]))`), or "".
        context: sentences said before the detail (what the failing call was part of).
        advice: the exercise's sentences for this failure, said after the detail.
        hints: the general ideas behind it, each said as "Hint: ...", after the advice.
        recipes: the exercise's recipe restated (what the function must compute): advice of the second
            level, said after every hint and never as one (check/cause_first.py moves it here).
        devices: the CPU device count the check failed with, when it was graded with several.
        not_checked_because: the property (as the student reads it) whose wrong values kept this check
            from its own property; its feedback is then only that.
        said_above: advice or hints were left out because an earlier check of the function said them.
    """

    detail: str
    kind: FailureKind = FailureKind.PROPERTY
    call: str = ""
    context: tuple[str, ...] = ()
    advice: tuple[str, ...] = ()
    hints: tuple[str, ...] = ()
    recipes: tuple[str, ...] = ()
    devices: int | None = None
    not_checked_because: str | None = None
    said_above: bool = False

    @property
    def on_wrong_values(self) -> bool:
        return self.kind is FailureKind.WRONG_VALUES

    def advised(self, *advice: str) -> Failure:
        """This failure with the exercise's `advice` added (empty sentences are skipped)."""
        return dataclasses.replace(self, advice=self.advice + tuple(a for a in advice if a))

    def hinted(self, *hints: str | None) -> Failure:
        """This failure with `hints` added (None and empty ones are skipped)."""
        return dataclasses.replace(self, hints=self.hints + tuple(h for h in hints if h))

    def in_context(self, *context: str) -> Failure:
        """This failure said after `context` (what the failing call was part of)."""
        return dataclasses.replace(self, context=tuple(context) + self.context)

    def as_wrong_values(self) -> Failure:
        """This failure as the function's wrong values (its later property checks: not checked)."""
        return dataclasses.replace(self, kind=FailureKind.WRONG_VALUES)

    def to_json(self) -> dict:
        """The parts as plain data (results.json's extra_data, the student package's device runs): a catalog
        sentence as its message (key and fields: message_ref.Message.to_json), any other text as a string."""
        parts = {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}
        texts = {name: [_part_json(part) for part in parts[name]] for name in TEXTS}
        return {**parts, "kind": self.kind.value, "detail": _part_json(self.detail), **texts,
                "not_checked_because": _part_json(self.not_checked_because)}

    @classmethod
    def from_json(cls, data: dict) -> Failure:
        """What `to_json` wrote (a KeyError, TypeError or ValueError for anything else, a message whose key the
        catalog does not know too: the reader says the text it has instead)."""
        return cls(**{**data, "kind": FailureKind(data["kind"]), "detail": _part(data["detail"]),
                      **{name: tuple(_part(part) for part in data[name]) for name in TEXTS if name in data},
                      "not_checked_because": _part(data.get("not_checked_because"))})


# A failure's parts that are sentences, in order (a JSON list each).
TEXTS = ("context", "advice", "hints", "recipes")


def _part_json(part: str | None) -> object:
    return part.message.to_json() if isinstance(part, Sentence) else part


def _part(data: object) -> str | None:
    """A part read from JSON: a string is text said as it is; a message is said in the current language."""
    if data is None or isinstance(data, str):
        return data
    return messages.sentence(Message.from_json(data))


def render(failure: Failure, language: str | None = None) -> str:
    """The feedback a student reads: in the language the catalog uses now (the parts as they were said), or
    every catalog sentence of it said again in `language` (text that is not one, the student's values and
    JAX's words, as it is)."""
    if language is None:
        return _feedback(failure, str)
    return _feedback(failure, lambda part: messages.said_in(part.message, language) if isinstance(part, Sentence)
                     else part)


def _feedback(failure: Failure, say: Callable[[str], str]) -> str:
    """`failure`'s feedback, each sentence said by `say`."""
    if failure.not_checked_because is not None:
        return say(messages.text("check.not_checked", values_check=failure.not_checked_because))
    lines = [*failure.context, failure.detail, *failure.advice,
             *(messages.text("call.hint", hint=hint) for hint in failure.hints),
             *(messages.text("call.recipe", recipe=recipe) for recipe in failure.recipes)]
    if failure.said_above:
        lines.append(messages.text("call.said_above"))
    feedback = "\n".join(say(line) for line in lines if line)
    if failure.devices is not None:
        return say(messages.text("check.with_devices", devices=failure.devices, feedback=feedback))
    return feedback


class CheckFailed(AssertionError):
    """A check failed with `failure`. An AssertionError, so pytest reports the check as failed, not errored;
    its text is the rendered feedback, for code that only prints it."""

    def __init__(self, failure: Failure):
        super().__init__(render(failure))
        self.failure = failure

    def __str__(self) -> str:
        return render(self.failure)

    def with_failure(self, failure: Failure) -> CheckFailed:
        """The same error (its class and what it carries) failing with `failure` instead."""
        return CheckFailed(failure)


def failure_of(error: AssertionError) -> Failure:
    """The failure an AssertionError stands for: its own for a CheckFailed; a plain `assert` in a suite
    becomes a failure of the property, its message the detail."""
    if isinstance(error, CheckFailed):
        return error.failure
    said = error.args[0] if len(error.args) == 1 else None
    if isinstance(said, Sentence):  # raised with a catalog sentence itself: its reference is kept
        return Failure(detail=said)
    return Failure(detail=str(error).split("\nassert ")[0].strip())


def what_happened(error: AssertionError) -> str:
    """What `error` says happened, to quote inside another sentence: its detail's first line, without its
    closing period. A catalog sentence that is that line (a wrong value's, before its excerpt) keeps its
    reference, so the quote is said in the other language too.

    Args:
        error: the failure caught (a CheckFailed, a StudentCodeError, a plain AssertionError).

    Returns:
        The quote, e.g. "train_step(...) returned wrong values: 1 of 1 entries differ (...)".
    """
    detail = failure_of(error).detail
    line = detail.split("\n", 1)[0]
    message = detail.message if isinstance(detail, Sentence) else None
    while message is not None and message.key == JOINED and dict(message.fields).get("separator") == "\n":
        first = message.fields[1][1] if len(message.fields) > 1 else None
        message = first if isinstance(first, Message) else None
    if message is None or messages.said_in(message, messages.language()) != line:
        return line.rstrip(".")
    return trimmed(Sentence(line, message), ".")


def rebuilt(error: AssertionError, failure: Failure) -> CheckFailed:
    """`error` failing with `failure` instead (a StudentCodeError stays one, with its ChildError)."""
    return error.with_failure(failure) if isinstance(error, CheckFailed) else CheckFailed(failure)


def with_advice(error: AssertionError, *advice: str) -> CheckFailed:
    """`error` with the exercise's `advice` added: `raise with_advice(error, text("03....fix")) from None`.

    Args:
        error: the failure caught (an AssertionError, a StudentCodeError).
        *advice: the exercise's sentences, said after what happened and before the hints.

    Returns:
        The error to raise; a StudentCodeError stays one.
    """
    return rebuilt(error, failure_of(error).advised(*advice))


def with_hint(error: AssertionError, *hints: str | None) -> CheckFailed:
    """`error` with `hints` added, each said as "Hint: ..." (None is skipped).

    Args:
        error: the failure caught.
        *hints: catalog sentences naming the idea behind the mistake.

    Returns:
        The error to raise.
    """
    return rebuilt(error, failure_of(error).hinted(*hints))


def fail(detail: str, *, call: str = "", advice: str = "", hint: str | None = None) -> CheckFailed:
    """A failure of the checked property, to raise: `raise fail(text("03....not_unit_steps", call=call))`.

    Args:
        detail: what happened, a catalog sentence naming the call.
        call: the call as the student would write it (`describe_call`), or "".
        advice: the exercise's sentence on how to fix it, said after the detail.
        hint: the general idea behind it, said as "Hint: ..." after the advice.

    Returns:
        The CheckFailed to raise; the student reads the detail, the advice and the hint, in that order.
    """
    return CheckFailed(Failure(detail=detail, call=call, advice=(advice,) if advice else (),
                               hints=(hint,) if hint else ()))
