"""Contained agents: what an agent starts dies with the game, ``setsid`` or not.

Every test here plays real games with :mod:`tests.arena.agents.escapee`, whose children call
``setsid()`` before the agent answers, and looks for them in /proc the moment the game (or the
match) is over: no waiting, since the PID namespace removes the race as well as the escape. The
``--no-sandbox`` tests show the same children *do* survive without the namespace, so the checks
can fail. This machine must allow PID namespaces (CI runs as root): the first test says so.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from enoch.arena import GameConfig, make_player, play_game
from enoch.arena import transport as transport_mod
from enoch.arena.transport import ExecTransport, JsonlTransport, Limits
from enoch.cli import main
from enoch.errors import InputError
from tests.arena.helpers import AGENTS
from tests.processes import live_processes

ESCAPEE = AGENTS / "escapee.py"
MARK = (str(ESCAPEE),)


def escapee(n: int, answer: str | None = None, *, jsonl: bool = False) -> str:
    words = [sys.executable, str(ESCAPEE), *(["--jsonl"] if jsonl else []), str(n)]
    if answer is not None:
        words.append(f"'{answer}'")
    return ("jsonl:" if jsonl else "exec:") + " ".join(words)


def kill_all(found: list[tuple[int, str]]) -> None:
    """SIGKILL the survivors of a test without the sandbox, and wait until they are gone (a
    kill is asynchronous: the leftover check after the test must not see them dying)."""
    fds = []
    for pid, _ in found:
        with contextlib.suppress(OSError):
            fds.append(os.pidfd_open(pid))
            os.kill(pid, 9)
    for fd in fds:
        select.select([fd], [], [], 5.0)  # readable once the process has exited
        os.close(fd)


@pytest.fixture
def no_unshare(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The sandbox probe fails, as on a machine without unshare or namespaces."""
    monkeypatch.setattr(transport_mod, "UNSHARE", "/nonexistent/unshare")
    monkeypatch.setattr(transport_mod, "_warned", [])
    yield


def test_this_machine_can_sandbox() -> None:
    assert transport_mod.sandbox_problem() is None
    assert transport_mod.sandbox_problem(transport_mod.NET_NAMESPACE) is None


@pytest.mark.parametrize("jsonl", [False, True])
def test_setsid_children_die_with_the_game(jsonl: bool) -> None:
    result = play_game(escapee(3, jsonl=jsonl), "builtin:random", config=GameConfig(timeout=20))
    assert result.termination == "resignation", result.reason
    assert not live_processes(MARK)


def test_setsid_children_die_with_an_enochian_game() -> None:
    result = play_game(
        escapee(2, jsonl=True), "builtin:random", variant="enochian", config=GameConfig(timeout=20)
    )
    assert result.termination == "resignation", result.reason
    assert not live_processes(MARK)


def test_setsid_children_of_a_uci_engine_die_with_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from enoch.fide import uci as fide_uci

    monkeypatch.setattr(fide_uci, "HANDSHAKE_TIMEOUT", 1.0)
    engine = f"uci:{sys.executable} {AGENTS / 'broken_uci.py'} escape"
    result = play_game(engine, "builtin:random", config=GameConfig(timeout=20))
    assert result.termination == "crash" and "no uciok" in result.reason, result.reason
    assert not live_processes((str(AGENTS / "broken_uci.py"),))


@pytest.mark.parametrize("jsonl", [False, True])
def test_setsid_children_die_when_a_hung_agent_is_killed(jsonl: bool) -> None:
    """The kill path: the agent is still running (it hangs) when the referee ends it."""
    result = play_game(
        escapee(2, "hang", jsonl=jsonl), "builtin:random", config=GameConfig(timeout=1.5)
    )
    assert result.termination == "timeout", result.reason
    assert not live_processes(MARK)


def test_without_the_sandbox_setsid_children_survive() -> None:
    """What the namespace prevents, seen: the same game with the sandbox off leaves them."""
    config = GameConfig(timeout=20, limits=Limits(sandbox=False))
    result = play_game(escapee(3), "builtin:random", config=config)
    left = live_processes(MARK)
    kill_all(left)
    assert result.termination == "resignation", result.reason
    assert len(left) == 3, left


def test_no_sandbox_still_plays_pipes_stderr_memory_and_groups() -> None:
    """--no-sandbox is today's path: piping, stderr capture, exit status, memory limit and
    the process-group kill all still work (so does the sandboxed path: same checks)."""
    crash = f"exec:{sys.executable} {AGENTS / 'misbehave.py'} crash"
    for sandbox in (False, True):
        limits = Limits(sandbox=sandbox)
        r = play_game(crash, "builtin:random", config=GameConfig(timeout=20, limits=limits))
        assert r.termination == "crash" and "exit status 3" in r.reason, r.reason
        assert "deliberate crash" in r.reason
        hog = f"exec:{sys.executable} -c \"b = bytearray(400 * 1024 * 1024); print('x')\""
        player = make_player(hog, limits=Limits(memory_mb=200, sandbox=sandbox))
        r = play_game(player, "builtin:random", config=GameConfig(timeout=20))
        assert r.termination == "crash" and "MemoryError" in r.reason, r.reason
        t = JsonlTransport([sys.executable, str(AGENTS / "scripted.py"), "--jsonl"], limits)
        from enoch.protocol import state_from_fen
        from enoch.rules import STARTING_FEN

        answer = json.loads(t.request(state_from_fen(STARTING_FEN), 20))
        assert set(answer) == {"from", "to", "promotion"}
        t.close()
        assert not live_processes((str(AGENTS),))


def test_a_missing_program_is_still_named() -> None:
    t = ExecTransport(["/nonexistent/agent"], Limits(sandbox=True))
    with pytest.raises(transport_mod.AgentCrash, match="cannot start '/nonexistent/agent'"):
        t.request({}, 5)


def test_a_whole_match_leaves_none_of_hundreds(capsys: pytest.CaptureFixture[str]) -> None:
    """30 games, 8 escapees each time the agent is asked: 240 setsid children, none left,
    through the CLI and its worker processes."""
    status = main(
        [
            "match",
            escapee(8),
            "builtin:random",
            "--games",
            "30",
            "--concurrency",
            "2",
            "--timeout",
            "20",
        ]
    )
    out = capsys.readouterr()
    assert status == 0, out.err
    assert "resignation 30" in out.out
    assert not live_processes(MARK)


def test_cannot_sandbox_says_so_once_and_plays_on(
    no_unshare: None, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["match", escapee(1), "builtin:random", "--games", "3", "--timeout", "20"])
    left = live_processes(MARK)  # no namespace: the escapees survive, as before
    kill_all(left)
    out = capsys.readouterr()
    assert status == 0, out.err
    assert "resignation 3" in out.out
    warnings = [line for line in out.err.splitlines() if "without a sandbox" in line]
    assert len(warnings) == 1, out.err
    assert warnings[0].startswith("enoch: ") and "--no-sandbox" in warnings[0]
    assert len(left) == 3


def test_cannot_sandbox_warns_once_from_the_library(
    no_unshare: None, capsys: pytest.CaptureFixture[str]
) -> None:
    t = ExecTransport([sys.executable, str(ESCAPEE), "0"])
    assert json.loads(t.request({}, 20)) == {"action": "resign"}
    assert json.loads(t.request({}, 20)) == {"action": "resign"}
    err = capsys.readouterr().err
    assert err.count("without a sandbox") == 1, err


def test_no_sandbox_is_silent_where_it_cannot_sandbox(
    no_unshare: None, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["match", escapee(0), "builtin:random", "--games", "2", "--no-sandbox"])
    assert status == 0
    assert "sandbox" not in capsys.readouterr().err


def test_builtin_agents_need_no_probe(no_unshare: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "builtin:random", "builtin:random", "--games", "2"]) == 0
    assert "sandbox" not in capsys.readouterr().err


def test_no_network_refused_where_impossible(
    no_unshare: None, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["match", escapee(0), "builtin:random", "--games", "2", "--no-network"])
    out = capsys.readouterr()
    assert status == 2
    assert out.out == ""
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("enoch: error: --no-network"), out.err
    with pytest.raises(InputError):
        transport_mod.resolve_sandbox(Limits(network=False))


@contextlib.contextmanager
def loopback_server() -> Iterator[tuple[int, list[bytes]]]:
    """A TCP server on 127.0.0.1 (ephemeral port) that records what each client sends."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    got: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                with contextlib.suppress(OSError):
                    got.append(conn.recv(100))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], got
    finally:
        stop.set()
        thread.join()
        server.close()


PHONE_HOME = (
    "import socket, sys\n"
    "sys.stdin.read()\n"
    "try:\n"
    "    socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=2).sendall(b'hi')\n"
    "except OSError as exc:\n"
    '    print(\'{"action": "resign"}\')\n'
    "else:\n"
    "    print('connected')\n"
)


@pytest.mark.parametrize("sandbox", [True, False])
def test_no_network_cuts_the_agent_off(tmp_path: Path, sandbox: bool) -> None:
    """With --no-network the agent cannot reach even the referee machine's loopback; without
    it, it can (the server sees it), so the check can fail."""
    script = tmp_path / "phone_home.py"
    script.write_text(PHONE_HOME)
    with loopback_server() as (port, got):
        agent = f"exec:{sys.executable} {script} {port}"
        for network in (False, True):
            limits = Limits(network=network, sandbox=sandbox)
            r = play_game(agent, "builtin:random", config=GameConfig(timeout=20, limits=limits))
            if network:
                assert r.termination == "invalid_answer", r.reason  # it printed "connected"
            else:
                assert r.termination == "resignation", r.reason
    assert got == [b"hi"]  # exactly one connection: the networked run


def test_security_doc_shows_the_real_warning_and_every_flag(
    no_unshare: None, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = (Path(__file__).parents[2] / "docs" / "security.md").read_text()
    transport_mod.resolve_sandbox(Limits())
    line = capsys.readouterr().err.strip()
    problem = transport_mod.sandbox_problem()
    assert problem and problem in line
    assert line.replace(problem, "...") in doc, line
    for flag in ("--no-sandbox", "--no-network", "--memory-mb", "--max-answer-bytes"):
        assert f"`{flag}" in doc, flag


def test_an_ordinary_user_gets_the_sandbox_in_a_user_namespace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where namespaces are refused unless inside a user namespace (an ordinary user on a
    kernel that allows unprivileged ones), the sandbox is made with ``--user``: simulated by an
    unshare that refuses any namespace without it."""
    real = shutil.which("unshare")
    assert real
    fake = tmp_path / "unshare"
    fake.write_text(
        "#!/bin/sh\n"
        f'[ "$1" = --version ] && exec {real} --version\n'
        'case " $* " in *" --user "*) ;; *) echo "unshare: unshare failed: Operation not'
        ' permitted" >&2; exit 1;; esac\n'
        f'exec {real} "$@"\n'
    )
    fake.chmod(0o755)
    monkeypatch.setattr(transport_mod, "UNSHARE", str(fake))
    monkeypatch.setattr(transport_mod, "_warned", [])
    monkeypatch.setattr(transport_mod, "_paths", {})
    flags, problem = transport_mod.namespace_flags(transport_mod.PID_NAMESPACE)
    assert problem is None and flags is not None and flags[0] == "--user", (flags, problem)
    result = play_game(escapee(3), "builtin:random", config=GameConfig(timeout=20))
    assert result.termination == "resignation", result.reason
    assert not live_processes(MARK)
    assert "sandbox" not in capsys.readouterr().err


def test_cannot_sandbox_warns_once_for_a_library_match_in_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """run_match with worker processes: the parent probes, the workers stay quiet. (No
    unshare on PATH, so that the spawned workers cannot find it either.)"""
    from enoch.arena.match import run_match

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(transport_mod, "_probed", {})
    monkeypatch.setattr(transport_mod, "_paths", {})
    monkeypatch.setattr(transport_mod, "_warned", [])

    outcome = run_match(
        escapee(0), "builtin:random", games=4, concurrency=2, config=GameConfig(timeout=20)
    )
    assert len(outcome.games) == 4
    err = capfd.readouterr().err
    assert err.count("without a sandbox") == 1, err


@pytest.mark.parametrize("command", ["play", "match"])
def test_the_enochian_aliases_take_the_containment_flags(
    command: str, no_unshare: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """``enoch enochian play|match`` pass --no-sandbox and --no-network to the arena as
    ``enoch play|match --variant enochian`` do (they used to lack them)."""
    agent = escapee(0, '{"action": "resign"}')
    if command == "play":
        argv = ["enochian", "play", "--players", "2", "--agents", agent, "--quiet"]
    else:
        argv = ["enochian", "match", agent, "builtin:random", "--games", "1", "--quiet"]
    assert main([*argv, "--no-sandbox"]) == 0
    assert "sandbox" not in capsys.readouterr().err
    assert main([*argv, "--no-network"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("enoch: error: --no-network"), err
