"""The referee's failures, written once and run for every game: an agent that crashes, hangs,
writes garbage, duplicate keys, NaN, trailing text or too much, or leaves a child behind
forfeits the same way in chess and in Enochian chess (the same termination, its team loses,
one line of reason, no process left), and so does an illegal move; ``retries`` forgive the
same way. Also the drifts between the games that one referee removed."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pytest

from enoch.arena.players import Player, make_player
from enoch.arena.referee import GameConfig, GameResult, play_game
from enoch.arena.transport import Limits
from enoch.cli import main
from enoch.errors import InputError
from enoch.game.registry import find_game
from tests.processes import group_alive

MISBEHAVE = Path(__file__).parent / "agents" / "misbehave.py"
VARIANTS = ["chess", "enochian"]
# the misbehaving agent sits in seat 0, which moves first in both games (white; fire, an
# active, in Enochian's default earth_of_fire with two players): the other team (1) wins
LOSS = {"chess": "0-1", "enochian": "passives win"}
MOVER = {"chess": "white", "enochian": "fire"}
# a legal-looking answer that is not a legal move at the start
ILLEGAL = {
    "chess": '{"from": "e2", "to": "e5", "promotion": null}',
    "enochian": '{"from": "d4", "to": "d5", "promotion": null}',  # d4 is empty
}
ILLEGAL_REASON = {"chess": "illegal move e2e5", "enochian": "d4-d5 is not a legal move"}
# a legal first move, and how the result records it
LEGAL = {
    "chess": ('{"from": "e2", "to": "e4", "promotion": null}', "e2e4"),
    "enochian": ('{"from": "f1", "to": "f3", "promotion": null}', "Qf1-f3"),
}
MAX_PLIES = 40  # Enochian's default (400) would only slow the tests that play on
FORFEITS = ("crash", "timeout", "invalid_answer", "illegal_move")


def misbehave(mode: str, text: str = "") -> str:
    arg = f" '{text}'" if text else ""
    return f"exec:{sys.executable} {MISBEHAVE} {mode}{arg}"


def play(
    variant: str,
    *agents: Any,
    config: GameConfig | None = None,
    limits: Limits | None = None,
) -> tuple[GameResult, list[dict[str, Any]], list[Player]]:
    """One game of ``variant``; every process group its players started must be gone the
    moment the game returns (the PID namespace leaves no process dying after the kill)."""
    game = find_game(variant)
    players = [make_player(a, game, limits=limits or Limits()) for a in agents]
    events: list[dict[str, Any]] = []
    result = play_game(
        *players,
        variant=variant,
        config=config or GameConfig(timeout=10),
        max_plies=MAX_PLIES,
        log=events.append,
    )
    for p in players:
        for pgid in p.pgids:
            assert not group_alive(pgid), f"process group {pgid} of {p.name} survived"
    assert events[-1]["event"] == "end" and events[-1]["termination"] == result.termination
    return result, events, players


def assert_seat_zero_forfeits(variant: str, r: GameResult, termination: str) -> None:
    assert r.variant == variant
    assert r.termination == termination, r.reason
    assert (r.winner, r.result, r.points) == (1, LOSS[variant], [0.0, 1.0])
    assert r.plies == 0
    # one clear line that names the side that forfeits
    assert r.reason.startswith(f"{MOVER[variant]} forfeits: "), r.reason
    assert "\n" not in r.reason and len(r.reason) < 300, r.reason


# --- every failure, in every game -----------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(
    ("mode", "termination", "reason"),
    [
        ("crash", "crash", "exit status 3"),
        ("garbage", "invalid_answer", "not valid JSON"),
        ("dupkeys", "invalid_answer", "the key 'from' twice"),
        ("oversize", "invalid_answer", "exceeds the size limit"),
        ("grandchild", "invalid_answer", "not valid JSON"),
        ("nan", "invalid_answer", "NaN"),
        ("trailing", "invalid_answer", "text after the JSON value"),
    ],
)
def test_failure(variant: str, mode: str, termination: str, reason: str) -> None:
    t0 = time.monotonic()
    r, events, players = play(variant, misbehave(mode), "builtin:random")
    assert_seat_zero_forfeits(variant, r, termination)
    assert reason in r.reason, r.reason
    assert players[0].pgids, "the exec agent ran in a process group of its own"
    # a child holding stdout open does not make the referee wait for it
    assert time.monotonic() - t0 < 5
    if mode == "crash":
        failed = [e for e in events if e["event"] == "answer" and "error" in e]
        assert failed[0]["kind"] == "crash" and "deliberate crash" in failed[0]["stderr"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_hang_is_a_timeout(variant: str) -> None:
    t0 = time.monotonic()
    r, events, players = play(
        variant, misbehave("hang"), "builtin:random", config=GameConfig(timeout=1.0)
    )
    assert_seat_zero_forfeits(variant, r, "timeout")
    assert "time limit" in r.reason
    assert [e["kind"] for e in events if e["event"] == "answer" and "error" in e] == ["timeout"]
    assert players[0].pgids
    assert time.monotonic() - t0 < 5


@pytest.mark.parametrize("variant", VARIANTS)
def test_agent_that_cannot_start_is_a_crash(variant: str) -> None:
    r, _, _ = play(variant, "exec:/nonexistent/agent", "builtin:random")
    assert_seat_zero_forfeits(variant, r, "crash")
    assert "cannot start" in r.reason


@pytest.mark.parametrize("variant", VARIANTS)
def test_in_process_agent_that_raises_is_a_crash(variant: str) -> None:
    def broken(state: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("boom")

    r, _, _ = play(variant, broken, "builtin:random")
    assert_seat_zero_forfeits(variant, r, "crash")
    assert "agent raised RuntimeError: boom" in r.reason


@pytest.mark.parametrize("variant", VARIANTS)
def test_illegal_move(variant: str) -> None:
    r, _, _ = play(variant, misbehave("say", ILLEGAL[variant]), "builtin:random")
    assert_seat_zero_forfeits(variant, r, "illegal_move")
    assert ILLEGAL_REASON[variant] in r.reason


# --- retries ------------------------------------------------------------------------------


def legal_answer(variant: str, state: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The first legal move of ``state`` by the game's own rules, as an answer and as the
    move text the result records."""
    if variant == "chess":
        from enoch.protocol import move_answer, parse_state
        from enoch.rules import move_uci

        move = parse_state(state).position.legal_moves()[0]
        return move_answer(move), move_uci(move)
    from enoch.enochian.protocol import move_to_json, state_from_json

    st = state_from_json(state)
    m = st.legal_moves()[0]
    return move_to_json(st, m), st.move_str(m)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("bad", ["nonsense", "illegal"])
def test_retries_forgive_a_bad_answer(variant: str, bad: str) -> None:
    asked: list[dict[str, Any]] = []
    expected: list[str] = []

    def agent(state: dict[str, Any]) -> Any:
        asked.append(state)
        if len(asked) == 1:
            return "nonsense" if bad == "nonsense" else ILLEGAL[variant]
        answer, text = legal_answer(variant, state)
        expected.append(text)
        return answer

    r, events, _ = play(variant, agent, "builtin:random", config=GameConfig(retries=1, timeout=10))
    error = "not valid JSON" if bad == "nonsense" else ILLEGAL_REASON[variant]
    assert "last_error" not in asked[0] and error in asked[1]["last_error"]
    assert asked[1]["last_error"].count("\n") == 0
    # the second state of the log is the same turn asked again, with the reason
    states = [e for e in events if e["event"] == "state"]
    assert (states[1]["ply"], states[1]["player"]) == (0, 0)
    assert error in states[1]["state"]["last_error"]
    assert "last_error" not in asked[2]  # forgiven once, not remembered
    retries = [e for e in events if e["event"] == "decision" and e["decision"] == "retry"]
    assert len(retries) == 1 and retries[0]["player"] == 0
    assert r.moves[0] == expected[0] and r.termination not in FORFEITS


@pytest.mark.parametrize("variant", VARIANTS)
def test_retries_run_out(variant: str) -> None:
    r, events, _ = play(
        variant, misbehave("garbage"), "builtin:random", config=GameConfig(retries=1, timeout=10)
    )
    assert_seat_zero_forfeits(variant, r, "invalid_answer")
    states = [e["state"] for e in events if e["event"] == "state"]
    assert len(states) == 2 and "not valid JSON" in states[1]["last_error"]


# --- the drifts one referee removed --------------------------------------------------------


def test_enochian_duplicate_keys_are_refused() -> None:
    # was accepted (the last "from" won): f1-f3 is a legal move of fire, a1-f3 is not
    dup = '{"from": "a1", "from": "f1", "to": "f3", "promotion": null}'
    for agent in (misbehave("say", dup), lambda state: dup):
        r, _, _ = play("enochian", agent, "builtin:random")
        assert_seat_zero_forfeits("enochian", r, "invalid_answer")
        assert "'from' twice" in r.reason
    # the same move, said once, is played
    r, _, _ = play("enochian", misbehave("say", LEGAL["enochian"][0]), "builtin:random")
    assert r.moves[:1] == ["Qf1-f3"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_oversize_is_an_invalid_answer(variant: str) -> None:
    # a legal move padded past the answer limit: the limit, not the move, decides
    answer, move = LEGAL[variant]
    padded = answer + " " * 200
    r, events, _ = play(
        variant, misbehave("say", padded), "builtin:random", limits=Limits(max_answer_bytes=100)
    )
    assert_seat_zero_forfeits(variant, r, "invalid_answer")
    assert "exceeds the size limit of 100 bytes" in r.reason
    failed = [e for e in events if e["event"] == "answer" and "error" in e]
    assert len(failed) == 1 and "size limit" in failed[0]["error"]
    # within the limit, the same move is played
    r, _, _ = play(variant, misbehave("say", answer + " " * 40), "builtin:random")
    assert r.moves[:1] == [move]


def test_names_are_the_games_own() -> None:
    # an Enochian agent in a chess game is refused before the game starts: no event is
    # logged and no agent process started (the fixture checks none is left)
    events: list[dict[str, Any]] = []
    with pytest.raises(InputError, match="unknown agent builtin:enochian-random for chess"):
        play_game("builtin:enochian-random", "builtin:random", log=events.append)
    with pytest.raises(InputError, match="unknown agent builtin:enochian-random for chess"):
        play_game(misbehave("hang"), "builtin:enochian-random", log=events.append)
    assert events == []
    # builtin:random in an Enochian game is the Enochian random agent, in chess chess's
    from enoch.agents.simple import RandomAgent as ChessRandom
    from enoch.enochian.agents import RandomAgent as EnochianRandom

    player = make_player("builtin:random", find_game("enochian"))
    assert isinstance(getattr(player, "agent", None), EnochianRandom)
    player = make_player("builtin:random", find_game("chess"))
    assert isinstance(getattr(player, "agent", None), ChessRandom)
    r, _, _ = play("enochian", "builtin:random?seed=1", "builtin:random?seed=2")
    assert r.plies >= 1 and r.termination not in FORFEITS
    assert all("-" in m or "x" in m for m in r.moves)  # Enochian notation: Qf1-f3, Re4xe5


@pytest.mark.parametrize(
    ("argv", "refused"),
    [
        (["play", "--variant", "enochian", "builtin:engine", "builtin:random"], "builtin:engine"),
        (["play", "--variant", "enochian", "uci:stockfish"], "'uci:stockfish'"),
        (
            ["match", "--variant", "enochian", "builtin:random", "uci:stockfish", "--games", "2"],
            "'uci:stockfish'",
        ),
        (["match", "--variant", "enochian", "builtin:engine", "builtin:random"], "builtin:engine"),
        (
            ["match", "--variant", "chess", "builtin:random", "builtin:enochian-search"],
            "builtin:enochian-search",
        ),
    ],
)
def test_cli_refuses_another_games_agent(
    argv: list[str], refused: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"enoch: error: unknown agent {refused} for {argv[2]}"), err


def test_results_line_has_the_same_common_keys_in_both_games() -> None:
    common = {
        "variant",
        "seats",
        "result",
        "termination",
        "reason",
        "winner",
        "points",
        "plies",
        "moves",
    }
    lines = {}
    for variant in VARIANTS:
        r, _, _ = play(variant, misbehave("garbage"), "builtin:random")
        lines[variant] = r.to_json()
        assert common <= set(lines[variant]), common - set(lines[variant])
        line = lines[variant]
        assert line["variant"] == variant and line["seats"] == r.seats
        assert (line["winner"], line["points"], line["plies"], line["moves"]) == (1, [0, 1], 0, [])
        assert line["termination"] == "invalid_answer" and isinstance(line["reason"], str)
    for key in common:
        assert type(lines["chess"][key]) is type(lines["enochian"][key]), key
