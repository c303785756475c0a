"""builtin:microchess: the original's move where it moves, and only FIDE-legal answers."""

from __future__ import annotations

import random
from typing import Any

import chess
import pytest
from tests.builtins import make_builtin
from tests.microchess.mc_data import CASES

from enoch.errors import InputError
from enoch.microchess import agent as agent_module
from enoch.microchess.agent import MicroChessAgent
from enoch.microchess.evaluator import Board, Evaluation
from enoch.protocol import make_state, state_from_fen
from enoch.rules import Position

RESIGN_FEN = "k7/8/7p/5Pp1/7K/r7/4b3/8 w - g6 0 2"  # only legal move: f5xg6 en passant


def state_of(board: chess.Board, with_history: bool = True) -> dict[str, Any]:
    """The protocol state of a python-chess game, history from its start."""
    history: list[str] = []
    if with_history:
        replay = board.root()
        for move in board.move_stack:
            history.append(replay.epd())
            replay.push(move)
    return make_state(Position.from_fen(board.fen()), history)


def is_legal_answer(board: chess.Board, answer: dict[str, Any]) -> bool:
    if "action" in answer:
        return answer["action"] in ("resign", "claim_draw") and set(answer) <= {"action", "reason"}
    assert set(answer) == {"from", "to", "promotion"}
    promo = answer["promotion"]
    uci = answer["from"] + answer["to"] + (promo.lower() if promo else "")
    return chess.Move.from_uci(uci) in board.legal_moves


def test_registered_as_builtin() -> None:
    agent = make_builtin("builtin:microchess")
    assert isinstance(agent, MicroChessAgent)
    assert agent.name == "microchess"
    agent.close()


@pytest.mark.parametrize("options", [{"colour": "white"}, {"resign": "maybe"}, {"draw": "x"}])
def test_bad_options(options: dict[str, str]) -> None:
    with pytest.raises(InputError):
        MicroChessAgent(**options)


MOVING = [c for c in CASES if c["best_move"] is not None]


@pytest.mark.parametrize("case", MOVING, ids=[f"case{c['id']}" for c in MOVING])
def test_same_move_as_the_original(case: dict[str, Any]) -> None:
    answer = MicroChessAgent(history="no").answer(state_from_fen(case["fen"]))
    assert answer == {"from": case["best_move"][:2], "to": case["best_move"][2:], "promotion": None}


TRACKED = [c for c in CASES if "moves" in c and c["best_move_tracked"] is not None]


@pytest.mark.parametrize("case", TRACKED, ids=[f"case{c['id']}" for c in TRACKED])
def test_same_move_as_the_original_in_a_game(case: dict[str, Any]) -> None:
    board = chess.Board()
    for uci in case["moves"]:
        board.push_uci(uci)
    answer = MicroChessAgent().answer(state_of(board))
    best = case["best_move_tracked"]
    assert (answer["from"], answer["to"]) == (best[:2], best[2:])


HISTORIES = [c for c in CASES if "moves" in c]


@pytest.mark.parametrize("case", HISTORIES, ids=[f"case{c['id']}" for c in HISTORIES])
def test_agent_follows_men_through_position_history(case: dict[str, Any]) -> None:
    """From the state's history the agent rebuilds the original's in-game slot bytes."""
    board = chess.Board()
    for uci in case["moves"]:
        board.push_uci(uci)
    state = state_of(board)
    pos = Position.from_fen(board.fen())
    white = board.turn == chess.WHITE
    tracked = MicroChessAgent().men_for(state, pos)
    assert bytes(Board.from_men(tracked, white).sq).hex() == case["mc_board_tracked"]
    fresh = MicroChessAgent(history="no").men_for(state, pos)
    assert bytes(Board.from_men(fresh, white).sq).hex() == case["mc_board"]


def test_promotes_to_a_queen() -> None:
    # The original takes the rook with the b-pawn (it would leave it a pawn).
    answer = MicroChessAgent().answer(state_from_fen("r7/1P6/8/8/8/1k6/8/K7 w - - 0 1"))
    assert answer == {"from": "b7", "to": "a8", "promotion": "Q"}
    answer = MicroChessAgent().answer(
        state_from_fen("k7/7r/8/6p1/2P5/pP2N1pP/P3p3/1RN3KR b - - 3 57")
    )
    assert answer == {"from": "e2", "to": "e1", "promotion": "Q"}


def test_no_move_resigns_and_never_takes_en_passant() -> None:
    assert MicroChessAgent().answer(state_from_fen(RESIGN_FEN)) == {"action": "resign"}
    # With resign=no it plays the only legal move, which the original cannot see.
    answer = MicroChessAgent(resign="no").answer(state_from_fen(RESIGN_FEN))
    assert answer == {"from": "f5", "to": "g6", "promotion": None}


def test_checkmated_side_resigns() -> None:
    fen = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
    assert MicroChessAgent(resign="no").answer(state_from_fen(fen)) == {"action": "resign"}


def test_illegal_choice_of_the_original_falls_back_to_a_legal_candidate() -> None:
    # Black's second queen (a8) has no slot: the original does not see the check it gives
    # and would play h2xh1; the agent plays the best candidate that is legal.
    fen = "q3k3/8/8/8/8/K7/7R/7q w - - 0 1"
    agent = MicroChessAgent()
    _, ev = agent.evaluation(state_from_fen(fen))
    assert ev.best is not None
    assert ev.candidates[ev.best].slot == 2  # the rook: h2xh1 ignores the check
    answer = agent.answer(state_from_fen(fen))
    assert is_legal_answer(chess.Board(fen), answer)
    assert answer["from"] == "a3"


def _no_move(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the original decline every move, to test what the agent does then."""

    def fake(board: object, white: bool) -> Evaluation:
        return Evaluation(white, (), None, 12)

    monkeypatch.setattr(agent_module, "evaluate", fake)


def test_claims_fifty_moves_instead_of_resigning(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_move(monkeypatch)
    state = state_from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 100 80")
    answer = MicroChessAgent().answer(state)
    assert answer == {"action": "claim_draw", "reason": "fifty_move_rule"}
    assert MicroChessAgent(draw="never").answer(state) == {"action": "resign"}


def _repeated_start() -> chess.Board:
    board = chess.Board()
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8"] * 2:
        board.push_uci(uci)
    return board


def test_claims_threefold_instead_of_resigning(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_move(monkeypatch)
    answer = MicroChessAgent().answer(state_of(_repeated_start()))
    assert answer == {"action": "claim_draw", "reason": "threefold_repetition"}


def test_draw_option() -> None:
    state = state_of(_repeated_start())
    assert MicroChessAgent(draw="always").answer(state) == {
        "action": "claim_draw",
        "reason": "threefold_repetition",
    }
    # By default the original plays on: it knows no draw rules.
    assert "from" in MicroChessAgent().answer(state)
    twice = chess.Board()
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8"]:
        twice.push_uci(uci)
    assert "from" in MicroChessAgent(draw="always").answer(state_of(twice))


def test_never_illegal_in_random_positions() -> None:
    """Seeded random games, half the moves the agent's own; python-chess is the oracle."""
    rng = random.Random(19760)
    agent = MicroChessAgent()
    fresh = MicroChessAgent(history="no", resign="no")
    asked = 0
    kinds: set[str] = set()
    # A fixed count, not a deadline: the test must not depend on the machine's load.
    while asked < 2000:
        board = chess.Board()
        for _ply in range(rng.randrange(20, 200)):
            if board.is_game_over():
                break
            who = agent if rng.random() < 0.5 else fresh
            answer = who.answer(state_of(board, with_history=who is agent))
            asked += 1
            assert is_legal_answer(board, answer), (board.fen(), answer)
            if "action" in answer or rng.random() < 0.5:
                kinds.add(answer.get("action", "move"))
                move = rng.choice(list(board.legal_moves))
            else:
                kinds.add("move")
                promo = answer["promotion"]
                move = chess.Move.from_uci(
                    answer["from"] + answer["to"] + (promo.lower() if promo else "")
                )
            board.push(move)
    assert asked >= 2000
    assert "move" in kinds


def test_bad_state_is_an_input_error() -> None:
    with pytest.raises(InputError):
        MicroChessAgent().answer({"board": {"e1": "K"}, "turn": "white"})
