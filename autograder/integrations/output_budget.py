"""How much output one notebook may send nbgrader's process while it runs, counted as it arrives.

nbclient keeps every message a kernel sends in the notebook it is filling,
in nbgrader's own (trusted) process, before any step trims it: a cell that
printed 1 GB raised nbgrader to 1.3 GiB. ExecuteUntilKernelDies counts each
message's size here before nbclient handles it; past CELL_BYTES for the cell
or NOTEBOOK_BYTES for the notebook, the rest is dropped and the cell is
interrupted. With the confined kernel's own cap on one message
(kernel_sandbox.MAX_MESSAGE_BYTES), nbgrader holds at most about
NOTEBOOK_BYTES of a notebook's output, whatever the notebook prints.
"""

from __future__ import annotations

import json

import zmq
from zmq.utils.monitor import recv_monitor_message

CELL_BYTES = 4 << 20  # far above what a cell of these exercises prints (LimitOutput keeps 500 lines of it)
NOTEBOOK_BYTES = 32 << 20


class OutputBudget:
    """The bytes one notebook's cells have sent, and what is left of each cell's and the notebook's budget."""

    def __init__(self, cell_bytes: int = CELL_BYTES, notebook_bytes: int = NOTEBOOK_BYTES) -> None:
        self.cell_bytes, self.notebook_bytes = cell_bytes, notebook_bytes
        self._spent: dict[int, int] = {}
        self._total = 0
        self._refused: set[int] = set()

    def take(self, cell: int, size: int) -> bool:
        """Count `size` more bytes for `cell` if they fit both budgets; False (nothing counted) if not."""
        spent = self._spent.get(cell, 0)
        if cell in self._refused or spent + size > self.cell_bytes or self._total + size > self.notebook_bytes:
            return False
        self._spent[cell], self._total = spent + size, self._total + size
        return True

    def exhaust(self, cell: int) -> None:
        """Count `cell` as past its budget: a message too large to take in arrived for it (DroppedMessages)."""
        self._spent[cell] = self.cell_bytes + 1

    def was_cut(self, cell: int) -> bool:
        """Whether `cell` went past its budget."""
        return cell in self._refused

    def first_refusal(self, cell: int) -> bool:
        """True the first time `cell` is refused (say so and interrupt once), False after."""
        if cell in self._refused:
            return False
        self._refused.add(cell)
        return True

    def describe(self) -> str:
        return f"{self.cell_bytes >> 20} MiB per cell, {self.notebook_bytes >> 20} MiB per notebook"


class DroppedMessages:
    """Whether the kernel sent a message larger than the socket takes in (kernel_sandbox.MAX_MESSAGE_BYTES).

    ZeroMQ drops such a message unread and the connection with it, for good:
    the budget never sees the message, and nothing more would arrive. The
    socket's monitor reports the disconnection; `since_last_look` then
    connects the socket again (what the kernel sends meanwhile is lost), and
    the caller counts the running cell's budget as spent.
    """

    def __init__(self, socket) -> None:
        self._socket = socket
        self._endpoint = socket.getsockopt(zmq.LAST_ENDPOINT).decode()
        monitor = socket.get_monitor_socket(zmq.EVENT_DISCONNECTED)
        # Read without waiting, outside the event loop: a plain socket over the same ZeroMQ socket.
        self._monitor: zmq.Socket = zmq.Socket.shadow(monitor.underlying)
        self._keep = monitor

    def since_last_look(self) -> bool:
        """True if the connection was dropped since the last call; it is connected again."""
        dropped = False
        while self._monitor.poll(0):
            recv_monitor_message(self._monitor)
            dropped = True
        if dropped:
            try:
                self._socket.disconnect(self._endpoint)
            except zmq.ZMQError:
                pass  # already gone
            self._socket.connect(self._endpoint)
        return dropped


def size_of(msg: dict) -> int:
    """The bytes a kernel message brings: its content as JSON, and its binary buffers."""
    content = json.dumps(msg.get("content", {}), default=str)
    return len(content.encode("utf-8", "surrogatepass")) + sum(len(b) for b in msg.get("buffers") or ())
