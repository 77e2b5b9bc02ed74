"""The messages between a check command and a warm server: JSON objects, each after its length (4 bytes)."""

from __future__ import annotations

import json
import socket
import struct

HEADER = struct.Struct("!I")


def peer_uid(connection: socket.socket) -> int:
    """The user id of the process at the other end of `connection` (Linux's SO_PEERCRED: pid, uid, gid)."""
    return struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[1]


def send(connection: socket.socket, message: dict) -> None:
    try:
        connection.sendall(framed(message))
    except OSError:
        pass  # the other end has gone; what it does about it is its own


def framed(message: dict) -> bytes:
    data = json.dumps(message).encode()
    return HEADER.pack(len(data)) + data


def received(connection: socket.socket, first: bytes = b"", limit: int = 1 << 20) -> dict | None:
    """The next message (`first`: bytes of it already read), or None if the connection ends before it does, or
    it is longer than `limit` or not a JSON object."""
    buffer = bytearray(first)
    if not _filled(connection, buffer, HEADER.size):
        return None
    (length,) = HEADER.unpack_from(buffer)
    if length > limit or not _filled(connection, buffer, HEADER.size + length):
        return None
    try:
        message = json.loads(bytes(buffer[HEADER.size:HEADER.size + length]))
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _filled(connection: socket.socket, buffer: bytearray, size: int) -> bool:
    while len(buffer) < size:
        chunk = connection.recv(size - len(buffer))
        if not chunk:
            return False
        buffer += chunk
    return True
