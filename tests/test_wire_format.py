"""Only plain data crosses the sandbox boundary."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest

from autograder.sandbox import framing
from autograder.submission import TypedKey
from autograder.wire_format import WireFormatError, array_from_bytes, array_to_bytes, decode, encode


def _plain(leaf):
    return leaf if type(leaf) is np.ndarray else None


def test_round_trip_keeps_structure_and_dtypes():
    value = {"a": (np.arange(3, dtype=np.int32), [1, 2.5, None, True, "s"]), "b": np.float32(2) * np.ones((2, 2), np.float32)}
    skeleton, arrays = encode(value, _plain)
    back = decode(skeleton, [array_from_bytes(array_to_bytes(a)) for a in arrays], lambda a: a, lambda d, i: (d, i))
    assert isinstance(back["a"], tuple) and back["a"][1] == [1, 2.5, None, True, "s"]
    assert back["a"][0].dtype == np.int32 and np.array_equal(back["b"], value["b"])


@pytest.mark.parametrize("array", [np.array([object()], dtype=object), np.array(["text"]), np.zeros(2, dtype=[("f", "i4")])])
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
