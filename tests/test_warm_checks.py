"""Warm starts (autograder/warm_start): a repeated `autograder check` is forked from a server that has already
imported JAX and the kit, and says exactly what a check on its own says."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from warm_servers import children, ended, ready_server, reaped_cpu_ticks, servers, waited_for

from autograder.student import check_processes
from autograder.warm_start import client, identity, server

REPO = Path(__file__).resolve().parent.parent
AUTOGRADER = Path(sys.executable).parent / "autograder"


@pytest.fixture
def cache_home(tmp_path):
    home = tmp_path / "cache"
    yield home
    for pid in servers(home):
        os.kill(pid, signal.SIGKILL)


def _environment(cache_home: Path, warm: bool = True) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOGRADER_", "JAX_", "XLA_"))}
    env["XDG_CACHE_HOME"] = str(cache_home)
    env[identity.ENVIRONMENT_VARIABLE] = "on" if warm else "off"
    return env


def _check(notebook: Path, cache_home: Path, *more: str, warm: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([str(AUTOGRADER), "--config", str(REPO / "grading.toml"), "check", str(notebook), "--seed",
                           "5", *more], capture_output=True,
                          text=True, env=_environment(cache_home, warm), cwd=notebook.parent, timeout=600)


def _notebook(tmp_path: Path, assignment: str, kind: str = "solutions") -> Path:
    folder = tmp_path / kind
    folder.mkdir(exist_ok=True)
    source = REPO / kind / assignment / f"{assignment}.ipynb"
    if kind == "assignments":
        source = REPO / "assignments" / assignment / f"{assignment}.ipynb"
    return Path(shutil.copy(source, folder / f"{assignment}.ipynb"))


@pytest.mark.parametrize("kind", ["solutions", "assignments"])
def test_a_repeated_check_is_forked_from_the_warm_server_and_says_the_same(tmp_path, cache_home, kind):
    notebook = _notebook(tmp_path, "01_immutable_updates", kind)
    alone = _check(notebook, tmp_path / "cold-cache", warm=False)
    first = _check(notebook, cache_home)
    server = ready_server(cache_home)
    before = reaped_cpu_ticks(server)
    served = _check(notebook, cache_home)

    assert reaped_cpu_ticks(server) > before, "the second check did not run in a fork of the warm server"
    assert (served.returncode, served.stdout) == (first.returncode, first.stdout) == (alone.returncode, alone.stdout)
    assert served.returncode == (0 if kind == "solutions" else 1)


def test_a_first_check_starts_a_server_and_is_forked_from_it_once_it_has_imported(tmp_path, cache_home):
    """The first check hands itself to the server it starts, rather than importing JAX beside it: the server
    imports once, then forks the command and each half of its exercises (student.exercise_halves)."""
    notebook = _notebook(tmp_path, "06_prng")
    alone = _check(notebook, tmp_path / "cold-cache", warm=False)
    first = _check(notebook, cache_home)
    server = ready_server(cache_home)

    assert reaped_cpu_ticks(server) > 0, "the first check did not run in a fork of the server it started"
    assert (first.returncode, first.stdout) == (alone.returncode, alone.stdout) == (0, alone.stdout)


def test_a_server_that_never_greets_leaves_the_check_to_run_on_its_own(own_cache, monkeypatch):
    """A server that does not greet within READY_SECONDS (hung in its imports) is given nothing to run: the
    command checks on its own, and the server finds no request when it gets to the connection."""
    found = identity.of_this_process("kit")
    monkeypatch.setattr(client, "READY_SECONDS", 0.2)
    with socket.socket(socket.AF_UNIX) as silent, identity.socket_address(found.socket_path) as address:
        silent.bind(address)
        silent.listen(1)
        assert client.delegated(found, ["check", "notebook.ipynb"]) is None
        connection, _ = silent.accept()
        with connection:
            connection.settimeout(5)
            assert connection.recv(1) == b"", "the command sent its request to a server that had not greeted"


def test_a_server_that_cannot_fork_safely_is_never_waited_for_again(own_cache, monkeypatch):
    """A server whose imports left a thread running (or started JAX's backend) serves no check: it says so once,
    and the next checks of its identity run on their own at once, neither waiting for it nor starting another."""
    found = identity.of_this_process("kit")
    monkeypatch.setattr(server, "PRELOAD", {"kit": ()})
    monkeypatch.setattr(server, "_forkable", lambda: False)
    assert server.serve("kit", str(found.socket_path), str(found.lock_path)) == 1
    assert found.unforkable_path.exists() and not found.socket_path.exists()

    monkeypatch.setattr(client, "start_server", lambda found: pytest.fail("started another server"))
    monkeypatch.setattr(client, "delegated", lambda found, argv: pytest.fail("waited for a server"))
    assert client.run_check("kit", ["check", "notebook.ipynb"], lambda argv: 7) == 7


def test_a_server_that_cannot_listen_is_never_waited_for_again(own_cache, monkeypatch):
    """A cache folder on a file system without Unix sockets: the server says so once, as above."""
    found = identity.of_this_process("kit")

    def refused(path):
        raise OSError(95, "Operation not supported")

    monkeypatch.setattr(server, "_listen", refused)
    assert server.serve("kit", str(found.socket_path), str(found.lock_path)) == 1
    assert found.unforkable_path.exists()


def test_each_device_count_of_10_is_forked_from_the_warm_server_too(tmp_path, cache_home):
    notebook = _notebook(tmp_path, "10_parallel")
    alone = _check(notebook, tmp_path / "cold-cache", warm=False)
    _check(notebook, cache_home)
    server = ready_server(cache_home)
    before = len(children(server)), reaped_cpu_ticks(server)
    served = _check(notebook, cache_home)

    assert reaped_cpu_ticks(server) > before[1]
    assert (served.returncode, served.stdout) == (alone.returncode, alone.stdout) == (0, alone.stdout)
    assert "2" in served.stdout and "4" in served.stdout


def test_the_fork_and_what_it_started_end_when_the_check_is_killed(tmp_path, cache_home):
    notebook = _notebook(tmp_path, "01_immutable_updates")
    first = _check(notebook, cache_home)
    server = ready_server(cache_home)
    waiting = tmp_path / "waits.py"
    waiting.write_text("import time\ntime.sleep(300)\n")
    client = subprocess.Popen([str(AUTOGRADER), "--config", str(REPO / "grading.toml"), "check", str(waiting),
                               "--assignment", "01_immutable_updates"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_environment(cache_home),
                              cwd=tmp_path)
    # The command's fork, and one for each half of its exercises (student.exercise_halves) it started.
    assert waited_for(lambda: len(children(server)) == 3), f"forks of the waiting check: {children(server)}"
    forks = children(server)
    # The halves are the server's forks too, asked for by the command's fork: no interpreter started for them.
    assert [children(fork) for fork in forks] == [[], [], []]
    beside = _check(notebook, cache_home)  # another check while that one waits: forks of its own
    assert (beside.returncode, beside.stdout) == (first.returncode, first.stdout)
    # Its forks end (and are reaped) as it ends; the waiting check's stay.
    assert waited_for(lambda: children(server) == forks), f"forks {children(server)}, expected {forks}"

    def claims_left(pids):
        return [path.name for pid in pids
                for path in Path(tempfile.gettempdir()).glob(f"{check_processes.CLAIMS_PREFIX}{pid}-*")]

    assert claims_left(forks), "the waiting check's halves take their exercises in a folder of their own"
    client.kill()
    client.wait()
    assert ended(*forks)
    assert servers(cache_home) == [server], "the server itself keeps serving"
    # Killed, it could not remove its folder: the next check does.
    _check(notebook, cache_home)
    assert claims_left(forks) == []


def test_a_check_whose_server_is_killed_meanwhile_still_ends_as_it_would_have(tmp_path, cache_home):
    notebook = _notebook(tmp_path, "01_immutable_updates")
    _check(notebook, cache_home)
    server = ready_server(cache_home)
    slow = tmp_path / "slow.py"
    slow.write_text("import time\ntime.sleep(3)\n")  # loads, then has none of the functions: exit 1
    command = [str(AUTOGRADER), "--config", str(REPO / "grading.toml"), "--lang", "ko", "check", str(slow),
               "--assignment", "01_immutable_updates", "--seed", "5"]
    alone = subprocess.run(command, capture_output=True, text=True, env=_environment(cache_home, warm=False),
                           cwd=tmp_path, timeout=600)
    client = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=_environment(cache_home), cwd=tmp_path)
    assert waited_for(lambda: children(server)), "the check never reached the warm server"

    os.kill(server, signal.SIGKILL)
    out, err = client.communicate(timeout=600)

    assert (client.returncode, out) == (alone.returncode, alone.stdout) == (1, alone.stdout)
    assert err == alone.stderr


def test_a_dead_servers_socket_is_checked_past_and_replaced(tmp_path, cache_home):
    notebook = _notebook(tmp_path, "01_immutable_updates")
    expected = _check(notebook, cache_home)
    dead = ready_server(cache_home)
    os.kill(dead, signal.SIGKILL)
    assert ended(dead)
    assert list((cache_home / "autograder" / "warm-checks").glob("*.sock")), "the dead server's socket stays"

    again = _check(notebook, cache_home)

    assert (again.returncode, again.stdout) == (expected.returncode, expected.stdout)
    assert ready_server(cache_home) != dead


def test_clearing_the_cache_folder_ends_the_server(tmp_path, cache_home):
    notebook = _notebook(tmp_path, "01_immutable_updates")
    _check(notebook, cache_home)
    server = ready_server(cache_home)

    shutil.rmtree(cache_home / "autograder" / "warm-checks")

    assert ended(server)


def test_warm_starts_off_start_no_server(tmp_path, cache_home):
    notebook = _notebook(tmp_path, "01_immutable_updates")
    done = _check(notebook, cache_home, warm=False)
    assert done.returncode == 0
    assert not (cache_home / "autograder" / "warm-checks").exists()


# --- which server may serve a process ------------------------------------------------------------

@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv(identity.ENVIRONMENT_VARIABLE, "on")
    return tmp_path


def test_a_jax_setting_read_at_import_gets_a_server_of_its_own(own_cache, monkeypatch):
    plain = identity.of_this_process("kit")
    monkeypatch.setenv("JAX_ENABLE_X64", "1")
    assert identity.of_this_process("kit").digest != plain.digest


@pytest.mark.parametrize("name", ["XLA_FLAGS", "JAX_NUM_CPU_DEVICES", check_processes.DEVICES_VARIABLE,
                                  check_processes.PART_VARIABLE, "PWD"])
def test_what_is_read_after_the_fork_shares_the_server(own_cache, monkeypatch, name):
    plain = identity.of_this_process("kit")
    monkeypatch.setenv(name, "4")
    assert identity.of_this_process("kit").digest == plain.digest


def test_a_server_never_holds_what_is_read_after_the_fork(own_cache, monkeypatch):
    monkeypatch.setenv("JAX_NUM_CPU_DEVICES", "4")
    assert "JAX_NUM_CPU_DEVICES" not in identity.of_this_process("kit").environment


def test_a_folder_others_can_reach_gets_no_warm_start(own_cache):
    folder = own_cache / "autograder" / "warm-checks"
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    assert identity.of_this_process("kit") is None


def test_a_folder_that_is_a_link_gets_no_warm_start(own_cache, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    elsewhere.chmod(0o700)
    (own_cache / "autograder").mkdir()
    (own_cache / "autograder" / "warm-checks").symlink_to(elsewhere)
    assert identity.of_this_process("kit") is None


def test_a_socket_path_too_long_for_unix_sockets_is_reached_through_its_folder(tmp_path):
    long_path = tmp_path / ("d" * 120) / "kit.sock"
    long_path.parent.mkdir()
    with socket.socket(socket.AF_UNIX) as listener, identity.socket_address(long_path) as address:
        listener.bind(address)
        listener.listen(1)
        assert len(address) < 108 and long_path.exists()
        with socket.socket(socket.AF_UNIX) as client, identity.socket_address(long_path) as again:
            client.connect(again)


def test_a_ci_pipeline_gets_no_server_unless_it_asks(own_cache, monkeypatch):
    monkeypatch.delenv(identity.ENVIRONMENT_VARIABLE)
    monkeypatch.setenv("CI", "true")
    assert identity.of_this_process("kit") is None
    monkeypatch.setenv(identity.ENVIRONMENT_VARIABLE, "on")
    assert identity.of_this_process("kit") is not None


def test_off_means_off(own_cache, monkeypatch):
    monkeypatch.setenv(identity.ENVIRONMENT_VARIABLE, "off")
    assert identity.of_this_process("kit") is None


@pytest.mark.parametrize(("argv", "command"), [
    (["check", "a.ipynb"], "check"), (["--lang", "ko", "check", "a.ipynb"], "check"),
    (["--config", "check", "grade", "x"], "grade"), (["--help"], None), (["check", "--help"], None),
])
def test_only_a_check_is_handed_to_a_server(argv, command):
    from autograder.warm_start import client

    assert client.command_of(argv) == command


def test_a_check_lost_with_its_server_says_so_in_the_language_asked_for(capsys):
    from autograder.catalog import messages
    from autograder.warm_start import client

    ours, theirs = socket.socketpair()
    theirs.close()  # no status will come: the fork died of a signal and its server is gone

    assert client._ended(ours, ["--lang", "ko", "check", "a.ipynb"]) == 2
    with messages.speaking("ko"):
        korean = messages.text("warm.lost", variable=identity.ENVIRONMENT_VARIABLE)
    english = messages.text("warm.lost", variable=identity.ENVIRONMENT_VARIABLE)
    said = capsys.readouterr().err
    assert korean in said and english not in said and korean != english
