"""Enochian games over every transport, through the arena's one referee: exec, jsonl and http
agents play complete 4-player games; crash, hang, garbage, oversize and illegal answers forfeit
with the right termination; no process is left behind (the arena tests' checks, on the
Enochian scripted agent)."""

from __future__ import annotations

import io
import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, cast

import jsonschema
import pytest
from helpers import pos
from tests.processes import group_alive, live_processes, reap_and_assert_none_left

from enoch.arena.match import run_match
from enoch.arena.players import check_agent, make_player
from enoch.arena.referee import GameConfig, GameResult, play_game
from enoch.enochian.agents import GreedyAgent, RandomAgent
from enoch.enochian.game import EnochianGame
from enoch.enochian.protocol import schema
from enoch.enochian.referee import play_game as old_play_game
from enoch.enochian.referee import play_match
from enoch.errors import InputError
from enoch.game.api import Start
from enoch.game.registry import find_game

GAME = cast(EnochianGame, find_game("enochian"))
AGENTS = Path(__file__).parent / "agents"
SCRIPT = AGENTS / "scripted.py"
MARKERS = (str(AGENTS), "time.sleep(3600)")
STATE_V = jsonschema.Draft202012Validator(schema("state"))
# four armies, a rook each: every seat answers, the game ends by the rules in ten plies
ROOKS = "air: Kc8 Rd4; water: Kf8 Re5; fire: Kf1 Re4; earth: Kc1 Rd5"
ACTIVES, PASSIVES = 0, 1  # the team indexes of GameResult.winner
FORFEITS = ("crash", "timeout", "invalid_answer", "illegal_move")


def exec_agent(plan: dict[str, Any] | None = None) -> str:
    return f"exec:{sys.executable} {SCRIPT} '{json.dumps(plan or {})}'"


def jsonl_agent(plan: dict[str, Any] | None = None) -> str:
    return f"jsonl:{sys.executable} {SCRIPT} --jsonl '{json.dumps(plan or {})}'"


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    yield
    reap_and_assert_none_left(MARKERS)


def run(
    agents: list[Any],
    *,
    state: Any = None,
    config: GameConfig | None = None,
    max_plies: int | None = None,
    **options: Any,
) -> tuple[GameResult, list[dict[str, Any]]]:
    """Play an Enochian game through the arena with every check on: states satisfy the
    Enochian schema, the log is the arena's, no process group survives."""
    players = [make_player(a, GAME) for a in agents]
    events: list[dict[str, Any]] = []
    res = play_game(
        *players,
        variant="enochian",
        options=options or None,
        state=GAME.state_from(state) if state is not None else None,
        max_plies=max_plies,
        config=config or GameConfig(timeout=30),
        log=events.append,
    )
    for e in events:
        if e["event"] == "state":
            errors = list(STATE_V.iter_errors(e["state"]))
            assert not errors, errors[0].message
    for p in players:
        for pgid in p.pgids:
            assert not group_alive(pgid), f"process group {pgid} of {p.name} survived"
    assert events[0]["event"] == "start" and events[0]["variant"] == "enochian"
    assert events[-1]["event"] == "end" and events[-1]["termination"] == res.termination
    assert res.variant == "enochian" and res.record is not None
    return res, events


def rooks() -> Any:
    return pos("air", ROOKS, players=4, max_plies=100)


def errors_of(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == "answer" and "error" in e]


# --- complete games -----------------------------------------------------------------------


def test_exec_agents_play_a_complete_four_player_game() -> None:
    res, events = run([exec_agent() for _ in range(4)], state=rooks())
    assert res.termination == "bare_kings" and res.winner is None and res.plies == 10
    assert res.result == "draw" and res.points == [0.5] * 4
    asked = {e["player"] for e in events if e["event"] == "state"}
    assert asked == {0, 1, 2, 3}
    assert sum(e["event"] == "answer" for e in events) == res.plies
    assert not errors_of(events)


def test_jsonl_agents_play_a_complete_four_player_game_from_an_array() -> None:
    res, events = run(
        [jsonl_agent() for _ in range(4)],
        array="air_of_air",
        players=4,
        config=GameConfig(movetime=10),
    )
    assert res.termination == "kings_captured" and res.winner == PASSIVES
    assert res.result == "passives win"
    assert res.plies == 42  # the scripted agent is deterministic
    states = [e["state"] for e in events if e["event"] == "state"]
    assert states and all(s["move_time_limit"] == 10 for s in states)
    assert res.record is not None
    assert res.record.count("\n4") >= 1 and res.record.endswith("passives win\n")
    # the seats of the actives (air, fire) get 0, the passives' 1
    assert sorted(res.points) == [0, 0, 1, 1]


def test_mixed_transports_two_players() -> None:
    res, _ = run(
        [jsonl_agent(), "builtin:enochian-greedy?seed=2"],
        array="fire_of_fire",
        max_plies=60,
    )
    assert res.termination not in FORFEITS
    assert res.plies <= 60


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
        [server + "/move", "builtin:random?seed=1", server + "/move", "builtin:random?seed=2"],
        array="earth_of_air",
        players=4,
        max_plies=120,
    )
    assert res.termination not in FORFEITS
    assert any(e["event"] == "answer" and e["player"] == 0 for e in events)
    assert not errors_of(events)


def test_http_error_and_garbage_forfeit(server: str) -> None:
    res, _ = run([server + "/error", "builtin:random"], array="earth_of_fire")
    assert (res.termination, res.winner) == ("crash", PASSIVES) and "500" in res.reason
    res, _ = run([server + "/garbage", "builtin:random"], array="earth_of_fire")
    assert (res.termination, res.winner) == ("invalid_answer", PASSIVES)
    assert "not valid JSON" in res.reason
    res, _ = run(["http://127.0.0.1:9/", "builtin:random"], array="earth_of_fire")
    assert res.termination == "crash"


# --- forfeits -----------------------------------------------------------------------------


@pytest.mark.parametrize("make", [exec_agent, jsonl_agent])
@pytest.mark.parametrize(
    ("step", "termination", "reason"),
    [
        ({"do": "crash"}, "crash", "exit status 3"),
        ({"raw": "e2e4 please"}, "invalid_answer", "not valid JSON"),
        ({"raw": '{"from": "a1"}'}, "invalid_answer", "missing field"),
        # the arena: an oversize answer is an invalid answer (was its own "oversize")
        ({"do": "giant"}, "invalid_answer", "exceeds the size limit"),
        ({"do": "illegal"}, "illegal_move", "not a legal move"),
        # the arena's strict decoder: which "from" would be the move?
        (
            {"raw": '{"from": "a1", "from": "f1", "to": "f3", "promotion": null}'},
            "invalid_answer",
            "twice",
        ),
    ],
)
def test_forfeits_over_processes(
    make: Any, step: dict[str, Any], termination: str, reason: str
) -> None:
    # earth_of_fire: fire moves first; the scripted agent fails at ply 2 (fire's second turn
    # with two players), so the passives win
    res, events = run([make({"2": step}), make()], array="earth_of_fire")
    assert res.termination == termination, res.reason
    assert reason in res.reason and "\n" not in res.reason
    assert res.winner == PASSIVES and res.plies == 2 and res.points == [0.0, 1.0]
    assert res.result == "passives win"
    assert res.record is not None
    assert f'[Termination "{termination}"]' in res.record and "[Forfeit " in res.record
    if termination == "crash":
        assert "deliberate crash" in errors_of(events)[-1]["stderr"]


@pytest.mark.parametrize("make", [exec_agent, jsonl_agent])
def test_hang_past_the_limit_is_a_timeout(make: Any) -> None:
    # the other side is in-process (answers in milliseconds); the limit is generous
    res, events = run(
        ["builtin:random", make({"1": {"do": "hang"}})],
        array="earth_of_fire",
        config=GameConfig(movetime=1.5),
    )
    assert (res.termination, res.winner, res.plies) == ("timeout", ACTIVES, 1)
    assert [e["kind"] for e in errors_of(events)] == ["timeout"]


def test_grandchild_is_killed_with_its_group() -> None:
    res, _ = run(
        [exec_agent({"0": {"do": "grandchild"}}), jsonl_agent()],
        array="earth_of_fire",
        max_plies=3,
    )
    assert res.termination == "move_limit" and res.plies == 3


def test_agent_that_cannot_start_is_a_crash() -> None:
    res, _ = run(["exec:/nonexistent/agent", "builtin:random"], array="earth_of_fire")
    assert res.termination == "crash" and "cannot start" in res.reason
    assert res.winner == PASSIVES


def test_bad_agent_names() -> None:
    # UCI engines play FIDE chess: the Enochian game has no uci: prefix
    with pytest.raises(InputError, match="unknown agent 'uci:stockfish' for enochian"):
        check_agent("uci:stockfish", GAME)
    with pytest.raises(InputError, match="unknown agent 'uci:stockfish' for enochian"):
        make_player("uci:stockfish", GAME)
    with pytest.raises(InputError, match="empty command"):
        make_player("exec:  ", GAME)
    with pytest.raises(InputError, match="unknown agent builtin:sunfish for enochian"):
        check_agent("builtin:sunfish", GAME)
    # chess's own built-ins are not Enochian agents
    with pytest.raises(InputError, match="unknown agent builtin:engine for enochian"):
        make_player("builtin:engine", GAME)
    with pytest.raises(InputError, match="movetime"):
        old_play_game([RandomAgent(), RandomAgent()], movetime=0)
    # every transport and every Enochian built-in name is accepted without starting anything
    for spec in ("builtin:random", "builtin:enochian-search?movetime=0.1", "human"):
        check_agent(spec, GAME)
    for spec in ("exec:agent", "jsonl:agent", "http://127.0.0.1:9/"):
        check_agent(spec, GAME)


def test_builtin_names_are_the_games_own() -> None:
    assert make_player("builtin:random", GAME).name == "builtin:random"
    res, _ = run(["builtin:random?seed=1", "builtin:greedy?seed=2"], max_plies=10)
    assert res.plies == 10 and res.termination == "move_limit"


# --- matches ------------------------------------------------------------------------------


def test_four_agent_match_rotates_seats_and_arrays() -> None:
    results, log = io.StringIO(), io.StringIO()
    names = ["builtin:random?seed=1", "builtin:random?seed=2", "builtin:greedy?seed=3"]
    names.append(jsonl_agent())
    points = play_match(
        lambda: list(names),
        8,
        ["air_of_air", "fire_of_water"],
        players=4,
        max_plies=24,
        results=results,
        log=log,
    )
    lines = [json.loads(x) for x in results.getvalue().splitlines()]
    # seats rotate every game; the array after a full turn of the seats
    assert [x["array"] for x in lines] == ["air_of_air"] * 4 + ["fire_of_water"] * 4
    seats = [x["seats"] for x in lines]
    assert [s[0] for s in seats[:4]] == [f"{names[i]}#{i}" for i in range(4)]
    assert seats[1] == [f"{names[(k + 1) % 4]}#{(k + 1) % 4}" for k in range(4)]
    assert seats[4] == seats[0]
    assert sum(points.values()) == pytest.approx(8 * 2)  # two winners (or four halves) a game
    assert set(points) == {f"{n}#{i}" for i, n in enumerate(names)}
    events = [json.loads(x) for x in log.getvalue().splitlines()]
    assert [e["game"] for e in events if e["event"] == "game"] == list(range(1, 9))


def test_arena_match_rotates_seats_over_arrays() -> None:
    outcome = run_match(
        "builtin:random?seed=1",
        "builtin:greedy?seed=2",
        variant="enochian",
        setup=GAME.setup({"players": 2}, max_plies=20),
        games=4,
        starts=[Start("earth_of_fire", "earth_of_fire"), Start("water_of_water", "water_of_water")],
        config=GameConfig(timeout=30),
    )
    assert [g.seats for g, _ in outcome.games] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert [r.extras["array"] for _, r in outcome.games] == [
        "earth_of_fire",
        "earth_of_fire",
        "water_of_water",
        "water_of_water",
    ]
    assert outcome.score(0).games == outcome.score(1).games == 4


def test_match_objects_are_made_afresh() -> None:
    # the old wrapper takes a factory so that every game gets fresh agent objects
    made: list[int] = []

    def make() -> list[Any]:
        made.append(1)
        return [RandomAgent(seed="1"), RandomAgent(seed="2")]

    play_match(make, 3, ["earth_of_fire", "water_of_water"], max_plies=20)
    assert len(made) == 3


def test_match_names_are_made_afresh_each_game() -> None:
    # names, not objects: each game starts its own agent process and ends it with the game,
    # so the next game (which plays) cannot be using the last one's
    left: list[list[tuple[int, str]]] = []
    results = io.StringIO()
    play_match(
        lambda: [jsonl_agent(), "builtin:random?seed=1"],
        2,
        ["earth_of_fire"],
        max_plies=6,
        results=results,
        on_game=lambda i, r: left.append(live_processes((str(SCRIPT),))),
    )
    lines = [json.loads(x) for x in results.getvalue().splitlines()]
    assert [x["plies"] for x in lines] == [6, 6]
    assert left == [[], []]
