"""The student package's process that merges the device counts' results reads failures an exercise sentence
leads, though it never replayed the record that teaches the catalog those sentences.

Each device count's process replays the assignment's record, learning its exercise hints and known mistakes
(the package ships no suite catalog), and sends its result with each failure's catalog references. The
merging process reads those references back and refuses a key its catalog does not know: it must learn the
record's sentences too. Before, every 10 mistake whose failure says the exercise's recipe ended the check with
"the check with 4 devices exited with 0" (the kit's failure, said to the student).
"""

from __future__ import annotations

import json

from autograder.catalog import messages
from autograder.student import check_processes, recorded

KEY = "99_made_up.shift.values"  # a key no catalog of the kit has


def _result_line(assignment: str) -> str:
    failure = {"detail": {"key": "check.wrong_shape", "fields": {"call": "shift(f32[4])", "actual": {"literal": "(5,)"},
                                                                "expected": {"literal": "(4,)"}}},
               "kind": "wrong_values", "call": "shift(f32[4])", "context": [], "advice": [], "hints": [],
               "recipes": [{"key": KEY, "fields": {}, "level": "api"}], "devices": None,
               "not_checked_because": None, "said_above": False}
    check = {"function": "shift", "prop": "correct", "score": 0.0, "max_score": 1.0, "passed": False,
             "feedback": "shift(f32[4]) returned shape (5,), expected (4,).", "not_checked": False, "failure": failure}
    return json.dumps({"name": "shift", "path": "shift.py", "assignment": assignment, "seed": 1, "checks": [check],
                       "notes": [], "printed_output": "", "problem": None, "assignment_mismatch": None,
                       "language": "en"})


def test_a_failure_led_by_an_exercise_sentence_is_read_back_after_its_record_is_learned(tmp_path, monkeypatch):
    record = {"hints": {KEY: {"idea": {"en": "Shift with one slice.", "ko": "슬라이스 하나로 옮기세요."}}}}
    (tmp_path / "99_made_up.devices-2.json").write_text(json.dumps(record))
    monkeypatch.setattr(recorded, "DATA", tmp_path)
    assert KEY not in messages.ENGLISH
    result = check_processes.result_from_json(_result_line("99_made_up"))
    [recipe] = result.checks[0].failure.recipes
    assert recipe == "Shift with one slice."
    assert messages.said_in(recipe.message, "ko") == "슬라이스 하나로 옮기세요."


def test_a_key_no_record_teaches_is_still_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(recorded, "DATA", tmp_path)
    try:
        check_processes.result_from_json(_result_line("98_unknown").replace(KEY, "98_unknown.f.values"))
    except ValueError as error:
        assert "98_unknown.f.values" in str(error)
    else:
        raise AssertionError("an unknown key was accepted")
