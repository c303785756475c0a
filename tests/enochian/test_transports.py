"""Enochian games over every transport: exec, jsonl and http agents play complete 4-player
games; crash, hang, garbage, oversize and illegal answers forfeit with the right termination;
no process is left behind (the arena tests' checks, on the Enochian scripted agent)."""

from __future__ import annotations

import io
import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from helpers import pos
from tests.processes import group_alive, reap_and_assert_none_left

from enoch.enochian.agents import GreedyAgent, RandomAgent
from enoch.enochian.protocol import schema
from enoch.enochian.referee import GameResult, Seat, make_seat, play_game, play_match
from enoch.errors import InputError

AGENTS = Path(__file__).parent / "agents"
SCRIPT = AGENTS / "scripted.py"
MARKERS = (str(AGENTS), "time.sleep(3600)")
STATE_V = jsonschema.Draft202012Validator(schema("state"))
# four armies, a rook each: every seat answers, the game ends by the rules in ten plies
ROOKS = "air: Kc8 Rd4; water: Kf8 Re5; fire: Kf1 Re4; earth: Kc1 Rd5"


def exec_agent(plan: dict[str, Any] | None = None) -> str:
    return f"exec:{sys.executable} {SCRIPT} '{json.dumps(plan or {})}'"


def jsonl_agent(plan: dict[str, Any] | None = None) -> str:
    return f"jsonl:{sys.executable} {SCRIPT} --jsonl '{json.dumps(plan or {})}'"


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    yield
    reap_and_assert_none_left(MARKERS)


def run(agents: list[Any], **kw: Any) -> tuple[GameResult, list[dict[str, Any]]]:
    """Play with every check on: states satisfy the schema, no process group survives."""
    seats: list[Seat] = [make_seat(a) for a in agents]
    log = io.StringIO()
    kw.setdefault("timeout", 30)
    res = play_game(seats, log=log, **kw)
    events = [json.loads(x) for x in log.getvalue().splitlines()]
    for e in events:
        if e["type"] == "state":
            errors = list(STATE_V.iter_errors(e["state"]))
            assert not errors, errors[0].message
    for s in seats:
        for pgid in s.pgids:
            assert not group_alive(pgid), f"process group {pgid} of {s.name} survived"
    assert events[-1]["type"] == "result"
    return res, events


def rooks() -> Any:
    return pos("air", ROOKS, players=4, max_plies=100)


# --- complete games -----------------------------------------------------------------------


def test_exec_agents_play_a_complete_four_player_game() -> None:
    res, events = run([exec_agent() for _ in range(4)], state=rooks(), players=4)
    assert res.termination == "bare_kings" and res.winner is None and res.plies == 10
    asked = {e["player"] for e in events if e["type"] == "state"}
    assert asked == {0, 1, 2, 3}
    assert sum(e["type"] == "answer" for e in events) == res.plies


def test_jsonl_agents_play_a_complete_four_player_game_from_an_array() -> None:
    res, events = run([jsonl_agent() for _ in range(4)], array="air_of_air", players=4, movetime=10)
    assert res.termination == "kings_captured" and res.winner == "passives"
    assert res.plies == 42  # the scripted agent is deterministic
    assert all(e["state"]["move_time_limit"] == 10 for e in events if e["type"] == "state")
    assert res.record.count("\n4") >= 1 and res.record.endswith("passives win\n")


def test_mixed_transports_two_players() -> None:
    res, _ = run(
        [jsonl_agent(), "builtin:enochian-greedy?seed=2"], array="fire_of_fire", max_plies=60
    )
    assert res.termination not in ("crash", "timeout", "invalid_answer", "oversize", "illegal_move")


class _Handler(BaseHTTPRequestHandler):
    agent = GreedyAgent(seed="3")

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/error":
            self.send_response(500)
            self.end_headers()
            return
        answer = (
            b"not json"
            if self.path == "/garbage"
            else json.dumps(self.agent.answer(json.loads(body))).encode()
        )
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_http_agents_play_a_complete_four_player_game(server: str) -> None:
    res, events = run(
        [server + "/move", "random?seed=1", server + "/move", "random?seed=2"],
        array="earth_of_air",
        players=4,
        max_plies=120,
    )
    assert res.termination not in ("crash", "timeout", "invalid_answer", "illegal_move")
    assert any(e["type"] == "answer" and e["player"] == 0 for e in events)


def test_http_error_and_garbage_forfeit(server: str) -> None:
    res, _ = run([server + "/error", "random"], array="earth_of_fire")
    assert (res.termination, res.winner) == ("crash", "passives") and "500" in res.reason
    res, _ = run([server + "/garbage", "random"], array="earth_of_fire")
    assert (res.termination, res.winner) == ("invalid_answer", "passives")
    res, _ = run(["http://127.0.0.1:9/", "random"], array="earth_of_fire")
    assert res.termination == "crash"


# --- forfeits -----------------------------------------------------------------------------


@pytest.mark.parametrize("make", [exec_agent, jsonl_agent])
@pytest.mark.parametrize(
    ("step", "termination"),
    [
        ({"do": "crash"}, "crash"),
        ({"raw": "e2e4 please"}, "invalid_answer"),
        ({"raw": '{"from": "a1"}'}, "invalid_answer"),
        ({"do": "giant"}, "oversize"),
        ({"do": "illegal"}, "illegal_move"),
    ],
)
def test_forfeits_over_processes(make: Any, step: dict[str, Any], termination: str) -> None:
    # earth_of_fire: fire moves first; the scripted agent fails at ply 2 (fire's second turn
    # with two players), so the passives win
    res, events = run([make({"2": step}), make()], array="earth_of_fire")
    assert res.termination == termination, res.reason
    assert res.winner == "passives" and res.plies == 2
    assert f'[Termination "{termination}"]' in res.record
    if termination == "crash":
        errors = [e for e in events if e["type"] == "answer" and "error" in e]
        assert "deliberate crash" in errors[-1]["stderr"]


@pytest.mark.parametrize("make", [exec_agent, jsonl_agent])
def test_hang_past_the_limit_is_a_timeout(make: Any) -> None:
    # the other side is in-process (answers in milliseconds); the limit is generous
    res, events = run(["random", make({"1": {"do": "hang"}})], array="earth_of_fire", movetime=1.5)
    assert (res.termination, res.winner, res.plies) == ("timeout", "actives", 1)
    assert [e["kind"] for e in events if e["type"] == "answer" and "error" in e] == ["timeout"]


def test_grandchild_is_killed_with_its_group() -> None:
    res, _ = run(
        [exec_agent({"0": {"do": "grandchild"}}), jsonl_agent()], array="earth_of_fire", max_plies=3
    )
    assert res.termination == "move_limit"


def test_agent_that_cannot_start_is_a_crash() -> None:
    res, _ = run(["exec:/nonexistent/agent", "random"], array="earth_of_fire")
    assert res.termination == "crash" and "cannot start" in res.reason


def test_bad_agent_names() -> None:
    with pytest.raises(InputError, match="UCI"):
        make_seat("uci:stockfish")
    with pytest.raises(InputError, match="empty command"):
        make_seat("exec:  ")
    with pytest.raises(InputError, match="unknown Enochian agent"):
        make_seat("builtin:sunfish")
    with pytest.raises(InputError, match="movetime"):
        play_game(["random", "random"], movetime=0)


# --- matches ------------------------------------------------------------------------------


def test_four_agent_match_rotates_seats_and_arrays() -> None:
    results, log = io.StringIO(), io.StringIO()
    names = ["random?seed=1", "random?seed=2", "greedy?seed=3", jsonl_agent()]
    points = play_match(
        lambda: list(names),
        4,
        ["air_of_air", "fire_of_water"],
        players=4,
        max_plies=40,
        results=results,
        log=log,
    )
    lines = [json.loads(x) for x in results.getvalue().splitlines()]
    assert [x["array"] for x in lines] == ["air_of_air"] * 4
    seats = [x["seats"] for x in lines]
    assert [s[0] for s in seats] == [f"{names[i]}#{i}" for i in range(4)]
    assert sum(points.values()) == pytest.approx(4 * 2)  # two winners (or four halves) a game
    assert set(points) == {f"{n}#{i}" for i, n in enumerate(names)}
    assert sum(1 for x in log.getvalue().splitlines() if json.loads(x)["type"] == "game") == 4


def test_match_objects_are_made_afresh() -> None:
    made: list[int] = []

    def make() -> list[Any]:
        made.append(1)
        return [RandomAgent(seed="1"), RandomAgent(seed="2")]

    play_match(make, 3, ["earth_of_fire", "water_of_water"], max_plies=20)
    assert len(made) == 3
