"""A results.json said in another language, from the failures it keeps as data.

results.json holds each failed check's feedback in the run's language ("output")
and its failure as data (extra_data.failure: kind, call, and each catalog
sentence as its key and fields, check/failure.py), and the submission's notes
as data too (extra_data.notes, as protocol/sentences.py writes them). Any output can say the same
stored result in English or Korean from that data: the feedback, the check's
name and the language it names. Text that is not a catalog sentence (the
student's values, JAX's error text) is said as it is; a test whose failure the
kit cannot read (written by another version, cut short, or naming a key the
catalog does not have) keeps the output it has.
"""

from __future__ import annotations

from typing import Any

from autograder.catalog import messages
from autograder.catalog.message_ref import Message, Sentence
from autograder.check.failure import Failure, render
from autograder.protocol.sentences import from_wire
from autograder.reports.result_json import check_id, mapping, mappings


def results_said_in(results: dict[str, Any], language: str) -> dict[str, Any]:
    """A copy of the results.json dict `results` with every test said in `language` (see test_said_in)."""
    extra = {**mapping(results.get("extra_data")), "language": language}
    said = {**results, "tests": [test_said_in(test, language) for test in mappings(results.get("tests"))],
            "extra_data": extra}
    if isinstance(extra.get("notes"), list):  # the notes "output" holds, kept as data
        said["output"] = "\n".join(_note_in(note, language) for note in extra["notes"])
    return said


def _note_in(note: object, language: str) -> str:
    """A note of results.json's extra_data.notes said in `language`; one whose reference the catalog cannot
    say, as its text."""
    said = from_wire(note)
    return messages.said_in(said.message, language) if isinstance(said, Sentence) else said


def test_said_in(test: dict[str, Any], language: str) -> dict[str, Any]:
    """A copy of one results.json test with its name and its feedback said in `language`."""
    said = dict(test)
    function, _, prop = check_id(test).partition(": ")
    if prop:
        said["name"] = f"{function}: {messages.said_in(Message(messages.CHECK_NAME_PREFIX + prop), language)}"
    failure = failure_in(test)
    if failure is not None:
        said["output"] = render(failure, language)
    return said


def failure_in(test: dict[str, Any]) -> Failure | None:
    """The failure a results.json test keeps (extra_data.failure), or None where it has none the kit can read."""
    data = mapping(test.get("extra_data")).get("failure")
    if not isinstance(data, dict):
        return None
    try:
        return Failure.from_json(data)
    except (KeyError, TypeError, ValueError):
        return None
