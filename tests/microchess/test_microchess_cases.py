"""Every position recorded from the original 1976 program, reproduced counter by counter."""

from __future__ import annotations

from typing import Any

import chess
import pytest
from tests.microchess.mc_data import CASES

from enoch.microchess.arith import COUNTER_NAMES
from enoch.microchess.evaluator import Board, evaluate
from enoch.microchess.explain import explain_fen, to_json
from enoch.microchess.slots import WHITE, Placement, assign, track


def _placement(board: chess.Board) -> Placement:
    return {sq: p.symbol() for sq, p in board.piece_map().items()}


def test_case_file_is_complete() -> None:
    assert len(CASES) == 127
    assert sum(len(c["candidate_details"]) for c in CASES) == 4133
    assert len({c["id"] for c in CASES}) == 127


@pytest.mark.parametrize("case", CASES, ids=[f"case{c['id']}" for c in CASES])
def test_case(case: dict[str, Any]) -> None:
    """All 17 counters, both values, the order, the chosen move and the resign flag, exactly."""
    out = to_json(explain_fen(case["fen"]))
    assert out["computer"] == case["computer"]
    expected = case["candidate_details"]
    assert [c["move"] for c in out["candidates"]] == [d["move"] for d in expected]
    for got, want in zip(out["candidates"], expected, strict=True):
        for name in (*COUNTER_NAMES, "strategy_value", "score", "piece"):
            assert got[name] == want[name], f"{want['move']}: {name}"
    assert out["best_move"] == case["best_move"]
    assert out["score"] == case["score"]
    resigns = case["best_move"] is None
    assert (out["best_move"] is None) == resigns
    assert resigns == (case["score"] < 15)


@pytest.mark.parametrize("case", CASES, ids=[f"case{c['id']}" for c in CASES])
def test_slot_bytes(case: dict[str, Any]) -> None:
    """Slots assigned from the position are the original's 32 bytes."""
    board = chess.Board(case["fen"])
    white = board.turn == chess.WHITE
    men = assign(_placement(board))
    assert bytes(Board.from_men(men, white).sq).hex() == case["mc_board"]


TRACKED = [c for c in CASES if "moves" in c]


@pytest.mark.parametrize("case", TRACKED, ids=[f"case{c['id']}" for c in TRACKED])
def test_tracked_game(case: dict[str, Any]) -> None:
    """Men followed through the game from the start keep the original's slots and choice."""
    board = chess.Board()
    chain = [(_placement(board), WHITE if board.turn else 1)]
    for uci in case["moves"]:
        board.push_uci(uci)
        chain.append((_placement(board), WHITE if board.turn else 1))
    assert board.board_fen() == case["fen"].split()[0]
    white = board.turn == chess.WHITE
    b = Board.from_men(track(chain), white)
    assert bytes(b.sq).hex() == case["mc_board_tracked"]
    ev = evaluate(b, white)
    assert ev.best_value == case["score_tracked"]
    if case["best_move_tracked"] is None:
        assert ev.best is None
    else:
        assert ev.best is not None
        best = ev.candidates[ev.best]
        from enoch.microchess.evaluator import from_frame

        uci = chess.square_name(from_frame(best.frm, white)) + chess.square_name(
            from_frame(best.to, white)
        )
        assert uci == case["best_move_tracked"]
