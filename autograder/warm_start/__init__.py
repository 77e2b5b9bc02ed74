"""Warm starts for `autograder check`: a process that has already imported JAX forks each repeated check.

Importing JAX and the kit is most of a repeated check's wait (0.5-0.8 s of
1-2 s), and it is the same work every time. So after a check that ran on
its own, the command leaves a server behind (`server.py`): one process,
owned by the same user, that imports what a check imports and then waits on
a Unix socket in the user's cache folder. The next `autograder check` with
the same interpreter, kit and environment (`identity.py`) hands it its
command line, working folder, environment and terminal (`client.py`); the
server forks, and the fork runs the check exactly as the command would have,
in a process of its own. JAX's backend never starts in the server, so each
fork starts it afresh, as a new process does.

What the server is not:
- not shared between users: its folder is the user's own (mode 0700), and
  both ends check the other's uid;
- not a place where student code runs: only its forks run a check, each
  once, and exit;
- not long-lived: it exits after ten minutes without a check, when its
  socket is removed (the cache folder cleared), or when a newer server
  takes its place. `AUTOGRADER_WARM_CHECKS=off` turns it off.

Linux only: forking a process that has imported JAX is what the grader's
zygote does there; on macOS, forking without exec is unsafe for system
libraries, so checks there run as before.
"""
