"""Each transport plays a complete game: http (a local server), uci (Debian's stockfish),
clocks and per-move limits reach the agents, and in-process agents of every shape work."""

from __future__ import annotations

import json
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from enoch.agents.simple import RandomAgent
from enoch.arena import GameConfig, TimeControl
from enoch.arena.transport import AgentTimeout, HttpTransport
from tests.arena.helpers import AGENTS, jsonl_agent, run

STOCKFISH = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")


class _Handler(BaseHTTPRequestHandler):
    agent = RandomAgent(seed="7")

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/slow":
            time.sleep(2)
        if self.path == "/drip":
            # Headers at once, then one byte of body every 0.1 s for about 10 s.
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            for _ in range(100):
                try:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.1)
            return
        if self.path == "/error":
            self.send_response(500)
            self.end_headers()
            return
        answer = json.dumps(self.agent.answer(json.loads(body))).encode()
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


def test_http_plays_a_complete_game(server: str) -> None:
    r, events = run(server + "/move", "builtin:greedy?seed=1")
    assert r.termination not in ("crash", "timeout", "invalid_answer", "illegal_move")
    assert sum(e["event"] == "answer" for e in events) == r.plies + (
        1 if r.termination in ("threefold_repetition", "fifty_moves") else 0
    )


def test_http_errors_and_timeouts(server: str) -> None:
    r, _ = run(server + "/error", "builtin:random")
    assert (r.termination, r.result) == ("crash", "0-1") and "500" in r.reason
    r, _ = run(server + "/slow", "builtin:random", config=GameConfig(movetime=0.3))
    assert (r.termination, r.result) == ("timeout", "0-1")
    with pytest.raises(AgentTimeout):
        HttpTransport(server + "/slow").request({}, 0.2)


def test_http_deadline_is_hard_against_a_dripping_body(server: str) -> None:
    # Every read returns within the socket timeout, yet the answer never ends: the watchdog
    # must stop it at the limit (0.3 s), far before the 10 s the body would take.
    start = time.monotonic()
    with pytest.raises(AgentTimeout):
        HttpTransport(server + "/drip").request({}, 0.3)
    assert time.monotonic() - start < 5


def test_http_refused_connection_is_a_crash() -> None:
    r, _ = run("http://127.0.0.1:9/", "builtin:random")
    assert r.termination == "crash"


@pytest.mark.skipif(
    STOCKFISH is None, reason="stockfish is not installed (apt-get install stockfish)"
)
def test_uci_engine_plays_a_complete_game() -> None:
    r, _ = run(f"uci:{STOCKFISH}", "builtin:random?seed=3", config=GameConfig(movetime=0.02))
    assert (r.result, r.termination) == ("1-0", "checkmate")
    r, _ = run(
        "builtin:random?seed=4",
        f"uci:{STOCKFISH}",
        config=GameConfig(tc=TimeControl.parse("5+0.05")),
    )
    assert (r.result, r.termination) == ("0-1", "checkmate")
    assert r.clocks is not None and len(r.clocks) == r.plies


@pytest.mark.skipif(
    STOCKFISH is None, reason="stockfish is not installed (apt-get install stockfish)"
)
def test_uci_engine_from_a_fen_with_book_moves() -> None:
    r, _ = run(
        f"uci:{STOCKFISH}",
        f"uci:{STOCKFISH}",
        start_fen="4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
        book=("e1c1",),
        config=GameConfig(movetime=0.02),
    )
    assert r.moves[0] == "e1c1"
    # Stockfish mates with K+R at once on an idle machine; on a loaded one a 20 ms search may
    # wander into a repetition. Either way the game ends by the rules, not by a forfeit.
    assert r.termination in (
        "checkmate",
        "stalemate",
        "insufficient_material",
        "fivefold_repetition",
        "seventyfive_moves",
    )


def test_clock_and_movetime_fields_reach_the_agents() -> None:
    plan = {"10": [{"action": "resign"}]}
    r, events = run(
        jsonl_agent(plan), jsonl_agent(plan), config=GameConfig(tc=TimeControl.parse("40/30+0.5"))
    )
    states = [e["state"] for e in events if e["event"] == "state"]
    assert states[0]["clock"] == {"white": 30.0, "black": 30.0, "increment": 0.5, "moves_to_go": 40}
    assert states[2]["clock"]["white"] < 30.5 and states[2]["clock"]["moves_to_go"] == 39
    assert r.termination == "resignation" and len(r.clocks or []) == 10
    r, events = run(jsonl_agent(plan), jsonl_agent(plan), config=GameConfig(movetime=2))
    assert all(e["state"]["move_time_limit"] == 2 for e in events if e["event"] == "state")


def test_flag_falls() -> None:
    r, _ = run(
        jsonl_agent({"0": [{"do": "hang"}]}),
        "builtin:random",
        config=GameConfig(tc=TimeControl.parse("0.5+0")),
    )
    assert (r.termination, r.result) == ("timeout", "0-1")


def test_python_objects_and_callables() -> None:
    def e4_then_resign(state: dict[str, Any]) -> Any:
        if state["position_history"]:
            return '{"action": "resign"}'
        return {"from": "e2", "to": "e4", "promotion": None}

    class Fast:
        name = "fast"

        def answer_position(self, position: Any, **fields: Any) -> Any:
            return position.legal_moves()[0]

    r, _ = run(e4_then_resign, Fast())
    assert r.moves[0] == "e2e4" and r.black == "fast"
    r, _ = run(RandomAgent(seed="1"), e4_then_resign)
    assert r.termination == "resignation" and r.winner == 0


def test_builtin_fast_path_plays_the_same_game_as_json() -> None:
    """The referee's JSON-free path for BuiltinAgent gives the moves its ``answer`` gives."""

    class ViaJson:
        def __init__(self, seed: str) -> None:
            self.inner = RandomAgent(seed=seed)
            self.name = "json"

        def answer(self, state: dict[str, Any]) -> dict[str, Any]:
            return self.inner.answer(state)

    fast, _ = run("builtin:random?seed=11", "builtin:random?seed=12")
    slow, _ = run(ViaJson("11"), ViaJson("12"))
    assert fast.moves == slow.moves and fast.termination == slow.termination


def test_uci_spec_options_are_parsed() -> None:
    from enoch.fide.uci import parse_uci_spec

    assert parse_uci_spec("uci:/usr/games/stockfish?UCI_LimitStrength=true&UCI_Elo=1800") == (
        "/usr/games/stockfish",
        {"UCI_LimitStrength": "true", "UCI_Elo": "1800"},
    )
    assert parse_uci_spec("uci:sf?Skill+Level=5&Move%20Overhead=30") == (
        "sf",
        {"Skill Level": "5", "Move Overhead": "30"},
    )
    # A "?" that does not start Name=Value pairs belongs to the command.
    assert parse_uci_spec("uci:./engine --mode ?x") == ("./engine --mode ?x", {})
    assert parse_uci_spec("uci:stockfish") == ("stockfish", {})


def test_uci_options_reach_the_engine(tmp_path: Any) -> None:
    log = tmp_path / "options.txt"
    fake = f"{sys.executable} {AGENTS / 'fake_uci.py'} {log}"
    r, _ = run(
        f"uci:{fake}?UCI_LimitStrength=true&Skill+Level=3",
        "builtin:random?seed=5",
        config=GameConfig(movetime=0.02),
    )
    assert r.plies > 0
    assert log.read_text().splitlines() == [
        "setoption name UCI_LimitStrength value true",
        "setoption name Skill Level value 3",
    ]
