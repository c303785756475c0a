"""Agents, referee, divination and the CLI."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import pos

from enoch.enochian.agents import GreedyAgent, RandomAgent, SearchAgent, make_agent
from enoch.enochian.geometry import AIR, ARMY_INDEX, SQUARE_INDEX, WATER
from enoch.enochian.protocol import state_to_json
from enoch.enochian.referee import play_game, play_match
from enoch.enochian.search import Searcher
from enoch.enochian.state import Divination, State, make_config, new_game
from enoch.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
ACTIVES, PASSIVES = 0, 1  # the team indexes of GameResult.winner


# --- agents -------------------------------------------------------------------------------


def test_agents_answer_legal_moves() -> None:
    st = new_game("air_of_air")
    for agent in (RandomAgent(seed="1"), GreedyAgent(), SearchAgent(movetime="0.2")):
        ans = agent.answer(state_to_json(st))
        assert set(ans) >= {"from", "to", "promotion"}
        agent.close()


def test_greedy_and_search_take_a_hanging_king() -> None:
    st = pos("air", "air: Ka8 Rh2; water: Kh8; fire: Ke4; earth: Pb4/rook", frozen="earth")
    for agent in (GreedyAgent(), SearchAgent(movetime="0.3")):
        assert agent.answer(state_to_json(st)) == {"from": "h2", "to": "h8", "promotion": None}


def test_search_sees_two_plies() -> None:
    # Air to move: its rook is attacked by the water knight; search moves it or defends
    st = pos("air", "air: Ka8 Rd4; water: Kh8 Nc6; fire: Kh1; earth: Ka1")
    m, _ = Searcher(movetime=0.5, max_depth=3).best_move(st)
    st.make(m)
    assert st.bb[AIR * 9 + 4], "the rook survives the next water move"


def test_unknown_agent_and_option() -> None:
    with pytest.raises(InputError, match="unknown Enochian agent"):
        make_agent("stockfish")
    with pytest.raises(InputError, match="unknown option"):
        make_agent("random?depth=3")
    assert make_agent("enochian-search?movetime=0.1").name == "enochian-search"


def test_registry_names() -> None:
    from tests.builtins import make_builtin

    assert make_builtin("builtin:enochian-greedy", "enochian").name == "enochian-greedy"
    assert make_builtin("builtin:greedy", "enochian").name == "enochian-greedy"
    assert make_builtin("builtin:greedy").name == "greedy"  # chess's own


# --- referee ------------------------------------------------------------------------------


def test_referee_four_random_agents_writes_record_and_log() -> None:
    # the old keyword wrapper over the arena: its log lines are the arena's events
    log = io.StringIO()
    res = play_game(
        [RandomAgent(seed=str(i)) for i in range(4)], "water_of_earth", max_plies=200, log=log
    )
    assert res.reason and res.variant == "enochian" and len(res.seats) == 4
    lines = [json.loads(x) for x in log.getvalue().splitlines()]
    assert lines[0]["event"] == "start" and lines[-1]["event"] == "end"
    assert lines[-1]["termination"] == res.termination and lines[-1]["winner"] == res.winner
    assert {x["event"] for x in lines} <= {"start", "state", "answer", "decision", "end"}
    assert sum(1 for x in lines if x["event"] == "decision") >= res.plies
    assert sum(1 for x in lines if x["event"] == "answer") >= res.plies
    assert res.record is not None and res.record.startswith('[Array "Water of Earth"]')
    assert "1. earth " in res.record


def test_referee_two_players() -> None:
    res = play_game([GreedyAgent(seed="1"), RandomAgent(seed="2")], "fire_of_fire", max_plies=300)
    assert res.plies <= 300 and res.reason
    assert res.winner in (None, ACTIVES, PASSIVES)


def test_old_wrapper_on_move_sees_the_rules_state() -> None:
    seen: list[int] = []
    res = play_game(
        [RandomAgent(seed="1"), RandomAgent(seed="2")],
        max_plies=12,
        on_move=lambda st: seen.append(st.ply),
    )
    assert seen == list(range(1, res.plies + 1)) and res.plies == 12


def test_old_wrapper_plays_from_a_ready_position() -> None:
    st = pos("air", "air: Ka8 Rh2; water: Kh8; fire: Ke4; earth: Pb4/rook", frozen="earth")
    res = play_game([GreedyAgent(), GreedyAgent()], state=st, players=2, max_plies=20)
    assert res.moves[0] == "Rh2xh8"
    with pytest.raises(InputError, match="for 2 players, not 4"):
        play_game([GreedyAgent()] * 4, state=st, players=4)
    with pytest.raises(InputError, match="need 2 or 4 agents"):
        play_game([GreedyAgent()] * 3)


def test_old_wrappers_accept_bare_builtin_names() -> None:
    # Earlier versions took the Enochian CLI's short names ("random", "search?movetime=S")
    # as well as "builtin:NAME"; the thin wrappers are for callers of those versions.
    res = play_game(["random?seed=1", "greedy"], max_plies=6)
    assert res.plies == 6
    points = play_match(lambda: ["random", "builtin:greedy"], 2, ["earth_of_fire"], max_plies=6)
    assert sum(points.values()) == 2


class _Bad:
    name = "bad"

    def __init__(self, answer: Any) -> None:
        self._answer = answer

    def answer(self, state: dict[str, Any]) -> Any:
        if isinstance(self._answer, Exception):
            raise self._answer
        return self._answer

    def close(self) -> None:
        pass


@pytest.mark.parametrize(
    ("answer", "termination", "reason"),
    [
        ({"from": "a1", "to": "a5", "promotion": None}, "illegal_move", "not a legal move"),
        ({"from": "a1"}, "invalid_answer", "missing field"),
        # text from a Python agent is decoded like a program's output
        ("e2e4", "invalid_answer", "not valid JSON"),
        (["e2e4"], "invalid_answer", "must be an object"),
        (RuntimeError("boom"), "crash", "agent raised RuntimeError: boom"),
    ],
)
def test_forfeits(answer: Any, termination: str, reason: str) -> None:
    res = play_game([_Bad(answer), RandomAgent()], "earth_of_fire")
    # the reason names the army that forfeits (fire moves first in earth_of_fire)
    assert res.reason.startswith("fire forfeits: ") and reason in res.reason, res.reason
    assert res.termination == termination and res.to_json()["termination"] == termination
    assert res.record is not None
    assert f'[Termination "{termination}"]' in res.record and "[Forfeit " in res.record
    assert res.winner == PASSIVES and res.result == "passives win"  # fire is an active
    assert res.points == [0.0, 1.0] and res.plies == 0


def test_resignation_through_referee() -> None:
    res = play_game([_Bad({"action": "resign"}), RandomAgent()], "earth_of_fire")
    assert res.winner == PASSIVES and res.termination == "resignation"
    assert res.reason == "passives win: the actives resign"


def test_match_swaps_seats() -> None:
    out = io.StringIO()
    points = play_match(
        lambda: [RandomAgent(seed="1"), GreedyAgent(seed="2")],
        2,
        ["earth_of_fire"],
        max_plies=60,
        results=out,
    )
    assert sum(points.values()) == 2
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [x["game"] for x in lines] == [1, 2]
    assert lines[0]["seats"] == list(reversed(lines[1]["seats"]))
    assert set(points) == {"enochian-random#0", "enochian-greedy#1"}


# --- divination ---------------------------------------------------------------------------


def _div_state(
    men: str, to_move: str, seed: int, querent: int = AIR, ptah: str = "a7", **options: Any
) -> State:
    div = Divination(querent, SQUARE_INDEX[ptah], seed)
    order = tuple((querent + i) % 4 for i in range(4))
    st = pos(
        to_move,
        men,
        order=" ".join(["air", "water", "fire", "earth"][a] for a in order),
        options=options or None,
        divination=div,
    )
    assert st.config.divination is not None and ARMY_INDEX
    return st


def _seed_for(men: str, to_move: str, die: int, **kw: Any) -> State:
    for seed in range(500):
        st = _div_state(men, to_move, seed, **kw)
        if st.army_to_move == ["air", "water", "fire", "earth"].index(to_move) and st.die == die:
            return st
    raise AssertionError("no seed found")


KINGS = "air: Ka8 Pd7/rook; water: Kh8; fire: Kh1; earth: Ka1"


def test_die_forces_the_kind() -> None:
    for seed in range(30):
        st = new_game("earth_of_air", divination=Divination(AIR, SQUARE_INDEX["d5"], seed))
        kind = st.config.die_table[st.die - 1]
        for m in st.legal_moves():
            k = m >> 12 & 15
            assert {
                "king": k == 0,
                "queen": k == 1,
                "bishop": k == 2,
                "knight": k == 3,
                "rook": k == 4,
                "pawn": k >= 5,
            }[kind] or (kind == "king" and k >= 5)


def test_die_is_reproducible() -> None:
    a = new_game(divination=Divination(AIR, SQUARE_INDEX["d5"], 7))
    b = new_game(divination=Divination(AIR, SQUARE_INDEX["d5"], 7))
    assert a.die == b.die and a.army_to_move == AIR == b.army_to_move


@pytest.mark.parametrize("freely", [False, True])
def test_option_one_allows_pawn_freely(freely: bool) -> None:
    st = _seed_for(KINGS, "air", 1, one_allows_pawn_freely=freely)
    got = {st.move_str(m)[0] for m in st.legal_moves()}
    assert got == ({"K", "P"} if freely else {"K"})


def test_roll_one_moves_a_pawn_when_the_king_cannot() -> None:
    st = _seed_for("air: Ka8 Ra7 Rb7 Rb8 Pd7/rook; water: Kh8; fire: Kh1; earth: Ka1", "air", 1)
    assert {st.move_str(m) for m in st.legal_moves()} == {"Pd7-d6"}


@pytest.mark.parametrize("rerolls", [0, 5])
def test_option_divination_rerolls(rerolls: int) -> None:
    lost = 0
    for seed in range(40):
        st = _div_state(KINGS, "air", seed, divination_rerolls=rerolls)
        lost += sum(1 for e in st.log if "skip" in e)
    assert (lost > 40) if rerolls == 0 else (lost < 10)


def test_option_original_gd_die_table() -> None:
    st = new_game(
        "air_of_air",
        options={"divination_die": "original_gd"},
        divination=Divination(AIR, SQUARE_INDEX["d5"], 1),
    )
    assert st.config.die_table != ("king", "knight", "bishop", "queen", "rook", "pawn")


def test_divination_check_duties_are_off() -> None:
    # roll 2 (knight): the king in check may not move; the knight moves
    st = _seed_for("air: Ka8 Nd4; water: Ra1 Kh8; fire: Kh1; earth: Kh4", "air", 2)
    assert st.in_check(AIR) and {st.move_str(m)[0] for m in st.legal_moves()} == {"N"}


def test_ptah_success_after_a_full_round() -> None:
    st = _seed_for("air: Ka8; water: Kh8; fire: Kh1; earth: Kd1", "air", 1)
    st.make(st.parse_move("Ka8-a7"))
    assert st.ptah_watch
    while st.verdict is None and not st.is_terminal():
        assert st.army_to_move != AIR or st.verdict
        st.make(st.legal_moves()[0])
    assert st.verdict == "success"


def test_ptah_failure_when_querent_king_taken() -> None:
    st = _seed_for(
        "air: Ka8 Pd7/rook; water: Ra1 Kh8; fire: Kh1; earth: Kd1", "water", 5, ptah="c6"
    )
    st.make(st.parse_move("Ra1xa8"))
    assert st.verdict == "failure"


def test_ptah_may_not_be_the_king_square() -> None:
    with pytest.raises(InputError, match="Ptah"):
        pos(
            "air",
            KINGS,
            divination=Divination(AIR, SQUARE_INDEX["a8"], 0),
            order="air water fire earth",
        )


def test_make_config_defaults() -> None:
    assert make_config(to_move=WATER).order == (1, 2, 3, 0)


# --- CLI ----------------------------------------------------------------------------------


def _cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-m", "enoch", "enochian", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_cli_arrays_and_perft() -> None:
    r = _cli("arrays")
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 16
    r = _cli("perft", "Fire of Fire", "3")
    assert r.returncode == 0 and r.stdout.strip() == "829"
    r = _cli("perft", "nowhere", "2")
    assert r.returncode == 2 and "unknown Enochian array" in r.stderr


def test_cli_validate() -> None:
    r = _cli("validate", stdin=json.dumps(state_to_json(new_game())))
    assert r.returncode == 0 and json.loads(r.stdout)["valid"]
    r = _cli("validate", stdin='{"protocol": 1}')
    assert r.returncode == 2 and "state" in r.stderr


def _record(stdout: str) -> tuple[dict[str, str], list[str]]:
    """The tags and the numbered moves of the text record ``enoch enochian play`` prints
    at the end."""
    text = stdout[stdout.rindex('[Array "') :]
    tags = dict(re.findall(r'^\[(\w+) "(.*)"\]$', text, re.M))
    moves = re.findall(r"^\d+\. (\w+ \S+)$", text, re.M)
    return tags, moves


def test_cli_play_and_match(tmp_path: Path) -> None:
    r = _cli(
        "play",
        "--agents",
        "random",
        "--quiet",
        "--max-plies",
        "40",
        "--divination",
        "--record",
        str(tmp_path / "g.txt"),
        "--log",
        str(tmp_path / "g.jsonl"),
    )
    assert r.returncode == 0, r.stderr
    # the arena prints the game's text record at the end (no JSON line any more)
    tags, moves = _record(r.stdout)
    assert tags["Divination"].startswith("querent air") and tags["Players"] == "4"
    assert len(moves) <= 40 and tags["Termination"]
    record = (tmp_path / "g.txt").read_text()
    assert record.startswith("[Array") and r.stdout.rstrip().endswith(record.rstrip())
    events = [json.loads(x) for x in (tmp_path / "g.jsonl").read_text().splitlines()]
    assert events[0]["event"] == "start" and events[-1]["event"] == "end"
    assert events[0]["variant"] == "enochian"
    r = _cli("match", "random", "greedy", "--games", "2", "--max-plies", "40")
    assert r.returncode == 0, r.stderr
    # the arena's match table: two agents, W/D/L over 2 games
    assert "builtin:random vs builtin:greedy (enochian)" in r.stdout
    assert re.search(r"│\s+2 │", r.stdout) and "terminations: " in r.stdout


def test_top_level_cli_knows_enochian() -> None:
    from enoch.cli import _PARTS

    assert "enoch.enochian.cli" in _PARTS


def test_cli_play_two_players_human_commands_a_team(tmp_path: Path) -> None:
    # Fire of Fire: fire and air (actives) against water and earth; the human plays the
    # actives, resigns at once (end of input), and the game is recorded as two players
    r = _cli(
        "play",
        "--players",
        "2",
        "--army",
        "air",
        "--agents",
        "random",
        "--quiet",
        "--record",
        str(tmp_path / "g.txt"),
        "--movetime",
        "5",
        stdin="",
    )
    assert r.returncode == 0, r.stderr
    tags, moves = _record(r.stdout)
    assert tags["Termination"] == "resignation" and tags["Result"] == "passives win"
    assert tags["Air"] == tags["Fire"] == "human"
    assert tags["Water"] == tags["Earth"] == "builtin:random"
    assert moves == []
    assert '[Players "2"]' in (tmp_path / "g.txt").read_text()


def test_cli_play_human_moves_then_resigns() -> None:
    # four players: the human (fire moves first in earth_of_fire) makes one move, then resigns
    st = new_game("earth_of_fire", players=4)
    first = st.move_str(st.legal_moves()[0])
    r = _cli(
        "play",
        "--army",
        "fire",
        "--agents",
        "random,greedy,random",
        "--quiet",
        stdin=f"nonsense\n{first}\nresign\n",
    )
    assert r.returncode == 0, r.stderr
    tags, moves = _record(r.stdout)
    assert moves[0] == f"fire {first}" and tags["Termination"] == "resignation"
    assert tags["Fire"] == "human" and tags["Air"] == "builtin:greedy"
    assert "{fire resign}" in r.stdout


def test_cli_match_four_agents_files(tmp_path: Path) -> None:
    script = Path(__file__).parent / "agents" / "scripted.py"
    agents = ["random?seed=1", "greedy", f"jsonl:{sys.executable} {script} --jsonl"]
    agents.append("random?seed=2")
    r = _cli(
        "match",
        *agents,
        "--games",
        "4",
        "--max-plies",
        "30",
        "--arrays",
        "air_of_air,water_of_earth",
        "--movetime",
        "10",
        "--record",
        str(tmp_path / "r.txt"),
        "--log-dir",
        str(tmp_path / "logs"),
        "--results",
        str(tmp_path / "res.jsonl"),
    )
    assert r.returncode == 0, r.stderr
    # the arena's four-seat table: every agent with its points over the 4 games
    assert "enochian: 4 seats" in r.stdout
    assert "builtin:random?seed=1" in r.stdout and "builtin:greedy" in r.stdout
    assert r.stdout.count("/4 ") >= 4
    results = [json.loads(x) for x in (tmp_path / "res.jsonl").read_text().splitlines()]
    assert len(results) == 4 and all(x["termination"] for x in results)
    assert [x["game"] for x in results] == [1, 2, 3, 4]
    assert [x["array"] for x in results] == ["air_of_air"] * 4  # one full turn of the seats
    assert [x["seats"][0] for x in results] == [
        "builtin:" + agents[0],
        "builtin:greedy",
        agents[2],
        "builtin:" + agents[3],
    ]
    assert (tmp_path / "r.txt").read_text().count('[Players "4"]') == 4
    logs = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert logs == [f"game-{i:04d}.jsonl" for i in range(1, 5)]
    for name in logs:
        lines = (tmp_path / "logs" / name).read_text().splitlines()
        assert json.loads(lines[0])["event"] == "start" and json.loads(lines[-1])["event"] == "end"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("match", "random"), "give 2 agents"),
        (("match", "random", "random", "random"), "give 2 agents"),
        # the arena's check: the Enochian game has no uci: agents
        (("match", "random", "uci:stockfish"), "unknown agent 'uci:stockfish' for enochian"),
        (("match", "random", "ftp://x"), "ftp://x for enochian"),
        (("match", "random", "random", "--movetime", "0"), "--movetime"),
        (("match", "random", "random", "--games", "0"), "--games"),
        (("match", "random", "random", "--arrays", "nowhere"), "unknown Enochian array"),
        (
            ("match", "random", "random", "--results", "/nonexistent/dir/r.jsonl"),
            "does not exist",
        ),
        (("play", "--agents", "random,random"), "--agents"),
        (("play", "--players", "2", "--agents", "random,random,random"), "--agents"),
        (("play", "--army", "mud"), "unknown army"),
    ],
)
def test_cli_bad_input_one_line_exit_2(args: tuple[str, ...], message: str) -> None:
    r = _cli(*args)
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
