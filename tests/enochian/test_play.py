"""Agents, referee, divination and the CLI."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import pos

from enoch.enochian.agents import GreedyAgent, RandomAgent, SearchAgent, make_agent
from enoch.enochian.geometry import AIR, SQUARE_INDEX, WATER
from enoch.enochian.protocol import state_to_json
from enoch.enochian.referee import play_game, play_match
from enoch.enochian.search import Searcher
from enoch.enochian.state import Divination, State, make_config, new_game
from enoch.errors import InputError

ROOT = Path(__file__).resolve().parents[2]


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
    log = io.StringIO()
    res = play_game(
        [RandomAgent(seed=str(i)) for i in range(4)], "water_of_earth", max_plies=200, log=log
    )
    assert res.reason
    lines = [json.loads(x) for x in log.getvalue().splitlines()]
    assert lines[0]["type"] == "start" and lines[-1]["type"] == "result"
    assert sum(1 for x in lines if x["type"] == "decision") >= res.plies
    assert res.record.startswith('[Array "Water of Earth"]')
    assert "1. earth " in res.record


def test_referee_two_players() -> None:
    res = play_game([GreedyAgent(seed="1"), RandomAgent(seed="2")], "fire_of_fire", max_plies=300)
    assert res.plies <= 300 and res.reason


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
        ("e2e4", "invalid_answer", "must be an object"),
        (RuntimeError("boom"), "crash", "agent raised RuntimeError: boom"),
    ],
)
def test_forfeits(answer: Any, termination: str, reason: str) -> None:
    res = play_game([_Bad(answer), RandomAgent()], "earth_of_fire")
    assert res.reason.startswith("forfeit") and reason in res.reason
    assert res.termination == termination and res.line()["termination"] == termination
    assert f'[Termination "{termination}"]' in res.record and "[Forfeit " in res.record
    assert res.winner == "passives"  # fire (actives) moves first and forfeits


def test_resignation_through_referee() -> None:
    res = play_game([_Bad({"action": "resign"}), RandomAgent()], "earth_of_fire")
    assert res.winner == "passives" and res.reason == "resignation"


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
    assert len(out.getvalue().splitlines()) == 2


# --- divination ---------------------------------------------------------------------------


def _div_state(
    men: str, to_move: str, seed: int, querent: int = AIR, ptah: str = "a7", **options: Any
) -> State:
    from helpers import ARMY_INDEX

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
        [
            sys.executable,
            "-c",
            "import sys; from enoch.enochian.cli import "
            "register; import argparse, enoch.cli as c; "
            "p=argparse.ArgumentParser(); s=p.add_subparsers(); register(s); "
            "a=p.parse_args(sys.argv[1:]); from enoch.errors import InputError\n"
            "try: sys.exit(a.func(a))\n"
            "except InputError as e: print(e, file=sys.stderr); sys.exit(2)",
            "enochian",
            *args,
        ],
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
    assert json.loads(r.stdout.strip().splitlines()[-1])["plies"] <= 40
    assert (tmp_path / "g.txt").read_text().startswith("[Array")
    r = _cli("match", "random", "greedy", "--games", "2", "--max-plies", "40")
    assert r.returncode == 0 and json.loads(r.stdout)["games"] == 2


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
    line = json.loads(r.stdout.strip().splitlines()[-1])
    assert line["termination"] == "resignation" and line["winner"] == "passives"
    assert line["seats"]["air"] == line["seats"]["fire"] == "human"
    assert line["seats"]["water"] == line["seats"]["earth"] == "enochian-random"
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
    line = json.loads(r.stdout.strip().splitlines()[-1])
    assert line["plies"] >= 1 and line["termination"] == "resignation"


def test_cli_match_four_agents_files(tmp_path: Path) -> None:
    script = Path(__file__).parent / "agents" / "scripted.py"
    r = _cli(
        "match",
        "random?seed=1",
        "greedy",
        f"jsonl:{sys.executable} {script} --jsonl",
        "random?seed=2",
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
        "--log",
        str(tmp_path / "e.jsonl"),
        "--results",
        str(tmp_path / "res.jsonl"),
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["games"] == 4
    results = [json.loads(x) for x in (tmp_path / "res.jsonl").read_text().splitlines()]
    assert len(results) == 4 and all(x["termination"] for x in results)
    assert (tmp_path / "r.txt").read_text().count('[Players "4"]') == 4
    assert r.stderr.count("game ") == 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("match", "random"), "give 2 agents"),
        (("match", "random", "random", "random"), "give 2 agents"),
        (("match", "random", "uci:stockfish"), "UCI"),
        (("match", "random", "ftp://x"), "unknown Enochian agent"),
        (("match", "random", "random", "--movetime", "0"), "--movetime"),
        (("match", "random", "random", "--games", "0"), "--games"),
        (("match", "random", "random", "--arrays", "nowhere"), "unknown Enochian array"),
        (("match", "random", "random", "--results", "/nonexistent/dir/r.jsonl"), "cannot write"),
        (("play", "--agents", "random,random"), "--agents"),
        (("play", "--players", "2", "--agents", "random,random,random"), "--agents"),
        (("play", "--army", "mud"), "unknown army"),
    ],
)
def test_cli_bad_input_one_line_exit_2(args: tuple[str, ...], message: str) -> None:
    r = _cli(*args)
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
