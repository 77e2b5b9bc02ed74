"""The parent-child protocol: typed requests both ways, and errors the parent reads without trusting them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from autograder.child.cell_execution import LoadReport, execute_cells
from autograder.child.executor import Executor
from autograder.load.submission_source import CodeCell
from autograder.protocol import requests, wire_format
from autograder.protocol.errors import ChildError, ErrorKind

EVERY_REQUEST = [
    requests.Load(name="submission.ipynb", skip_cells=(3, 4), compilation_cache=None, programs="/programs/x",
                  language="ko"),
    requests.CompiledPrograms(),
    requests.Describe("selu"),
    requests.Call("selu", {"args": [{"__array__": 0}], "kwargs": {}}, mode="vmap", in_axes=(0, None),
                  static_argnums=(1,), key_reuse_check=True),
    requests.Trace("power", {"args": [], "kwargs": {}}, static_argnums=(1,)),
    requests.CountTraces("power", {"warmup": [], "calls": []}, static_argnames=("n",), count_all=True),
    requests.Export("per_example_grads@with_loss", {"args": [], "kwargs": {}}),
]


@pytest.mark.parametrize("request_", EVERY_REQUEST, ids=lambda r: r.op)
def test_every_request_crosses_the_pipe_unchanged(request_):
    assert requests.parse(requests.header(request_)) == request_


@pytest.mark.parametrize("header, said", [
    ({"op": "shell", "command": "id"}, "unknown op 'shell'"),
    ({"op": "describe", "function": "f", "eval": "1"}, "describe has no field 'eval'"),
    ({"op": "call"}, "call: "),
    (["describe"], "must be a JSON object"),
])
def test_a_header_that_is_not_a_request_is_refused_with_what_is_wrong(header, said):
    with pytest.raises(requests.RequestError, match=said):
        requests.parse(header)


def test_the_executor_answers_missing_functions_with_a_typed_error():
    executor = Executor({}, LoadReport(notes=[], not_implemented_cells=[2]))
    answer, arrays = executor.handle(requests.Describe("selu"), [])
    assert answer["exists"] is False and arrays == []
    answer, _ = executor.handle(requests.Call("selu", {"args": [], "kwargs": {}}), [])
    error = ChildError.from_wire(answer["error"])
    assert error.kind is ErrorKind.MISSING and error.function == "selu" and error.not_implemented_cells == (2,)


def _raised(source: str, function: str, *args) -> ChildError:
    """What the child reports when `function`, defined by the one cell `source`, raises."""
    namespace: dict = {}
    executor = Executor(namespace, execute_cells((CodeCell(1, source),), namespace))
    skeleton, arrays = wire_format.encode({"args": args, "kwargs": {}}, lambda leaf: leaf)
    answer, _ = executor.handle(requests.Call(function, skeleton), arrays)
    return ChildError.from_wire(answer["error"])


def test_the_released_stub_is_not_implemented_yet():
    error = _raised('def selu(x):\n    """The docstring."""\n    raise NotImplementedError()\n', "selu", np.ones(2))
    assert error.is_not_implemented


def test_a_students_own_not_implemented_error_is_their_error_with_its_message():
    source = ("def activation(x, name):\n    if name == 'relu':\n        return x\n"
              "    raise NotImplementedError(f'unsupported: {name}')\n")
    error = _raised(source, "activation", np.ones(2), "tanh")
    assert error.type == "NotImplementedError" and not error.is_not_implemented
    assert error.message == "unsupported: tanh"


def test_a_student_exception_arrives_as_a_raised_error_with_its_type_and_line():
    namespace: dict = {}
    source = "def selu(x):\n    raise NotImplementedError('todo')\n"
    executor = Executor(namespace, execute_cells((CodeCell(1, source),), namespace))
    skeleton, arrays = wire_format.encode({"args": (np.ones(2),), "kwargs": {}}, lambda leaf: leaf)
    answer, _ = executor.handle(requests.Call("selu", skeleton), arrays)
    error = ChildError.from_wire(answer["error"])
    assert error.kind is ErrorKind.RAISED and error.type == "NotImplementedError" and error.is_not_implemented
    assert error.where == {"function": "selu", "line": 2}


@pytest.mark.parametrize("wire", [None, "raised", {"kind": "root_shell"}, {"kind": 7}])
def test_a_malformed_error_from_the_child_becomes_bad_output(wire):
    assert ChildError.from_wire(wire).kind is ErrorKind.BAD_OUTPUT


def test_error_fields_of_the_wrong_type_are_dropped_and_long_text_is_cut():
    error = ChildError.from_wire({"kind": "raised", "type": ["list"], "mro": ["ValueError", 3, None],
                                  "message": "x" * 10_000, "where": "line 1", "similar": "selu"})
    assert error.type == "" and error.mro == ("ValueError",) and error.where is None and error.similar == ()
    assert len(error.message) == 2000


def test_a_child_error_round_trips_through_its_wire_form():
    error = ChildError(ErrorKind.TAMPERED, changes=("jax.jit was replaced",))
    assert ChildError.from_wire(error.to_wire()) == error
    assert dataclasses.asdict(ChildError.from_wire({"kind": "timeout"}))["kind"] is ErrorKind.TIMEOUT


# --- what crosses between the grading worker and the clean-room runner ------------------------

def test_program_facts_round_trip_through_their_wire_form():
    from autograder.protocol.program_facts import ProgramFacts

    facts = ProgramFacts(frozenset({"while", "scan", "add"}), 12, 2500, frozenset(), 4,
                         (("add", 7), ("func", 1), ("return", 1), ("while", 3)))
    assert ProgramFacts.from_wire(facts.to_wire()) == facts
    assert facts.collectives == frozenset()


@pytest.mark.parametrize("wire", [None, [], {"operations": "while", "equation_count": 3},
                                  {"operations": ["x" * 65], "equation_count": 3},
                                  {"operations": [], "equation_count": -1},
                                  {"operations": [], "equation_count": True},
                                  {"operation_counts": [["add", -1]]}, {"operation_counts": [["add", 1], ["add", 2]]},
                                  {"operation_counts": [["add"]]}, {"operation_counts": {"add": 1}}])
def test_malformed_program_facts_are_refused(wire):
    from autograder.protocol.program_facts import FactsError, ProgramFacts

    base = {"operations": [], "equation_count": 0, "largest_value_elements": 0, "custom_call_targets": [],
            "nr_devices": 1, "operation_counts": []}
    assert ProgramFacts.from_wire(base).operation_counts == ()  # well-formed without the malformed field
    with pytest.raises(FactsError):
        ProgramFacts.from_wire(dict(base, **wire) if isinstance(wire, dict) else wire)


@pytest.mark.parametrize("header, problem", [
    ({"op": "run_program", "handle": "h", "args_skeleton": {}, "cpu_seconds": 0}, "cpu_seconds"),
    ({"op": "run_program", "handle": "h", "args_skeleton": {}, "cpu_seconds": True}, "cpu_seconds"),
    ({"op": "load_program", "cpu_seconds": 5, "path": "/etc/shadow"}, "no field 'path'"),
    ({"op": "exec", "cpu_seconds": 5}, "unknown op"),
])
def test_program_requests_refuse_unknown_ops_fields_and_limits(header, problem):
    from autograder.protocol import program_requests

    with pytest.raises(requests.RequestError, match=problem):
        program_requests.parse(header)


def test_a_program_request_round_trips_through_its_header():
    from autograder.protocol import program_requests

    request = program_requests.RunProgram(handle="ab" * 32, args_skeleton={"__dict__": {}}, cpu_seconds=8)
    assert program_requests.parse(program_requests.header(request)) == request
