"""One graded result, said in English or Korean from the same stored value.

A failure keeps its catalog sentences as references (key and fields,
catalog/message_ref.py); results.json keeps them as data beside the feedback
in the run's language; any output says the stored result again in either
language (reports/said_in.py), the student's values and JAX's words as they are.
"""

from __future__ import annotations

import json
import re

import pytest
from conftest import REPO
from test_korean_feedback import english_words

from autograder.catalog import messages
from autograder.catalog.message_ref import JOINED, Literal, Message, Sentence, joined
from autograder.check.failure import Failure, FailureKind, render
from autograder.grade.pipeline import GradingOptions, grade_submission
from autograder.reports import junit_xml
from autograder.reports.said_in import failure_in, results_said_in

HANGUL = re.compile(r"[가-힣]")
SUBMISSION = REPO / "tests" / "corpus" / "02_where" / "mistakes" / "safe_log_python_if.py"


@pytest.fixture
def korean():
    messages.choose("ko")
    yield
    messages.choose(None)


def test_a_sentence_is_text_that_keeps_its_key_and_fields():
    said = messages.text("call.hint", hint=messages.text("call.missing_function", function="f"))
    assert isinstance(said, Sentence) and said == "Hint: " + messages.ENGLISH["call.missing_function"].format(
        function="f")
    assert said.message.keys() == ["call.hint", "call.missing_function"]
    assert Message.from_json(json.loads(json.dumps(said.message.to_json()))) == said.message


def test_a_field_that_is_not_plain_data_is_kept_as_it_was_formatted():
    import numpy as np

    said = messages.text("check.wrong_shape", call="f(x)", actual=np.float32(0.1), expected=(3,))
    fields = dict(said.message.fields)
    assert fields["actual"] == Literal(format(np.float32(0.1), "")) and fields["expected"] == Literal("(3,)")
    assert messages.said_in(said.message, "en") == said


def test_a_sentence_says_itself_in_another_language(korean):
    said = messages.text("call.missing_function", function="f")
    messages.choose(None)
    assert messages.said_in(said.message, "en") == messages.text("call.missing_function", function="f")
    assert HANGUL.search(said) and not HANGUL.search(messages.said_in(said.message, "en"))


def test_joined_sentences_keep_each_reference_and_the_text_between():
    first, second = messages.text("call.missing_function", function="f"), messages.text("call.said_above")
    said = joined("\n", first, "student text", second)
    assert said == f"{first}\nstudent text\n{second}" and said.message.key == JOINED
    assert messages.said_in(said.message, "ko").split("\n")[1] == "student text"
    assert joined(" ", "a", "b") == "a b" and not isinstance(joined(" ", "a", "b"), Sentence)


def test_a_failure_from_data_with_a_key_the_catalog_lacks_is_refused():
    data = Failure(messages.text("call.said_above")).to_json()
    data["detail"] = {"key": "no.such.key", "fields": {}}
    with pytest.raises(ValueError):
        Failure.from_json(data)
    data["detail"] = {"key": "call.missing_function", "fields": {}}  # a field missing: not sayable either
    with pytest.raises(ValueError):
        Failure.from_json(data)
    test = {"name": "f: correct", "output": "as written", "extra_data": {"check": "f: correct", "failure": data}}
    assert failure_in(test) is None and results_said_in({"tests": [test]}, "ko")["tests"][0]["output"] == "as written"


def test_not_checked_is_said_from_the_value_in_either_language(korean):
    failure = Failure(messages.text("call.said_above"), FailureKind.PROPERTY,
                      not_checked_because=messages.check_name("correct"))
    assert HANGUL.search(render(failure))
    assert render(failure, "en") == messages.ENGLISH["check.not_checked"].format(values_check="correct")


def test_one_graded_result_is_said_wholly_in_english_and_wholly_in_korean(config, seed, korean):
    """Graded once (in Korean); its results.json, read back, is said in English and in Korean."""
    graded = grade_submission(SUBMISSION, config, GradingOptions(seed=seed, sandbox="inprocess",
                                                                 assignment="02_where"))
    stored = json.loads(json.dumps(graded.to_gradescope()))
    failed = [test for test in stored["tests"] if test["status"] != "passed"]
    assert len(failed) >= 3 and all(failure_in(test) is not None for test in failed)
    english, korean_again = results_said_in(stored, "en"), results_said_in(stored, "ko")
    assert [t["output"] for t in korean_again["tests"]] == [t["output"] for t in stored["tests"]]
    names = set(config.functions("02_where"))
    for test in english["tests"]:
        assert not HANGUL.search(test["name"] + test.get("output", "")), test
    for test in korean_again["tests"]:
        if test["status"] != "passed":
            assert HANGUL.search(test["output"]) and not english_words(test["output"], names), test["output"]
    assert english["extra_data"]["language"] == "en"
    in_junit = junit_xml.render([english]).decode()
    assert failed[0]["extra_data"]["check"] in in_junit and not HANGUL.search(in_junit)


def test_said_again_in_its_own_language_a_result_reads_as_it_was_graded(config, seed):
    graded = grade_submission(SUBMISSION, config, GradingOptions(seed=seed, sandbox="inprocess",
                                                                 assignment="02_where"))
    assert graded.said_in(graded.language) is graded
    stored = json.loads(json.dumps(graded.to_gradescope()))
    assert results_said_in(stored, "en")["tests"] == stored["tests"]
    korean = graded.said_in("ko")
    assert korean.language == "ko" and all(HANGUL.search(check.feedback) for check in korean.checks if not check.passed)


def test_the_student_packages_recording_reads_hint_keys_from_the_failure_not_its_text(korean):
    """Said in Korean, read while the catalog speaks English: the keys come from the references."""
    from autograder.student import probing

    failure = Failure(messages.text("call.missing_function", function="safe_log"),
                      advice=(messages.text("02_where.masked_mean.empty"),),
                      hints=(messages.text("02_where.safe_log.double_where"),))
    messages.choose("en")
    assert probing.hints_in(failure, "02_where") == [{"key": "02_where.masked_mean.empty", "wrapped": False},
                                                     {"key": "02_where.safe_log.double_where", "wrapped": True}]
    assert probing.hints_in(render(failure), "02_where") == []  # its text is Korean: no English sentence in it
    error = probing.raised_error()
    advised = error.failure.advised(messages.text("02_where.masked_mean.empty"))
    assert render(error.failure).splitlines()[1] == messages.text("call.hint", hint=probing._HINT_MARK)
    assert probing.error_advice_in(advised, "02_where") == [
        {"key": "02_where.masked_mean.empty", "wrapped": False, "before": True}]
    assert probing.error_advice_in(advised.hinted(messages.text("02_where.safe_log.double_where")), "02_where")[1] \
        == {"key": "02_where.safe_log.double_where", "wrapped": True, "before": False}


def test_a_childs_note_crosses_the_pipe_as_data_the_parent_checks_and_says_itself():
    from autograder.protocol.errors import ChildError, ErrorKind
    from autograder.protocol.sentences import from_wire, to_wire

    note = messages.text("load.cell_not_implemented", cell=3)
    sent = json.loads(json.dumps(to_wire(note)))
    assert sent["message"] == {"key": "load.cell_not_implemented", "fields": {"cell": 3}}
    read = from_wire(sent)
    assert read == note and isinstance(read, Sentence) and HANGUL.search(messages.said_in(read.message, "ko"))
    forged = {"text": "the child's own words", "message": {"key": "load.cell_not_implemented", "fields": {"cell": 4}}}
    assert from_wire(forged) == messages.text("load.cell_not_implemented", cell=4)  # said by the parent, not the child
    deep: dict = {"key": "call.hint", "fields": {}}
    for _ in range(50):
        deep = {"key": "call.hint", "fields": {"hint": deep}}
    for refused in ({"key": "no.such.key", "fields": {}}, {"key": "load.cell_not_implemented", "fields": {}},
                    {"key": "load.cell_not_implemented", "fields": {"cell": [1]}}, deep, "not a message"):
        assert from_wire({"text": "as sent", "message": refused}) == "as sent"
    assert from_wire({"message": {"key": "no.such.key"}}) == "" and from_wire(7) == "7"
    error = ChildError.from_wire(json.loads(json.dumps(ChildError(ErrorKind.MISSING, load_problems=(note,)).to_wire())))
    assert error.load_problems == (note,) and isinstance(error.load_problems[0], Sentence)


def test_a_results_notes_are_said_in_the_other_language_too(korean):
    from autograder.check.results import SubmissionResult

    notes = [messages.text("load.cell_not_implemented", cell=2), "plain text of the run"]
    result = SubmissionResult("s", "s.py", "02_where", 1, [], notes=notes, language="ko")
    stored = json.loads(json.dumps(result.to_gradescope()))
    assert stored["output"] == "\n".join(notes)
    english = results_said_in(stored, "en")["output"].splitlines()
    assert english == [messages.ENGLISH["load.cell_not_implemented"].format(cell=2), "plain text of the run"]


def test_a_missing_function_keeps_the_reference_of_the_cell_that_raised(korean):
    from autograder.check.submission import _missing_feedback

    problem = messages.text("load.cell_raised", cell=1, error_type="ImportError", error="no PositionalSharding")
    said = _missing_feedback("shard_rows", (), [problem])
    english = messages.said_in(said.message, "en")  # type: ignore[attr-defined]
    assert HANGUL.search(said) and not HANGUL.search(english) and "no PositionalSharding" in english


def test_a_hint_is_said_in_the_other_language_at_the_level_it_was_said_at():
    with messages.hints_at("idea"):
        hint = messages.text("02_where.safe_log.double_where")
    assert hint.message.level == "idea" and hint == messages.ENGLISH["02_where.safe_log.double_where.idea"]
    with messages.hints_at("recipe"):
        korean = messages.said_in(hint.message, "ko")
    assert korean == messages.catalog("ko")["02_where.safe_log.double_where.idea"]


def test_what_happened_is_quoted_with_its_reference_in_another_sentence(korean):
    from autograder.check.failure import CheckFailed, what_happened

    first = messages.text("check.not_finite", call="f(x)", count=2)
    error = CheckFailed(Failure(joined("\n", first, "  got: [nan nan]")))
    quote = what_happened(error)
    assert quote == first.rstrip(".") and isinstance(quote, Sentence)
    english = messages.said_in(quote.message, "en")
    assert english == messages.ENGLISH["check.not_finite"].format(call="f(x)", count=2).rstrip(".")
    assert what_happened(AssertionError("plain text.\nassert x")) == "plain text"


def test_a_nan_or_an_infinity_in_a_sentence_is_kept_as_its_text_so_results_json_stays_strict_json():
    said = messages.text("check.wrong_values", call="f(x)", count=1, size=1, max_diff=float("nan"), rtol=0.0,
                         atol=float("inf"), index="()", got="nan", expected="1")
    data = Failure(said).to_json()
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert Failure.from_json(data).detail == said and messages.said_in(said.message, "en") == said
