"""Every failure of an agent ends the game as specified, and leaves no process behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from typing import Any

import pytest

from enoch.arena import GameConfig, make_player, play_game
from enoch.arena.transport import Limits
from tests.arena.helpers import MARKERS, exec_agent, jsonl_agent, pgids_of, run
from tests.processes import live_processes

PROMO_FEN = "8/P6k/8/8/8/8/8/K7 w - - 0 1"
AGENTS = {"exec": exec_agent, "jsonl": jsonl_agent}


def raw(text: str) -> dict[str, Any]:
    return {"0": [{"raw": text}]}


def test_illegal_move() -> None:
    r, _ = run(jsonl_agent(raw('{"from": "e2", "to": "e5", "promotion": null}')), "builtin:random")
    assert (r.result, r.termination, r.plies) == ("0-1", "illegal_move", 0)
    assert "e2e5" in r.reason


def test_moving_the_opponents_piece_is_illegal() -> None:
    r, _ = run(jsonl_agent(raw('{"from": "e7", "to": "e5", "promotion": null}')), "builtin:random")
    assert r.termination == "illegal_move" and "side not to move" in r.reason


def test_lowercase_promotion_is_invalid_strict_and_accepted_lenient() -> None:
    answer = raw('{"from": "a7", "to": "a8", "promotion": "q"}')
    r, _ = run(jsonl_agent(answer), "builtin:random", start_fen=PROMO_FEN)
    assert (r.result, r.termination) == ("0-1", "invalid_answer")
    r, _ = run(
        jsonl_agent(answer),
        "builtin:random",
        start_fen=PROMO_FEN,
        config=GameConfig(lenient=True, timeout=20),
    )
    assert r.moves[0] == "a7a8q"
    assert r.termination != "invalid_answer"


def test_missing_promotion() -> None:
    null = raw('{"from": "a7", "to": "a8", "promotion": null}')
    r, _ = run(jsonl_agent(null), "builtin:random", start_fen=PROMO_FEN)
    assert (r.termination, r.result) == ("illegal_move", "0-1")
    assert "must promote" in r.reason
    absent = raw('{"from": "a7", "to": "a8"}')
    r, _ = run(jsonl_agent(absent), "builtin:random", start_fen=PROMO_FEN)
    assert r.termination == "invalid_answer" and "promotion" in r.reason
    # Lenient accepts the missing key but never guesses the piece: still not a legal move.
    lenient = GameConfig(lenient=True, timeout=20)
    r, _ = run(jsonl_agent(absent), "builtin:random", start_fen=PROMO_FEN, config=lenient)
    assert r.termination == "illegal_move"


def test_two_json_objects() -> None:
    e4 = '{"from": "e2", "to": "e4", "promotion": null}'
    two = raw(e4 + " " + e4.replace("e", "d"))
    r, _ = run(jsonl_agent(two), "builtin:random")
    assert (r.result, r.termination) == ("0-1", "invalid_answer")
    r, _ = run(exec_agent(two), "builtin:random")
    assert (r.result, r.termination) == ("0-1", "invalid_answer")


def test_prose_around_json() -> None:
    prose = raw('I will play {"from": "e2", "to": "e4", "promotion": null} because it is good')
    r, _ = run(jsonl_agent(prose), "builtin:random")
    assert r.termination == "invalid_answer"
    r, _ = run(
        jsonl_agent(prose),
        jsonl_agent({"1": [{"action": "resign"}]}),
        config=GameConfig(lenient=True, timeout=20),
    )
    assert (r.moves[:1], r.termination) == (["e2e4"], "resignation")


def test_unparsable_and_wrong_shape() -> None:
    for text in ("e2e4", "[1, 2]", '{"from": "e2"}', '{"action": "surrender"}'):
        r, _ = run("builtin:random", jsonl_agent({"1": [{"raw": text}]}))
        assert (r.result, r.termination, r.plies) == ("1-0", "invalid_answer", 1), text


def test_retries_let_an_agent_answer_again() -> None:
    plan = {
        "0": [{"raw": "nonsense"}, {"from": "e2", "to": "e4", "promotion": None}],
        "1": [{"action": "resign"}],
    }
    r, events = run(jsonl_agent(plan), jsonl_agent(plan), config=GameConfig(retries=1, timeout=20))
    assert (r.termination, r.moves) == ("resignation", ["e2e4"])
    retry_state = [e["state"] for e in events if e["event"] == "state"][1]
    assert "not valid JSON" in retry_state["last_error"]


@pytest.mark.parametrize("mode", ["exec", "jsonl"])
def test_crash(mode: str) -> None:
    r, events = run("builtin:random", AGENTS[mode]({"1": [{"do": "crash"}]}))
    assert (r.result, r.termination) == ("1-0", "crash")
    assert "exit status 3" in r.reason or "exited" in r.reason or "closed" in r.reason
    failed = [e for e in events if e["event"] == "answer" and e.get("kind") == "crash"]
    assert "deliberate crash" in failed[0]["stderr"]


def test_command_that_does_not_exist_is_a_crash() -> None:
    r, _ = run("exec:/nonexistent/agent", "builtin:random")
    assert (r.result, r.termination) == ("0-1", "crash")


@pytest.mark.parametrize("mode", ["exec", "jsonl"])
def test_hang_past_the_limit(mode: str) -> None:
    t0 = time.monotonic()
    r, _ = run(
        AGENTS[mode]({"0": [{"do": "hang"}]}),
        "builtin:random",
        config=GameConfig(movetime=0.5, grace=0.2),
    )
    assert (r.result, r.termination) == ("0-1", "timeout")
    assert time.monotonic() - t0 < 5


def test_timeout_against_a_side_that_cannot_mate_is_a_draw() -> None:
    fen = "4k3/8/8/8/8/8/8/4K2R w - - 0 1"
    r, _ = run(
        jsonl_agent({"0": [{"do": "hang"}]}),
        "builtin:random",
        start_fen=fen,
        config=GameConfig(movetime=0.3),
    )
    assert (r.result, r.termination) == ("1/2-1/2", "timeout")
    assert "FIDE 6.9" in r.reason
    # The other way round the lone king's timeout loses: the rook side can mate.
    fen = "4k3/8/8/8/8/8/8/4K2R b - - 0 1"
    r, _ = run(
        "builtin:random",
        jsonl_agent({"0": [{"do": "hang"}]}),
        start_fen=fen,
        config=GameConfig(movetime=0.3),
    )
    assert (r.result, r.termination) == ("1-0", "timeout")


@pytest.mark.parametrize("mode", ["exec", "jsonl"])
def test_giant_answer(mode: str) -> None:
    r, _ = run(AGENTS[mode]({"0": [{"do": "giant"}]}), "builtin:random")
    assert (r.result, r.termination) == ("0-1", "invalid_answer")
    assert "size limit" in r.reason


def test_child_that_keeps_the_pipe_open() -> None:
    t0 = time.monotonic()
    r, _ = run(
        exec_agent({"0": [{"do": "grandchild"}], "2": [{"do": "grandchild"}]}),
        jsonl_agent({"3": [{"action": "resign"}]}),
        config=GameConfig(movetime=5),
    )
    assert (r.termination, r.plies) == ("resignation", 3)
    assert time.monotonic() - t0 < 8
    assert not live_processes(MARKERS)


def test_jsonl_agent_writing_two_lines_is_out_of_step() -> None:
    r, _ = run(jsonl_agent({"0": [{"do": "two_lines"}]}), "builtin:random")
    assert (r.result, r.termination) == ("0-1", "invalid_answer")


def test_in_process_agent_that_raises_is_a_crash() -> None:
    def broken(state: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("boom")

    r, _ = run("builtin:random", broken)
    assert (r.result, r.termination) == ("1-0", "crash") and "boom" in r.reason


def test_one_agents_failure_does_not_stop_a_match() -> None:
    from enoch.arena.match import run_match
    from enoch.game import Start
    from enoch.openings import Opening

    crasher = jsonl_agent({"0": [{"do": "crash"}], "1": [{"do": "crash"}]})
    outcome = run_match(
        crasher,
        "builtin:random",
        games=4,
        starts=[Start("start", Opening("start"))],
        config=GameConfig(timeout=20),
    )
    assert [(r.termination, r.winner) for _, r in outcome.games] == [
        ("crash", 1),
        ("crash", 0),
        ("crash", 1),
        ("crash", 0),
    ]
    assert outcome.score(1).wins == 4


def test_memory_limit_applies() -> None:
    import sys

    hog = f'exec:{sys.executable} -c "x = bytearray(400 * 1024 * 1024)"'
    player = make_player(hog, limits=Limits(memory_mb=200))
    r = play_game(player, "builtin:random", config=GameConfig(timeout=20))
    assert r.termination == "crash" and "exit status 1" in r.reason
    assert pgids_of(player)


def test_killing_a_match_leaves_no_worker_or_agent_behind() -> None:
    # Each game's white agent hangs on its first move; the match runs two games at once in
    # worker processes. Killing only the parent (what a timed-out CI step or `kill PID` does)
    # must end the workers and their agents too, not leave them playing on.
    marker = f"marker-{uuid.uuid4().hex}"
    hang = jsonl_agent({"0": [{"do": "hang"}], marker: []})
    other = jsonl_agent({marker: []})
    cmd = [sys.executable, "-m", "enoch", "match", hang, other, "--games", "4"]
    proc = subprocess.Popen(
        [*cmd, "--concurrency", "2", "--timeout", "600"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while len(live_processes((marker,))) < 4 and time.monotonic() < deadline:
            time.sleep(0.1)
        agents = live_processes((marker,))
        assert len(agents) >= 4, "two games should be running, two agents each"
        workers = _children(proc.pid)
        assert len(workers) >= 2
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and (
            live_processes((marker,)) or any(_alive(w) for w in workers)
        ):
            time.sleep(0.1)
        assert not live_processes((marker,))
        assert not [w for w in workers if _alive(w)]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except OSError:
                continue
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
