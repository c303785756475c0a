"""Every ending of the referee, played by scripted external agents (jsonl and exec).

Plans are keyed by the ply (length of ``position_history``); see agents/scripted.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from enoch.arena import GameConfig
from tests.arena.helpers import exec_agent, jsonl_agent, run

KNIGHT_SHUFFLE = ["g1f3", "g8f6", "f3g1", "f6g8"]


def mv(uci: str, promotion: str | None = None) -> dict[str, Any]:
    return {"from": uci[:2], "to": uci[2:4], "promotion": promotion}


def plan_of(moves: list[str], start: int = 0) -> dict[str, list[dict[str, Any]]]:
    return {str(start + i): [mv(m)] for i, m in enumerate(moves)}


def both(plan: dict[str, Any]) -> tuple[str, str]:
    return jsonl_agent(plan), jsonl_agent(plan)


def test_checkmate_fools_mate() -> None:
    r, _ = run(*both(plan_of(["f2f3", "e7e5", "g2g4", "d8h4"])))
    assert (r.result, r.termination, r.plies) == ("0-1", "checkmate", 4)


def test_stalemate() -> None:
    r, _ = run(*both(plan_of(["g5g6"])), start_fen="7k/8/8/6Q1/8/8/8/K7 w - - 0 1")
    assert (r.result, r.termination) == ("1/2-1/2", "stalemate")


def test_dead_position() -> None:
    r, _ = run(*both(plan_of(["e1d2"])), start_fen="4k3/8/8/8/8/8/3p4/4K3 w - - 0 1")
    assert (r.result, r.termination) == ("1/2-1/2", "insufficient_material")


def test_dead_position_at_start_ends_at_once() -> None:
    r, events = run(*both({}), start_fen="4k3/8/8/8/8/8/8/4KB2 w - - 0 1")
    assert (r.termination, r.plies) == ("insufficient_material", 0)
    assert not [e for e in events if e["event"] == "state"]


def test_seventyfive_moves() -> None:
    r, _ = run(*both(plan_of(["a1a2"])), start_fen="7k/8/6K1/8/8/8/8/R7 w - - 149 100")
    assert (r.result, r.termination) == ("1/2-1/2", "seventyfive_moves")


def test_checkmate_on_the_75th_move_wins() -> None:
    r, _ = run(*both(plan_of(["a1a8"])), start_fen="7k/8/6K1/8/8/8/8/R7 w - - 149 100")
    assert (r.result, r.termination) == ("1-0", "checkmate")


def test_fivefold_repetition_is_automatic() -> None:
    r, _ = run(*both(plan_of(KNIGHT_SHUFFLE * 4)))
    assert (r.result, r.termination, r.plies) == ("1/2-1/2", "fivefold_repetition", 16)


def test_threefold_claim_right() -> None:
    plan = plan_of(KNIGHT_SHUFFLE * 2)
    plan["8"] = [{"action": "claim_draw", "reason": "threefold_repetition"}]
    r, _ = run(*both(plan))
    assert (r.result, r.termination, r.plies) == ("1/2-1/2", "threefold_repetition", 8)


def test_threefold_claim_wrong_is_refused_then_play_goes_on() -> None:
    plan = plan_of(KNIGHT_SHUFFLE * 2)
    plan["4"] = [{"action": "claim_draw", "reason": "threefold_repetition"}, mv("g1f3")]
    plan["8"] = [{"action": "claim_draw", "reason": "threefold_repetition"}]
    r, events = run(*both(plan))
    assert (r.termination, r.plies) == ("threefold_repetition", 8)
    refused = [e for e in events if e.get("decision") == "claim_refused"]
    assert len(refused) == 1 and "occurred 2 times" in refused[0]["reason"]
    retry = [e for e in events if e["event"] == "state" and e["ply"] == 4][1]["state"]
    assert "threefold repetition claim refused" in retry["last_error"]


def test_second_wrong_claim_forfeits() -> None:
    claim = {"action": "claim_draw", "reason": "fifty_move_rule"}
    r, _ = run(*both({"0": [claim, claim]}))
    assert (r.result, r.termination) == ("0-1", "invalid_answer")
    assert "second incorrect claim" in r.reason


def test_fifty_move_claim_right_and_wrong() -> None:
    claim = {"action": "claim_draw", "reason": "fifty_move_rule"}
    r, _ = run(*both({"0": [claim]}), start_fen="4k3/8/8/8/8/8/8/R3K3 w - - 100 80")
    assert (r.result, r.termination) == ("1/2-1/2", "fifty_moves")
    plan = {"0": [claim, mv("a1a2")], "1": [claim]}
    r, events = run(*both(plan), start_fen="4k3/8/8/8/8/8/8/R3K3 w - - 98 80")
    # White's claim at 98 is refused; after a1a2 and Black's claim the clock is 99: refused
    # again (Black's first), Black then plays randomly; the game goes on to a normal end.
    refused = [e for e in events if e.get("decision") == "claim_refused"]
    assert len(refused) >= 2 and "halfmove clock is 98" in refused[0]["reason"]


def test_scripted_claim_of_fifty_moves_when_valid() -> None:
    claim = {"do": "claim"}
    plan = {"0": [mv("a1a2")], "1": [claim]}
    r, _ = run(*both(plan), start_fen="4k3/8/8/8/8/8/8/R3K3 w - - 99 80")
    assert (r.termination, r.plies) == ("fifty_moves", 1)


def test_draw_offer_accepted() -> None:
    plan = {"0": [{"action": "offer_draw"}, mv("e2e4")], "1": [{"action": "offer_draw"}]}
    r, events = run(*both(plan))
    assert (r.result, r.termination, r.plies) == ("1/2-1/2", "agreement", 1)
    offers = [e["state"].get("draw_offer") for e in events if e["event"] == "state"]
    assert offers == [None, "white", "white"]


def test_draw_offer_declined_lapses() -> None:
    plan = {"0": [{"action": "offer_draw"}, mv("e2e4")], "1": [mv("e7e5")], "2": [mv("g1f3")]}
    plan.update(plan_of(["b8c6", "f1b5", "a7a6"], 3))
    plan["6"] = [{"action": "resign"}]
    r, events = run(*both(plan))
    assert (r.result, r.termination) == ("0-1", "resignation")
    assert any(e.get("decision") == "offer_declined" for e in events)
    later = [e["state"] for e in events if e["event"] == "state" and e["ply"] >= 2]
    assert all("draw_offer" not in s for s in later)


def test_repeated_offer_in_one_turn_forfeits_the_second_time() -> None:
    offer = {"action": "offer_draw"}
    r, _ = run(*both({"0": [offer, offer, offer]}))
    assert (r.result, r.termination) == ("0-1", "invalid_answer")


def test_resignation() -> None:
    r, _ = run(*both({"1": [{"action": "resign"}]}))
    assert (r.result, r.termination, r.plies) == ("1-0", "resignation", 1)


def test_exec_transport_plays_a_complete_game() -> None:
    plan = plan_of(["f2f3", "e7e5", "g2g4", "d8h4"])
    r, events = run(exec_agent(plan), exec_agent(plan))
    assert (r.result, r.termination) == ("0-1", "checkmate")
    assert sum(e["event"] == "answer" for e in events) == 4


@pytest.mark.parametrize("mode", ["jsonl", "exec"])
def test_random_game_to_the_end(mode: str) -> None:
    agent = jsonl_agent if mode == "jsonl" else exec_agent
    # exec games are slow (a process per move); start late in a game so that it ends soon.
    fen = "4k3/2p5/8/8/8/8/4P3/4K3 w - - 0 1" if mode == "exec" else None
    r, _ = run(agent({}), agent({}), start_fen=fen, config=GameConfig(timeout=20))
    automatic = ("checkmate", "stalemate", "insufficient_material", "fivefold_repetition")
    assert r.termination in (*automatic, "seventyfive_moves")
