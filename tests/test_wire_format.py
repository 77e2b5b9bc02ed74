"""Only plain data crosses the sandbox boundary."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest

from autograder.check.submission import TypedKey
from autograder.protocol import framing
from autograder.protocol.wire_format import (
    EXTENDED_DTYPES,
    WireFormatError,
    array_from_bytes,
    array_to_bytes,
    decode,
    encode,
)


def _plain(leaf):
    return leaf if type(leaf) is np.ndarray else None


def test_round_trip_keeps_structure_and_dtypes():
    value = {"a": (np.arange(3, dtype=np.int32), [1, 2.5, None, True, "s"]), "b": np.float32(2) * np.ones((2, 2),
                                                                                                          np.float32)}
    skeleton, arrays = encode(value, _plain)
    back = decode(skeleton, [array_from_bytes(array_to_bytes(a)) for a in arrays], lambda a: a, lambda d, i: (d, i))
    assert isinstance(back["a"], tuple) and back["a"][1] == [1, 2.5, None, True, "s"]
    assert back["a"][0].dtype == np.int32 and np.array_equal(back["b"], value["b"])


@pytest.mark.parametrize("array", [np.array([object()], dtype=object), np.array(["text"]), np.zeros(2, dtype=[("f",
                                                                                                               "i4")])])
def test_non_numeric_arrays_are_refused(array):
    with pytest.raises(WireFormatError):
        encode({"x": array}, _plain)


def test_ndarray_subclasses_are_refused():
    class Sneaky(np.ndarray):
        pass

    with pytest.raises(WireFormatError, match="not a plain numpy.ndarray"):
        encode(np.zeros(2).view(Sneaky), lambda leaf: leaf)


def test_pickled_bytes_are_refused():
    buffer = io.BytesIO()
    np.save(buffer, np.array([object()], dtype=object), allow_pickle=True)
    with pytest.raises(WireFormatError):
        array_from_bytes(buffer.getvalue())


def test_unknown_leaf_types_are_refused():
    with pytest.raises(WireFormatError, match="value\\['x'\\]"):
        encode({"x": object()}, _plain)


def test_typed_key_data_matches_jax():
    import jax

    for seed in (0, 1, 42, 2**31 - 1):
        assert np.array_equal(TypedKey.from_seed(seed).data, np.asarray(jax.random.key_data(jax.random.key(seed))))


def test_frames_round_trip_and_cap_sizes():
    read_fd, write_fd = os.pipe()
    try:
        framing.write_message(write_fd, {"op": "x"}, [np.arange(4)])
        header, arrays = framing.read_message(read_fd)
        assert header["op"] == "x" and np.array_equal(arrays[0], np.arange(4))
        os.write(write_fd, (framing.MAX_FRAME_BYTES + 1).to_bytes(8, "big"))
        with pytest.raises(WireFormatError, match="exceeds the cap"):
            framing.read_message(read_fd)
    finally:
        os.close(read_fd)
        os.close(write_fd)


def test_reading_times_out_at_the_deadline():
    import time

    read_fd, write_fd = os.pipe()
    try:
        with pytest.raises(framing.ChannelTimeout):
            framing.read_message(read_fd, deadline=time.monotonic() + 0.2)
    finally:
        os.close(read_fd)
        os.close(write_fd)


def test_a_pipe_whose_writers_all_closed_it_says_so_without_reading():
    read_fd, write_fd = os.pipe()
    other_writer = os.dup(write_fd)  # a process that still holds it keeps the pipe open
    try:
        framing.write_message(write_fd, {"op": "unread"}, [])
        assert not framing.writers_gone(read_fd), "an open pipe with an unread message is not gone"
        os.close(write_fd)
        assert not framing.writers_gone(read_fd), "one writer still holds it"
        os.close(other_writer)
        assert framing.writers_gone(read_fd)
        assert framing.read_message(read_fd)[0]["op"] == "unread", "the look read nothing"
    finally:
        os.close(read_fd)


def test_a_value_with_more_arrays_than_the_cap_is_refused_with_the_fix():
    from autograder.protocol.wire_format import MAX_ARRAYS

    skeleton, arrays = encode([np.full((), i, np.float32) for i in range(MAX_ARRAYS)], _plain)
    assert len(arrays) == MAX_ARRAYS
    with pytest.raises(WireFormatError, match="return one stacked array"):
        encode([np.ones(()) for _ in range(MAX_ARRAYS + 1)], _plain)


@pytest.mark.parametrize("backend", ["inprocess", "os"])
def test_a_list_of_hundreds_of_arrays_crosses_on_both_backends(backend, tmp_path):
    """fit returning 500 per-step losses as a list once failed in the sandbox only ("malformed data")."""
    from autograder.check.submission import Submission
    from autograder.grading_config import Limits
    from autograder.load.submission_source import read
    from autograder.sandbox.inprocess import InProcessTransport, load_namespace
    from autograder.sandbox.parent import SandboxTransport

    program = tmp_path / "many.py"
    program.write_text("import jax.numpy as jnp\n\ndef many(n):\n    return [jnp.float32(i) for i in range(n)]\n")
    limits = Limits(submission_seconds=120, load_seconds=60, call_seconds=60)
    if backend == "os":
        transport = SandboxTransport(program, limits)
        notes = transport.start().notes
    else:
        namespace, report = load_namespace(read(program), limits.load_seconds)
        transport, notes = InProcessTransport(namespace, report, limits.call_seconds,
                                              limits.submission_seconds), report.notes
    try:
        values = Submission(transport, notes).call_with("many", (500,))
    finally:
        if backend == "os":
            transport.close()
    assert len(values) == 500 and float(values[499]) == 499.0


# --- every dtype JAX has crosses ---------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(EXTENDED_DTYPES))
def test_every_reduced_precision_dtype_jax_holds_crosses_with_its_bits(name):
    import ml_dtypes

    if not hasattr(ml_dtypes, name):  # an older ml_dtypes: JAX cannot hold it either, and it is refused
        with pytest.raises(WireFormatError):
            decode({"__array__": 0, "dtype": name}, [np.zeros(2, np.uint8)], lambda a: a, lambda d, i: None)
        return
    sent = np.arange(-3, 3).astype(getattr(ml_dtypes, name)).reshape(2, 3)
    skeleton, arrays = encode((sent, "x"), _plain)
    back = decode(skeleton, [array_from_bytes(array_to_bytes(a)) for a in arrays], lambda a: a, lambda d, i: None)
    assert back[0].dtype == sent.dtype and back[0].tobytes() == sent.tobytes() and back[1] == "x"


def test_numpys_own_float16_crosses_as_itself():
    skeleton, arrays = encode(np.ones(3, np.float16), _plain)
    assert skeleton == {"__array__": 0} and arrays[0].dtype == np.float16


@pytest.mark.parametrize("claimed", ["float128", "object", ["bfloat16"], "int4"])
def test_bits_claimed_as_a_dtype_they_cannot_be_are_refused(claimed):
    """A name outside the list, or bits of another size than the named dtype's (int4's are one byte), fail."""
    bits = np.zeros(3, np.uint16)
    with pytest.raises(WireFormatError):
        decode({"__array__": 0, "dtype": claimed}, [bits], lambda a: a, lambda d, i: None)


def test_a_student_function_gets_and_returns_bfloat16_and_is_compared_as_numbers(tmp_path):
    from autograder.check import compare
    from autograder.check.submission import Submission
    from autograder.load.submission_source import read
    from autograder.sandbox.inprocess import InProcessTransport, load_namespace

    notebook = tmp_path / "mixed.py"
    notebook.write_text("import jax.numpy as jnp\n\ndef matmul(a, b):\n    return (a @ b).astype(jnp.bfloat16)\n")
    namespace, report = load_namespace(read(notebook), 60)
    submission = Submission(InProcessTransport(namespace, report, 30, 240), report.notes)
    import ml_dtypes

    a, b = (np.linspace(-1, 1, n * 4).reshape(shape).astype(ml_dtypes.bfloat16) for n, shape in ((3, (3, 4)),
                                                                                                 (2, (4, 2))))
    got = submission.call_with("matmul", (a, b))
    assert got.dtype == ml_dtypes.bfloat16
    compare.assert_close(got, a.astype(np.float32) @ b.astype(np.float32), call="matmul(bf16[3, 4], bf16[4, 2])",
                         rtol=1e-2, atol=1e-2)  # a bfloat16 result: 8 bits of mantissa
    with pytest.raises(AssertionError, match="returned dtype bfloat16, expected float32"):
        compare.assert_close(got, np.zeros((3, 2), np.float32), call="matmul(bf16[3, 4], bf16[4, 2])",
                             check_dtype=True)
