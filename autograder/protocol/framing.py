"""Length-prefixed, size-capped frames over a pipe.

A message is one JSON header frame followed by `header["arrays"]` frames of
`np.save` bytes. Frames are capped so a child cannot make the parent
allocate without bound.
"""

from __future__ import annotations

import json
import os
import select
import struct
import time

import numpy as np

from autograder.load import bounded_json
from autograder.protocol.wire_format import MAX_ARRAYS, WireFormatError, array_from_bytes, array_to_bytes

__all__ = ["ChannelClosed", "ChannelTimeout", "WireFormatError", "read_message", "write_message", "writers_gone"]

MAX_FRAME_BYTES = 64 * 1024 * 1024
MAX_MESSAGE_BYTES = 256 * 1024 * 1024  # all of one message's array frames together
_LENGTH = struct.Struct(">Q")


class ChannelClosed(EOFError):
    """The other end closed the pipe (the child exited or was killed)."""


class ChannelTimeout(TimeoutError):
    """No complete message arrived before the deadline."""


def writers_gone(fd: int) -> bool:
    """Whether every writer of the pipe `fd` reads from has closed it: the process at the other end is gone.

    A look at this process's own descriptor, for a check made before every request (no message is read)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return any(events & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, events in poller.poll(0))


def write_message(fd: int, header: dict, arrays: list[np.ndarray]) -> None:
    if len(arrays) > MAX_ARRAYS:
        raise WireFormatError(f"{len(arrays)} arrays exceed the cap of {MAX_ARRAYS}")
    payloads = [array_to_bytes(array) for array in arrays]
    size = sum(map(len, payloads))
    if size > MAX_MESSAGE_BYTES:
        raise WireFormatError(f"arrays of {size} bytes exceed the cap of {MAX_MESSAGE_BYTES}")
    header = dict(header, arrays=len(arrays))
    _write_frame(fd, json.dumps(header).encode("utf-8"))
    for payload in payloads:
        _write_frame(fd, payload)


def read_message(fd: int, deadline: float | None = None) -> tuple[dict, list[np.ndarray]]:
    """Read one message; `deadline` is a time.monotonic() value, or None to wait forever."""
    try:
        # Bounded nesting: a child can send any header, and json.loads recurses once per level.
        header = bounded_json.loads(_read_frame(fd, deadline), max_bytes=MAX_FRAME_BYTES)
    except ValueError as error:  # not UTF-8, not JSON, or nested deeper than bounded_json allows
        raise WireFormatError(f"malformed message header: {error}") from None
    if type(header) is not dict:
        raise WireFormatError("message header is not a JSON object")
    count = header.pop("arrays", 0)  # framing's own field: the reader gets the header as it was sent
    if type(count) is not int or not 0 <= count <= MAX_ARRAYS:
        raise WireFormatError(f"bad array count {count!r}")
    arrays, total = [], 0
    for _ in range(count):
        payload = _read_frame(fd, deadline)
        total += len(payload)
        if total > MAX_MESSAGE_BYTES:
            raise WireFormatError(f"arrays of more than {MAX_MESSAGE_BYTES} bytes in one message")
        arrays.append(array_from_bytes(payload))
    return header, arrays


def _write_frame(fd: int, payload: bytes) -> None:
    if len(payload) > MAX_FRAME_BYTES:
        raise WireFormatError(f"frame of {len(payload)} bytes exceeds the cap of {MAX_FRAME_BYTES}")
    data = memoryview(_LENGTH.pack(len(payload)) + payload)
    while data:
        written = os.write(fd, data)
        data = data[written:]


def _read_frame(fd: int, deadline: float | None) -> bytes:
    (length,) = _LENGTH.unpack(_read_exactly(fd, _LENGTH.size, deadline))
    if length > MAX_FRAME_BYTES:
        raise WireFormatError(f"frame of {length} bytes exceeds the cap of {MAX_FRAME_BYTES}")
    return _read_exactly(fd, length, deadline)


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes:
    chunks, remaining = [], size
    while remaining:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                raise ChannelTimeout()
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise ChannelClosed()
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
