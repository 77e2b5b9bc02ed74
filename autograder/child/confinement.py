"""Inside the OS sandbox: turn a fresh fork of the zygote into a confined child.

The zygote runs inside bubblewrap (see sandbox.os_isolation): a read-only view
of the Python installation and the kit's child-side code, no network, its own
PID, IPC and UTS namespaces. It keeps root and a few capabilities there so
that each child can be given what it must not share with any other:

- `enter_pid_namespace`: in the fork the zygote made, a new PID and mount
  namespace; the caller then forks once more, and that process is PID 1 of
  the new namespace, so every process student code starts dies with it;
- `confine`: in that PID 1, a private size-capped tmpfs as its only writable
  directory (also mounted over /tmp and /dev/shm), a /proc that shows only
  its own processes, then a uid and gid of its own (never root, never the
  grader's, never another live child's), no capabilities, no new privileges,
  the OS limits, and a seccomp filter that refuses what no grading needs
  (ptrace, namespaces, mounts, kernel keyrings, BPF...).

Everything here is a system call; nothing relies on Python-level filtering.
The functions run before any student code and raise ConfinementError if
any step fails: a child that is not fully confined never serves.
"""

from __future__ import annotations

import ctypes
import errno
import os
import select
import signal

from autograder.protocol.limits import ChildLimits

WORKDIR = "/sandbox"  # the child's private tmpfs, its cwd, HOME and TMPDIR

_CLONE_NEWNS = 0x00020000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWIPC = 0x08000000
_CLONE_NEWNET = 0x40000000
_CLONE_NEWUSER = 0x10000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_BIND, _MS_REC, _MS_PRIVATE = 2, 4, 8, 4096, 16384, 1 << 18
_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE, _PR_SET_NO_NEW_PRIVS = 1, 4, 38
_LIBC = ctypes.CDLL(None, use_errno=True)

# Refused with EPERM: debugging other processes, changing namespaces or mounts,
# kernel facilities no grading needs and whose bugs are the usual way out of a sandbox.
REFUSED_SYSCALLS = (
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "reboot", "swapon", "swapoff", "acct", "quotactl", "syslog", "open_by_handle_at", "name_to_handle_at",
    "settimeofday", "clock_settime", "adjtimex", "sethostname", "setdomainname", "vhangup",
    # Its pages count against no limit of the process (RLIMIT_AS counts only what is mapped).
    "memfd_create", "memfd_secret",
)


class ConfinementError(RuntimeError):
    """A confinement step failed; the child must not run student code."""


def enter_pid_namespace() -> None:
    """New PID, mount, IPC and network namespaces for one child (run as root in the zygote's fork).

    IPC: a System V shared memory segment or message queue would otherwise
    outlive the child and be readable by the next one (and hold memory no
    process owns). Network: the child's own loopback, empty, so nothing it
    leaves listening there is reachable by another child. Both cost well under
    a millisecond.
    """
    _check(_LIBC.unshare(_CLONE_NEWPID | _CLONE_NEWNS | _CLONE_NEWIPC | _CLONE_NEWNET),
           "unshare(CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET)")


def confine(uid: int, limits: ChildLimits, tmpfs_bytes: int, parent_alive_fd: int) -> None:
    """Make this process (PID 1 of its own namespace) a confined child running as `uid`.

    `parent_alive_fd` is the read end of a pipe whose write end only the
    parent holds: it reads as closed once the parent has died.
    """
    if os.getpid() != 1:
        raise ConfinementError(f"confine() must run as PID 1 of a new PID namespace, not PID {os.getpid()}")
    _private_mounts(uid, tmpfs_bytes)
    _drop_identity(uid)
    _die_with_parent(parent_alive_fd)
    limits.apply()
    _no_new_privileges()
    _install_seccomp_filter()
    os.chdir(WORKDIR)


def _private_mounts(uid: int, tmpfs_bytes: int) -> None:
    # Mounts made from here on stay in this namespace: nobody else sees them,
    # and they vanish when the child's last process ends.
    _check(_LIBC.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "making / private")
    options = f"size={tmpfs_bytes},nr_inodes=4096,mode=0700,uid={uid},gid={uid}".encode()
    _check(_LIBC.mount(b"tmpfs", WORKDIR.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options), f"tmpfs on {WORKDIR}")
    scratch = os.path.join(WORKDIR, ".tmp")
    os.mkdir(scratch, 0o700)
    os.chown(scratch, uid, uid)
    # /tmp is read-only in the view (it may hold the Python installation itself);
    # /dev/shm would be shared with other children, so it becomes private too.
    if os.path.isdir("/dev/shm"):
        _check(_LIBC.mount(scratch.encode(), b"/dev/shm", None, _MS_BIND, None), "bind /dev/shm")
    _check(_LIBC.mount(b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None), "/proc")


def _drop_identity(uid: int) -> None:
    if uid <= 0:
        raise ConfinementError(f"a child's uid must be positive, got {uid}")
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)  # leaving root clears every capability
    if os.getresuid() != (uid, uid, uid) or os.getresgid() != (uid, uid, uid):
        raise ConfinementError(f"could not become uid {uid}")
    # Not dumpable: no /proc/<pid>/mem or ptrace access, even from the same uid.
    _check(_LIBC.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0), "PR_SET_DUMPABLE")


def _die_with_parent(parent_alive_fd: int) -> None:
    # Set after the uid change, which clears it. The parent is outside this
    # PID namespace (getppid() says 0 either way), so ask its pipe instead.
    _check(_LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "PR_SET_PDEATHSIG")
    if select.select([parent_alive_fd], [], [], 0)[0]:
        raise ConfinementError("the parent of the child died before it was confined")


def _no_new_privileges() -> None:
    _check(_LIBC.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "PR_SET_NO_NEW_PRIVS")


def _install_seccomp_filter() -> None:
    import pyseccomp as seccomp

    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in REFUSED_SYSCALLS:
        try:
            rules.add_rule(seccomp.ERRNO(errno.EPERM), name)
        except (RuntimeError, OSError, ValueError):
            pass  # a system call this kernel or libseccomp does not know cannot be made either
    # A new user namespace would make the child root of a world of its own.
    rules.add_rule(seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, _CLONE_NEWUSER,
                                                                    _CLONE_NEWUSER))
    # clone3 passes its flags in memory, which a filter cannot read: refuse it, so libc falls back to clone.
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    rules.load()


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise ConfinementError(f"{what} failed: {os.strerror(code)}")
