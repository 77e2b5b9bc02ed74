"""The confined kernel's client gives its ZeroMQ context back when nbclient is done with it.

ConfinedKernelClient makes a context of its own (every socket of it refuses
oversized messages). A client that made its context must say so
(`_created_context`), or stop_channels leaves the context to the garbage
collector, which collects it in a cycle with its sockets: terminating it then
waits for sockets that are garbage but not closed, forever, in whichever
process collects it (nbgrader's, a test worker's).
"""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO

_A_NOTEBOOK_DONE = """
import gc
import zmq
from autograder.sandbox.kernel_sandbox import ConfinedKernelClient


class Holder:
    pass


client = ConfinedKernelClient()
socket = client.context.socket(zmq.DEALER)
socket.connect("tcp://127.0.0.1:9")
socket.send(b"never delivered")
holder = Holder()
holder.client, holder.socket = client, socket
client.holder = holder  # a cycle, as a channel and its client make
client.stop_channels()  # as nbclient does when a notebook is done
del client, socket, holder
gc.collect()
print("collected")
"""


def test_a_stopped_client_is_collected_without_waiting_for_its_sockets():
    done = subprocess.run([sys.executable, "-c", _A_NOTEBOOK_DONE], cwd=REPO, capture_output=True, text=True,
                          timeout=300)  # a hang fails here, however fast the machine
    assert done.returncode == 0 and done.stdout.strip() == "collected", done.stderr[-2000:]
