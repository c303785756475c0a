"""The Dask backend on this machine: a two-worker LocalCluster on 127.0.0.1 (and a scheduler
and workers started as separate processes), against the local backends.

The same seeds must give the same games on every backend; SPRT stopping must drop queued pairs;
a worker killed under a game must cost no game and duplicate none; a killed driver must resume
from its results file. Everything binds and connects only to 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from enoch.arena import GameConfig
from enoch.arena.backends import DaskBackend, LocalThreads, check_worker
from enoch.arena.match import MatchOutcome, run_match, run_tournament
from enoch.arena.stats import Sprt
from enoch.errors import InputError
from enoch.game.registry import find_game
from tests.arena.helpers import AGENTS
from tests.processes import live_processes

SLOW = AGENTS / "slow.py"
CHESS_SHORT = find_game("chess").setup({}, max_plies=40)


def slow_agent(seconds: float, tag: str) -> str:
    return f"jsonl:{sys.executable} {SLOW} {seconds} {tag}"


@pytest.fixture(scope="module")
def cluster() -> Iterator[DaskBackend]:
    backend = DaskBackend(2)  # a LocalCluster: 127.0.0.1, two single-threaded workers
    try:
        assert backend.address.startswith("tcp://127.0.0.1:")
        yield backend
    finally:
        backend.close()


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def _games(lines: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Results lines by game, without what differs between runs (time, attempt)."""
    out = {}
    for line in lines:
        assert line["game"] not in out, f"game {line['game']} recorded twice"
        out[line["game"]] = {k: v for k, v in line.items() if k not in ("seconds", "attempt")}
        for seat in out[line["game"]].get("usage") or ():
            seat.pop("seconds", None)
    return out


def _scheduler_tasks(backend: DaskBackend) -> int:
    def count(dask_scheduler: Any) -> int:
        return len(dask_scheduler.tasks)

    return int(backend.client.run_on_scheduler(count))


@pytest.mark.parametrize(
    ("variant", "agents", "games", "options"),
    [
        ("chess", ("builtin:engine?depth=1", "builtin:random?seed=5"), 4, {}),
        ("enochian", ("builtin:random?seed=1", "builtin:greedy?seed=2"), 2, {}),
    ],
)
def test_same_games_on_every_backend(
    cluster: DaskBackend,
    tmp_path: Path,
    variant: str,
    agents: tuple[str, str],
    games: int,
    options: dict[str, Any],
) -> None:
    rules = find_game(variant)
    setup = rules.setup(options, max_plies=60)
    runs: dict[str, dict[int, dict[str, Any]]] = {}
    threads = LocalThreads(2)
    for label, kwargs in (
        ("inline", {"concurrency": 1}),
        ("local", {"concurrency": 2}),
        ("threads", {"backend": threads}),
        ("dask", {"backend": cluster, "log_dir": tmp_path / "logs"}),
    ):
        results = tmp_path / f"{label}.jsonl"
        try:
            run_match(*agents, variant=rules, setup=setup, games=games, results=results, **kwargs)
        finally:
            if label == "threads":
                threads.close()
        lines = _lines(results)
        assert [line["attempt"] for line in lines] == [1] * games
        assert sorted(line["pair"] for line in lines) == sorted((i // 2) + 1 for i in range(games))
        runs[label] = _games(lines)
    assert set(runs["inline"]) == set(range(1, games + 1))
    assert runs["dask"] == runs["inline"]
    assert runs["local"] == runs["inline"]
    assert runs["threads"] == runs["inline"]
    # the driver wrote the workers' event logs: one per game, from start to end
    for game, line in runs["dask"].items():
        events = _lines(tmp_path / "logs" / f"game-{game:04d}.jsonl")
        assert events[0]["event"] == "start" and events[-1]["event"] == "end"
        assert (events[0]["game"], events[0]["attempt"]) == (game, 1)
        assert events[-1]["result"] == line["result"]


def test_a_tournament_runs_on_dask(cluster: DaskBackend, tmp_path: Path) -> None:
    agents = ["builtin:random?seed=1", "builtin:greedy?seed=2", "builtin:engine?depth=1"]
    setup = find_game("chess").setup({}, max_plies=60)
    here = run_tournament(agents, setup=setup, results=tmp_path / "here.jsonl")
    there = run_tournament(agents, setup=setup, backend=cluster, results=tmp_path / "d.jsonl")
    assert len(there.games) == len(here.games) == 6
    assert _games(_lines(tmp_path / "d.jsonl")) == _games(_lines(tmp_path / "here.jsonl"))


def test_sprt_stop_cancels_queued_pairs(cluster: DaskBackend, tmp_path: Path) -> None:
    results = tmp_path / "sprt.jsonl"
    outcome = run_match(
        "builtin:engine?depth=1",
        "builtin:random?seed=3",
        setup=find_game("chess").setup({}, max_plies=150),
        games=400,
        sprt=Sprt(elo0=0, elo1=100),
        backend=cluster,
        results=results,
    )
    assert outcome.stopped_by_sprt == "H1"
    lines = _lines(results)
    # Stopped after a few pairs; two workers hold at most four units (eight games) in flight.
    assert 2 <= len(lines) <= 40
    assert len(_games(lines)) == len(lines) == len(outcome.games)
    deadline = time.monotonic() + 20
    while _scheduler_tasks(cluster) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _scheduler_tasks(cluster) == 0, "queued pairs were left on the scheduler"


def _match_in_background(
    agents: tuple[str, str], results: Path, **kwargs: Any
) -> tuple[threading.Thread, dict[str, Any]]:
    """A 4-game match on a thread of its own; its outcome (or error) lands in the dict."""
    box: dict[str, Any] = {}

    def drive() -> None:
        try:
            box["outcome"] = run_match(
                *agents, setup=CHESS_SHORT, games=4, results=results, **kwargs
            )
        except BaseException as exc:
            box["error"] = exc

    driver = threading.Thread(target=drive)
    driver.start()
    return driver, box


def _agent_under(tag: str, is_worker: Callable[[int], bool]) -> tuple[int | None, int | None]:
    """(worker, agent): the first agent process tagged ``tag`` whose parent ``is_worker``,
    waited for up to a minute; (None, None) if none starts."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for pid, _ in live_processes((tag,)):
            parent = _ppid(pid)
            if is_worker(parent):
                return parent, pid
        time.sleep(0.02)
    return None, None


def test_a_worker_killed_under_a_game_loses_none_and_duplicates_none(
    cluster: DaskBackend, tmp_path: Path
) -> None:
    tag = f"kill-{uuid.uuid4().hex}"
    agents = (slow_agent(0.03, tag), "builtin:random?seed=9")
    expected = tmp_path / "expected.jsonl"
    run_match(*agents, setup=CHESS_SHORT, games=4, results=expected)

    results = tmp_path / "dask.jsonl"
    worker_pids = set(cluster.client.run(os.getpid).values())
    driver, box = _match_in_background(agents, results, backend=cluster)
    victim, agent = _agent_under(tag, lambda parent: parent in worker_pids)
    assert victim is not None and agent is not None, "no game started on a worker"
    os.kill(victim, signal.SIGKILL)
    driver.join(120)
    assert not driver.is_alive()
    assert "error" not in box, box.get("error")
    lines = _lines(results)
    assert _games(lines) == _games(_lines(expected))  # every game once, the same games
    assert max(line["attempt"] for line in lines) == 2  # the lost pair was played again
    assert isinstance(box["outcome"], MatchOutcome) and len(box["outcome"].games) == 4
    # the agent of the killed worker died with it (parent-death signal), not at some timeout
    deadline = time.monotonic() + 5
    while agent in {p for p, _ in live_processes((tag,))} and time.monotonic() < deadline:
        time.sleep(0.05)
    assert agent not in {p for p, _ in live_processes((tag,))}
    cluster.client.wait_for_workers(2, timeout=60)  # the nanny brought the worker back


def _ppid(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return -1


def test_workers_are_checked_before_the_first_game(cluster: DaskBackend) -> None:
    with pytest.raises(InputError, match=r"runs enoch .* the driver 0\.0\.0-other"):
        cluster.check([], "0.0.0-other")
    with pytest.raises(InputError, match="agent command '/nonexistent/agent' not found"):
        cluster.check(["/nonexistent/agent"], check_version())
    cluster.check([sys.executable], check_version())
    assert check_worker(["no-such-program-here"], check_version()) is not None
    with pytest.raises(InputError, match="not found"):
        run_match("exec:/nonexistent/agent", "builtin:random", games=2, backend=cluster)


def check_version() -> str:
    import enoch

    return enoch.__version__


def test_a_game_past_its_time_is_cancelled_on_the_worker(cluster: DaskBackend) -> None:
    tag = f"late-{uuid.uuid4().hex}"
    outcome = run_match(
        slow_agent(0.2, tag),
        "builtin:random?seed=1",
        setup=CHESS_SHORT,
        games=2,
        backend=cluster,
        game_timeout=1.0,
    )
    assert [r.termination for _, r in outcome.games] == ["abandoned", "abandoned"]
    assert all(r.result == "*" and r.winner is None for _, r in outcome.games)
    assert outcome.score(0).games == 0 and outcome.pair_score(0).pairs == 0
    assert not live_processes((tag,))


def _cli(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "enoch", *args],
        capture_output=True,
        text=True,
        timeout=300,
        **kwargs,
    )


def test_resume_after_the_driver_is_killed(tmp_path: Path) -> None:
    tag = f"resume-{uuid.uuid4().hex}"
    agents = [slow_agent(0.02, tag), "builtin:random?seed=4", "--max-plies", "40"]
    full = tmp_path / "full.jsonl"
    assert _cli("match", *agents, "--games", "6", "--results", str(full)).returncode == 0
    results = tmp_path / "run.jsonl"
    cmd = [sys.executable, "-m", "enoch", "match", *agents, "--games", "6"]
    proc = subprocess.Popen(
        [*cmd, "--concurrency", "2", "--results", str(results)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and (
            not results.exists() or len(results.read_text().splitlines()) < 2
        ):
            time.sleep(0.05)
        proc.kill()  # SIGKILL: no cleanup in the driver at all
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    before = len(_lines(results))
    assert 2 <= before < 6, "the driver should have died mid-match"
    with open(results, "a") as f:
        f.write('{"game": 6, "half a li')  # a line cut short by the kill
    # resumed on the other backend: the records are the same whatever ran them
    done = _cli(
        "match", *cmd[4:], "--backend", "dask", "--concurrency", "2", "--resume", str(results)
    )
    assert done.returncode == 0, done.stderr
    assert "games" in done.stdout
    assert _games(_lines(results)) == _games(_lines(full))
    # a results file of another match is refused, not extended
    other = _cli(
        "match", "builtin:greedy", "builtin:random", "--games", "6", "--resume", str(results)
    )
    assert other.returncode == 2 and other.stderr.count("\n") == 1
    assert "not a game of this match" in other.stderr


def test_scheduler_and_workers_as_separate_processes(tmp_path: Path) -> None:
    dask = str(Path(sys.executable).parent / "dask")
    worker = ["worker", "--host", "127.0.0.1", "--nthreads", "1", "--no-dashboard"]
    procs: list[subprocess.Popen[str]] = []
    log = tmp_path / "scheduler.log"
    try:
        with open(log, "w") as out:
            procs.append(
                subprocess.Popen(
                    [dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"],
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
            )
        address = None
        deadline = time.monotonic() + 60
        while address is None and time.monotonic() < deadline:
            m = re.search(r"Scheduler at:\s+(tcp://127\.0\.0\.1:\d+)", log.read_text())
            address = m.group(1) if m else None
            time.sleep(0.1)
        assert address is not None, log.read_text()
        for _ in range(2):
            procs.append(
                subprocess.Popen(
                    [dask, *worker, address],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    text=True,
                )
            )
        results = tmp_path / "r.jsonl"
        done = _cli(
            "match",
            "builtin:random?seed=1",
            "builtin:greedy?seed=2",
            "--games",
            "4",
            "--max-plies",
            "60",
            "--backend",
            "dask",
            "--address",
            address,
            "--results",
            str(results),
        )
        assert done.returncode == 0, done.stderr
        lines = _lines(results)
        assert sorted(line["game"] for line in lines) == [1, 2, 3, 4]
        assert {line["pair"] for line in lines} == {1, 2}
    finally:
        for p in reversed(procs):
            p.send_signal(signal.SIGTERM)
        for p in reversed(procs):
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    assert all(p.returncode is not None for p in procs)


def test_without_dask_the_backend_is_one_clear_error() -> None:
    code = (
        "import sys; sys.modules['distributed'] = None; from enoch.cli import main; "
        "sys.exit(main(['match', 'builtin:random', 'builtin:random', '--backend', 'dask']))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "enoch[dask]" in done.stderr


def test_bad_backend_flags_are_input_errors() -> None:
    for args in (
        ["--address", "tcp://127.0.0.1:1"],
        ["--backend", "dask", "--address", "127.0.0.1:1"],
        ["--game-timeout", "0"],
        ["--backend", "dask", "--address", "tcp://127.0.0.1:1", "--dashboard"],
    ):
        done = _cli("match", "builtin:random", "builtin:random", *args)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.count("\n") == 1, done.stderr


def test_a_killed_local_worker_is_replaced_and_its_pair_replayed(tmp_path: Path) -> None:
    tag = f"local-{uuid.uuid4().hex}"
    agents = (slow_agent(0.03, tag), "builtin:random?seed=2")
    expected = tmp_path / "expected.jsonl"
    run_match(*agents, setup=CHESS_SHORT, games=4, results=expected)
    results = tmp_path / "local.jsonl"
    driver, box = _match_in_background(agents, results, concurrency=2)
    victim, _ = _agent_under(tag, lambda parent: parent > 0 and _ppid(parent) == os.getpid())
    assert victim is not None
    os.kill(victim, signal.SIGKILL)
    driver.join(120)
    assert not driver.is_alive() and "error" not in box, box.get("error")
    lines = _lines(results)
    assert _games(lines) == _games(_lines(expected))
    assert max(line["attempt"] for line in lines) == 2


def test_config_crosses_to_workers(cluster: DaskBackend) -> None:
    # A forfeit is a game result, not a retry: a crashing agent loses, attempt 1.
    outcome = run_match(
        f"exec:{sys.executable} -c 'import sys; sys.exit(3)'",
        "builtin:random",
        games=2,
        backend=cluster,
        config=GameConfig(timeout=20),
    )
    assert [r.termination for _, r in outcome.games] == ["crash", "crash"]
    assert outcome.score(1).wins == 2
